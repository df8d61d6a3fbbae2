import Foundation
import Strata

// Models of the batch suites: every delete rule a store's foreign keys carry,
// one level of cascade below another, and attributes of converted types.

/// Deleting a publisher deletes its series (and their volumes), clears its
/// editors' publisher, and is denied while it has contracts.
@Model final class Publisher {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Series.publisher) var series: [Series] = []
    @Relationship(deleteRule: .nullify, inverse: \Editor.publisher) var editors: [Editor] = []
    @Relationship(deleteRule: .deny, inverse: \Contract.publisher) var contracts: [Contract] = []

    init(name: String) { self.name = name }
}

@Model final class Series {
    var name: String
    var publisher: Publisher?
    @Relationship(deleteRule: .cascade, inverse: \Volume.series) var volumes: [Volume] = []

    init(name: String) { self.name = name }
}

@Model final class Volume {
    @Attribute(.preserveValueOnDeletion) var isbn: String
    var series: Series?

    init(isbn: String) { self.isbn = isbn }
}

@Model final class Editor {
    var name: String
    var publisher: Publisher?

    init(name: String) { self.name = name }
}

@Model final class Contract {
    var number: Int
    var publisher: Publisher?

    init(number: Int) { self.number = number }
}

let publishingSchema = Schema(Publisher.self, Series.self, Volume.self, Editor.self, Contract.self)

/// A drawer cannot go while it holds drawers, unless they go with it.
@Model final class Drawer {
    var name: String
    var parent: Drawer?
    @Relationship(deleteRule: .deny, inverse: \Drawer.parent) var children: [Drawer] = []

    init(name: String) { self.name = name }
}

/// Attributes whose values convert: enums by raw value, dates, `Codable` as JSON.
@Model final class Release {
    var title: String
    var genre: Genre
    var priority: Priority?
    var date: Date
    var dimensions: Dimensions?

    init(title: String, genre: Genre, date: Date) {
        self.title = title
        self.genre = genre
        self.date = date
    }
}

let releaseSchema = Schema(Release.self)

/// Each side of a one-to-one keeps its own key.
@Model final class Pilot {
    @Attribute(.unique) var name: String
    var rank: Int = 0
    @Relationship(inverse: \Licence.holder) var licence: Licence?

    init(name: String) { self.name = name }
}

@Model final class Licence {
    var number: String
    var holder: Pilot?

    init(number: String) { self.number = number }
}
