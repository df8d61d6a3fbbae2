import Foundation
import GRDB
import Strata
@testable import StrataCore
@testable import StrataSQLite
import Testing

/// A place whose name is searched regardless of case and diacritics.
@Model final class Place {
    var name: String
    var population: Int
    #Index<Place>([\.name.folded], [\.population])

    init(name: String, population: Int = 0) {
        self.name = name
        self.population = population
    }
}

/// `#Index([\.name.folded])` indexes the folded form, and the folded equality,
/// prefix and sort that read it use the index in SQLite.
@Suite("Folded indexes")
struct FoldedIndexTests {
    static let names = ["École", "ecole", "Écoles", "Straße", "STRASSE", "Paris", "İstanbul"]

    /// SQLite's plan for the select a request compiles to.
    private func plan(_ request: StrataCore.FetchRequest<Place>, in container: PersistentContainer) throws -> String {
        let store = try #require(try container.persistentStoreCoordinator.loadedStore() as? SQLiteStore)
        let entity = try container.schema.entity(for: Place.self)
        let fetchPlan = try PredicateCompiler(schema: container.schema, entity: entity).plan(for: request)
        let select = store.select(fetchPlan)
        return try store.writer.read { db in
            let statement = RawStatement(try db.cachedStatement(sql: "EXPLAIN QUERY PLAN " + select.sql(columns: store.layout.entities[entity.index].selectList)), in: db)
            defer { statement.reset() }
            try statement.bind(select.arguments)
            var details: [String] = []
            while try statement.step() {
                if case .text(let detail) = statement.value(at: 3) { details.append(detail) }
            }
            return details.joined(separator: "; ")
        }
    }

    @Test(arguments: [StoreKind.inMemory, .file])
    func foldedEqualityPrefixAndSortUseTheIndex(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Place.self))
        try stack.container.perform { context in
            for name in Self.names { context.insert(Place(name: name)) }
            try context.save()
        }
        let ecole = "ECOLE".folded, prefix = "eco".folded
        let equal = StrataCore.FetchRequest<Place>(predicate: #Predicate { $0.name.folded == ecole })
        let starts = StrataCore.FetchRequest<Place>(predicate: #Predicate { $0.name.folded.starts(with: prefix) })
        let sorted = StrataCore.FetchRequest<Place>(sortBy: [SortDescriptor(\.name.folded)])
        #expect(try plan(equal, in: stack.container).contains("_strata_index_Place_name_folded"))
        #expect(try plan(starts, in: stack.container).contains("_strata_index_Place_name_folded"))
        #expect(try !plan(sorted, in: stack.container).contains("TEMP B-TREE"))

        let context = stack.container.newContext()
        #expect(Set(try context.fetch(equal).map(\.name)) == ["École", "ecole"])
        #expect(Set(try context.fetch(starts).map(\.name)) == ["École", "ecole", "Écoles"])
        #expect(try context.fetch(sorted).map(\.name) == ["École", "ecole", "Écoles", "İstanbul", "Paris", "Straße", "STRASSE"])
    }

    @Test(arguments: testedStoreKinds)
    func aFoldedIndexChangesNoResult(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Place.self))
        let context = stack.container.newContext()
        for name in Self.names { context.insert(Place(name: name)) }
        let prefix = "STR".folded
        let request = StrataCore.FetchRequest<Place>(predicate: #Predicate { $0.name.folded.starts(with: prefix) })
        #expect(Set(try context.fetch(request).map(\.name)) == ["Straße", "STRASSE"])
        try context.save()
        context.reset()
        #expect(Set(try context.fetch(request).map(\.name)) == ["Straße", "STRASSE"])
    }

    @Test func onlyAStringAttributeHasAFoldedIndex() {
        final class Town: PersistentModel {
            static let schemaProperties: [PropertyMetadata] = [.property("population", \Town.population)]
            static var indexes: [[String]] { [["population.folded"]] }
            let persistentBacking: ModelBacking
            init(backing: ModelBacking) { persistentBacking = backing }
            var population: Int { persistentValue(at: 0, as: Int.self) }
        }
        #expect(throws: StrataError.self) { try Schema(Town.self).validate() }
    }
}

enum SpotsV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Spot.self] }

    @Model final class Spot {
        var name: String
        init(name: String) { self.name = name }
    }
}

/// Version 2 indexes the folded names.
enum SpotsV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Spot.self] }

    @Model final class Spot {
        var name: String
        #Index<Spot>([\.name.folded])
        init(name: String) { self.name = name }
    }
}

@Suite("Folded indexes added by migration")
struct FoldedIndexMigrationTests {
    @Test func addingAFoldedIndexMigratesAndKeepsTheStoreReadableElsewhere() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Spots.sqlite")
        let v1 = try PersistentContainer(name: "Spots", schema: Schema(versionedSchema: SpotsV1.self))
        v1.storeDescriptions = [StoreDescription(url: url)]
        try await v1.loadPersistentStores()
        try v1.perform { context in
            for name in ["École", "Straße", "Paris"] { context.insert(SpotsV1.Spot(name: name)) }
            try context.save()
        }
        try v1.persistentStoreCoordinator.close()

        let v2 = try PersistentContainer(name: "Spots", schema: Schema(versionedSchema: SpotsV2.self))
        v2.storeDescriptions = [StoreDescription(url: url)]
        try await v2.loadPersistentStores()
        let query = "ECOLE".folded
        let found = try v2.perform { context in
            try context.fetch(StrataCore.FetchRequest<SpotsV2.Spot>(predicate: #Predicate { $0.name.folded == query })).map(\.name)
        }
        #expect(found == ["École"])
        try v2.persistentStoreCoordinator.close()

        // A program without Strata's function reads the store; the index is there.
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        let names = try await queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM Spot ORDER BY pk") }
        let indexes = try await queue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%strata_fold%'")
        }
        #expect(names == ["École", "Straße", "Paris"])
        #expect(indexes == ["_strata_index_Spot_name_folded"])
    }
}
