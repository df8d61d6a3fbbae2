import Foundation
import Strata
import StrataTestModels
import Testing

/// `strata export` and `strata import`: every row of a store out as JSON or
/// CSV and back into an empty store of the same schema, exactly.
@Suite("Export and import")
struct StoreExportTests {
    /// A file store of `schema` with `fill` saved, closed.
    private static func store(
        _ schema: Schema, in directory: TemporaryDirectory, name: String, fill: (ManagedObjectContext) throws -> Void = { _ in }
    ) async throws -> URL {
        let url = directory.file("\(name).sqlite")
        let container = try PersistentContainer(name: name, schema: schema)
        container.storeDescriptions = [StoreDescription(url: url)]
        try await container.loadPersistentStores()
        try container.perform { context in
            try fill(context)
            try context.save()
        }
        try container.persistentStoreCoordinator.close()
        return url
    }

    private static func container(_ url: URL, schema: Schema) async throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Imported", schema: schema)
        container.storeDescriptions = [StoreDescription(url: url)]
        try await container.loadPersistentStores()
        return container
    }

    @Test(arguments: StoreExport.Format.allCases)
    func valuesOfEveryTypeComeBackExactly(_ format: StoreExport.Format) async throws {
        let directory = TemporaryDirectory()
        let schema = Schema(Sample.self)
        let source = try await Self.store(schema, in: directory, name: "Source") { context in
            for seed in 1...3 { context.insert(Sample(seed: seed)) }
            let edge = Sample(seed: 4)
            edge.string = "quotes \"and\", commas\nand a line break, a NUL \u{0} inside, and \u{1F469}\u{200D}\u{1F4BB}"
            edge.optionalString = ""
            edge.double = -1e-300
            edge.float = .leastNonzeroMagnitude
            edge.date = Date(timeIntervalSinceReferenceDate: -1e-7)
            edge.data = Data()
            context.insert(edge)
        }
        let target = try await Self.store(schema, in: directory, name: "Target")
        let exported = directory.file(format == .json ? "export.json" : "export-csv")
        let summary = try StoreExport.export(storeAt: source, as: format, to: exported)
        #expect(summary.rowCounts == ["Sample": 4])
        var reported: [(Int, Int)] = []
        try StoreImport.import(from: exported, as: format, into: target) { reported.append(($0, $1)) }
        #expect(reported.last.map { [$0.0, $0.1] } == [4, 4])

        let before = try await Self.container(source, schema: schema)
        let after = try await Self.container(target, schema: schema)
        let request = FetchRequest<Sample>(sortBy: [SortDescriptor(\.int64)])
        let expected = try before.perform { context in try context.fetch(request).map(AttributeRoundTripTests.Values.init) }
        let imported = try after.perform { context in try context.fetch(request).map(AttributeRoundTripTests.Values.init) }
        #expect(imported == expected)
        #expect(imported.count == 4)
        #expect(imported.last?.double == -1e-300)
        #expect(imported.last?.optionalString == "", "empty text stays empty, not nil")
        #expect(imported.first?.optionalString == "present")
        // New rows take keys after the imported ones.
        try after.perform { context in
            context.insert(Sample(seed: 9))
            try context.save()
        }
        #expect(try StoreCheck(url: target).problems.isEmpty)
    }

    @Test(arguments: StoreExport.Format.allCases)
    func keysOfRowsDeletedBeforeTheExportAreNotGivenAgain(_ format: StoreExport.Format) async throws {
        let directory = TemporaryDirectory()
        let schema = Schema(Place.self)
        let source = try await Self.store(schema, in: directory, name: "Places") { context in
            for name in ["Oslo", "Bergen", "Tromsø", "Bodø", "Narvik"] { context.insert(Place(name: name, population: 1)) }
        }
        // The two newest go: the export's highest row is key 3, but keys 4 and 5 were given.
        let original = try await Self.container(source, schema: schema)
        try original.perform { context in
            for place in try context.fetch(FetchRequest<Place>(predicate: #Predicate { $0.name == "Bodø" || $0.name == "Narvik" })) {
                context.delete(place)
            }
            try context.save()
        }
        try original.persistentStoreCoordinator.close()
        let target = try await Self.store(schema, in: directory, name: "Restored")
        let exported = directory.file(format == .json ? "places.json" : "places-csv")
        try StoreExport.export(storeAt: source, as: format, to: exported)
        try StoreImport.import(from: exported, as: format, into: target)

        let restored = try await Self.container(target, schema: schema)
        let key = try restored.perform { context in
            let place = Place(name: "Alta", population: 1)
            context.insert(place)
            try context.save()
            return place.objectID.primaryKey
        }
        #expect(key == 6, "a new row takes a key the old store never gave")
    }

    @Test(arguments: StoreExport.Format.allCases)
    func relationshipsKeepTheirMembersAndOrder(_ format: StoreExport.Format) async throws {
        let directory = TemporaryDirectory()
        let source = try await Self.store(bookcaseSchema, in: directory, name: "Shelves") { context in
            let labels = (0..<3).map { Sticker(name: "label \($0)") }
            let press = Imprint(name: "press")
            for number in 0..<3 {
                let shelf = Bookcase(name: "shelf \(number)")
                context.insert(shelf)
                // Volumes in an order that is not the keys' order.
                for volume in (0..<4).reversed() {
                    let tome = Tome(title: "\(number).\(volume)")
                    tome.press = volume % 2 == 0 ? press : nil
                    tome.labels = [labels[(number + volume) % 3], labels[volume % 3]].reduce(into: []) { list, label in
                        if !list.contains(where: { $0 === label }) { list.append(label) }
                    }
                    shelf.volumes.append(tome)
                }
            }
            labels[1].volumes.reverse()
        }
        let target = try await Self.store(bookcaseSchema, in: directory, name: "Restored")
        let exported = directory.file(format == .json ? "shelves.json" : "shelves-csv")
        try StoreExport.export(storeAt: source, as: format, to: exported)
        try StoreImport.import(from: exported, as: format, into: target)

        func describe(_ url: URL) async throws -> [String] {
            let container = try await Self.container(url, schema: bookcaseSchema)
            defer { try? container.persistentStoreCoordinator.close() }
            return try container.perform { context in
                let shelves = try context.fetch(FetchRequest<Bookcase>(sortBy: [SortDescriptor(\.name)])).map { shelf in
                    shelf.name + ": " + shelf.volumes.map { "\($0.title) \($0.press?.name ?? "-") \($0.labels.map(\.name))" }
                        .joined(separator: "; ")
                }
                let labels = try context.fetch(FetchRequest<Sticker>(sortBy: [SortDescriptor(\.name)])).map { label in
                    label.name + ": " + label.volumes.map(\.title).joined(separator: ", ")
                }
                return shelves + labels
            }
        }
        let expected = try await describe(source)
        #expect(try await describe(target) == expected)
        #expect(expected.first?.hasPrefix("shelf 0: 0.3 - [") == true, "volumes in the order given, not by key")
        #expect(try StoreCheck(url: target).problems.isEmpty)
    }

    @Test(arguments: StoreExport.Format.allCases)
    func aStoreWithAFoldedIndexExportsImportsAndChecks(_ format: StoreExport.Format) async throws {
        let directory = TemporaryDirectory()
        let schema = Schema(Place.self)
        let source = try await Self.store(schema, in: directory, name: "Places") { context in
            for name in ["Zürich", "zurich", "Ålesund", "Oslo"] { context.insert(Place(name: name, population: name.count)) }
        }
        #expect(try StoreCheck(url: source).problems.isEmpty, "the integrity check computes the folded index")
        let target = try await Self.store(schema, in: directory, name: "Restored")
        let exported = directory.file(format == .json ? "places.json" : "places-csv")
        try StoreExport.export(storeAt: source, as: format, to: exported)
        try StoreImport.import(from: exported, as: format, into: target)
        #expect(try StoreCheck(url: target).problems.isEmpty)
        let container = try await Self.container(target, schema: schema)
        let names = try container.perform { context in
            try context.fetch(FetchRequest<Place>(predicate: #Predicate { $0.name.folded == "zurich" }, sortBy: [SortDescriptor(\.name)]))
                .map(\.name)
        }
        #expect(names == ["Zürich", "zurich"].sorted())
        let refused = #expect(throws: StrataError.self) { try StoreExport.export(storeAt: source, as: .json, to: source) }
        #expect(refused?.code == .invalidStoreLocation, "an export never overwrites its store")
    }

    @Test func anImportThatCannotBeDoneWritesNothing() async throws {
        let directory = TemporaryDirectory()
        let source = try await Self.store(librarySchema, in: directory, name: "Library") { context in
            let author = Author(email: "u@example.com", name: "Le Guin")
            context.insert(author)
            for year in [1968, 1971] { Book(title: "\(year)", year: year).author = author }
        }
        let exported = directory.file("library.json")
        try StoreExport.export(storeAt: source, as: .json, to: exported)

        // A store that already has rows.
        let full = #expect(throws: StrataError.self) { try StoreImport.import(from: exported, as: .json, into: source) }
        #expect(full?.code == .importFailed)
        #expect(try StoreReport(url: source).entities.map(\.rowCount) == [1, 2])

        // A store of another schema.
        let other = try await Self.store(Schema(Sample.self), in: directory, name: "Other")
        let mismatch = #expect(throws: StrataError.self) { try StoreImport.import(from: exported, as: .json, into: other) }
        #expect(mismatch?.code == .incompatibleStore)

        // A value that is not of its type, a required value missing, a member that does not exist.
        let empty = try await Self.store(librarySchema, in: directory, name: "Empty")
        let text = try String(contentsOf: exported, encoding: .utf8)
        for (damage, code) in [
            (text.replacingOccurrences(of: "\"year\": 1968", with: "\"year\": \"soon\""), StrataError.Code.valueConversion),
            (text.replacingOccurrences(of: "\"year\": 1968", with: "\"year\": null"), .importFailed),
            (text.replacingOccurrences(of: "\"books\": [1, 2]", with: "\"books\": [1, 2, 99]"), .importFailed),
            ("{\"format\": \"something else\"}", .importFailed),
        ] {
            #expect(damage != text)
            let damaged = directory.file("damaged.json")
            try damage.write(to: damaged, atomically: true, encoding: .utf8)
            let error = #expect(throws: StrataError.self) { try StoreImport.import(from: damaged, as: .json, into: empty) }
            #expect(error?.code == code, "\(error?.message ?? "")")
            #expect(try StoreReport(url: empty).entities.map(\.rowCount) == [0, 0], "nothing was written")
        }
        try StoreImport.import(from: exported, as: .json, into: empty)
        #expect(try StoreReport(url: empty).entities.map(\.rowCount) == [1, 2])
    }

    @Test func aFileThatIsNoStoreIsRefusedAndLeftAlone() throws {
        let directory = TemporaryDirectory()
        let text = directory.file("Notes.sqlite")
        try Data(String(repeating: "not a database ", count: 10).utf8).write(to: text)
        let before = try Data(contentsOf: text)
        let export = #expect(throws: StrataError.self) {
            try StoreExport.export(storeAt: text, as: .json, to: directory.file("out.json"))
        }
        #expect(export?.code == .corruptStore)
        let fetch = #expect(throws: StrataError.self) { try StoreRows(url: text, entity: "Book") }
        #expect(fetch?.code == .corruptStore)
        #expect(try Data(contentsOf: text) == before)
    }
}
