import Strata

// Models of the relationship suites. Each pair exercises one shape.

/// Many-to-many with `.nullify` on both sides; `tags` keeps the app's order.
@Model final class Article {
    var title: String
    @Relationship(inverse: \Tag.articles) var tags: [Tag] = []

    init(title: String) { self.title = title }
}

@Model final class Tag {
    var name: String
    var articles: [Article] = []

    init(name: String) { self.name = name }
}

let articleSchema = Schema(Article.self, Tag.self)

/// Ordered one-to-many: a playlist's songs play in the order the app gave.
@Model final class Playlist {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Song.playlist) var songs: [Song] = []

    init(name: String) { self.name = name }
}

@Model final class Song {
    var title: String
    var playlist: Playlist?

    init(title: String) { self.title = title }
}

let playlistSchema = Schema(Playlist.self, Song.self)

/// Many-to-many delete rules: deleting a board deletes its pins (`.cascade`);
/// a pin on any board cannot be deleted (`.deny`). A board holds at most 3 pins.
@Model final class Board {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Pin.boards, maximumModelCount: 3) var pins: [Pin] = []

    init(name: String) { self.name = name }
}

@Model final class Pin {
    var label: String
    @Relationship(deleteRule: .deny) var boards: [Board] = []

    init(label: String) { self.label = label }
}

let boardSchema = Schema(Board.self, Pin.self)

/// Counted one-to-many: a team has 1 to 3 players.
@Model final class Team {
    var name: String
    @Relationship(inverse: \Player.team, minimumModelCount: 1, maximumModelCount: 3) var players: [Player] = []

    init(name: String) { self.name = name }
}

@Model final class Player {
    var name: String
    var team: Team?

    init(name: String) { self.name = name }
}

let teamSchema = Schema(Team.self, Player.self)

extension Array where Element: AnyObject {
    /// Moves the element at `from` to `to`, as a list's drag and drop does.
    mutating func move(from: Int, to: Int) {
        let element = remove(at: from)
        insert(element, at: to)
    }
}
