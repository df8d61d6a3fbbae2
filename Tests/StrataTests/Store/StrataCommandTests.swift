import Foundation
import Strata
import StrataTestModels
import Testing

private func strata(_ arguments: String..., in directory: URL) throws -> ProgramRun {
    try run("strata", arguments, in: directory)
}

/// Every subcommand on the demo's store, and on a file that is not a store.
@Suite("The strata command")
struct StrataCommandTests {
    @Test func everySubcommandWorksOnTheDemoStore() async throws {
        let directory = TemporaryDirectory()
        let demo = try strata("demo", "--directory", directory.url.path, in: directory.url)
        #expect(demo.status == 0, "\(demo.errors)")
        let store = directory.file("StrataDemo.sqlite").path

        let inspect = try strata("inspect", store, in: directory.url)
        #expect(inspect.status == 0 && inspect.output.contains("Book: 8 rows"))
        let fetch = try strata("fetch", store, "Book", "--where", "year < 1970", "--sort", "year desc", "--limit", "2", in: directory.url)
        #expect(fetch.status == 0)
        #expect(fetch.output.contains("The Left Hand of Darkness") && fetch.output.contains("2 rows of Book"), "\(fetch.output)")
        let json = try strata("fetch", store, "Author", "--json", in: directory.url)
        let authors = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]]
        #expect(authors?.count == 3)
        #expect(try strata("check", store, in: directory.url).status == 0)
        let history = try strata("history", store, in: directory.url)
        #expect(history.status == 0 && history.output.contains("insert Book"), "the demo keeps history: \(history.errors)")

        // Out as JSON and CSV, and back into an empty store of the same schema.
        #expect(try strata("export", store, "--to", "json", "-o", "demo.json", in: directory.url).status == 0)
        #expect(try strata("export", store, "--to", "csv", in: directory.url).status == 0)
        #expect(FileManager.default.fileExists(atPath: directory.file("StrataDemo-csv/Book.csv").path))
        for source in ["demo.json", "StrataDemo-csv"] {
            let target = directory.file("Copy-\(source).sqlite")
            let container = try PersistentContainer(name: "Copy", schema: librarySchema)
            container.storeDescriptions = [StoreDescription(url: target)]
            try await container.loadPersistentStores()
            try container.persistentStoreCoordinator.close()
            let imported = try strata("import", target.path, source, in: directory.url)
            #expect(imported.status == 0, "\(imported.errors)")
            #expect(try StoreReport(url: target).entities.map(\.rowCount) == [3, 8])
            let again = try strata("import", target.path, source, in: directory.url)
            #expect(again.status == 1 && again.errors.contains("already has"))
        }

        // A preview against the schema the export records, with one attribute more.
        let export = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: directory.file("demo.json"))) as? [String: Any])
        let schemaFile = directory.file("app-schema.json")
        try JSONSerialization.data(withJSONObject: try #require(export["schema"])).write(to: schemaFile)
        let unchanged = try strata("migrate", store, "--dry-run", "--schema", schemaFile.path, in: directory.url)
        #expect(unchanged.status == 0 && unchanged.output.contains("already at this schema"), "\(unchanged.output)\(unchanged.errors)")
        var schema = try JSONDecoder().decode(SchemaSummary.self, from: Data(contentsOf: schemaFile))
        schema.entities[1].properties.append(.attribute(AttributeDescription(name: "isbn", type: .string, isOptional: true)))
        try JSONEncoder().encode(schema).write(to: schemaFile)
        let preview = try strata("migrate", store, "--dry-run", "--schema", schemaFile.path, in: directory.url)
        #expect(preview.status == 0 && preview.output.contains("Book.isbn is new"), "\(preview.output)\(preview.errors)")
        #expect(try StoreReport(url: URL(fileURLWithPath: store)).entities[1].summary.properties.count == 4, "a preview changes nothing")

        // Without --dry-run it migrates, after copying the store beside it.
        let migrated = try strata("migrate", store, "--schema", schemaFile.path, in: directory.url)
        #expect(migrated.status == 0 && migrated.output.contains("migrated in one transaction"), "\(migrated.output)\(migrated.errors)")
        let after = try StoreReport(url: URL(fileURLWithPath: store))
        #expect(after.fingerprint == schema.fingerprint)
        #expect(after.entities.map(\.rowCount) == [3, 8])
        let backup = try StoreReport(url: directory.file("StrataDemo.backup.sqlite"))
        #expect(backup.fingerprint != schema.fingerprint && backup.entities.map(\.rowCount) == [3, 8])
        let again = try strata("migrate", store, "--schema", schemaFile.path, in: directory.url)
        #expect(again.status == 0 && again.output.contains("already at this schema"), "\(again.output)\(again.errors)")

        // A new required attribute needs the app's default, which a schema file does not carry:
        // refused before anything is copied or changed.
        var required = schema
        required.entities[1].properties.append(.attribute(AttributeDescription(name: "pages", type: .int, isOptional: false)))
        try JSONEncoder().encode(required).write(to: directory.file("required.json"))
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let refused = try strata("migrate", store, "--schema", "required.json", "--backup", "refused.sqlite", in: directory.url)
        #expect(refused.status == 1 && refused.errorLines.count == 1 && refused.errors.contains("Book.pages"), "\(refused.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.file("refused.sqlite").path))

        // `strata schema` writes what `migrate --schema` reads; an export is read as it is.
        #expect(try strata("schema", store, "-o", "recorded.json", in: directory.url).status == 0)
        let recorded = try JSONDecoder().decode(SchemaSummary.self, from: Data(contentsOf: directory.file("recorded.json")))
        #expect(recorded.fingerprint == schema.fingerprint)
        let fromExport = try strata("migrate", store, "--dry-run", "--schema", "demo.json", in: directory.url)
        #expect(fromExport.output.contains("isbn") && fromExport.errors.isEmpty, "the export's schema has no isbn: \(fromExport.output)\(fromExport.errors)")
    }

    @Test func everySubcommandRefusesADamagedFileAndLeavesIt() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("Damaged.sqlite")
        try Data(String(repeating: "this is not a database ", count: 20).utf8).write(to: file)
        let before = try Data(contentsOf: file)
        try Data("{\"entities\": []}".utf8).write(to: directory.file("schema.json"))
        try Data("{}".utf8).write(to: directory.file("export.json"))
        for arguments in [
            ["inspect", file.path], ["fetch", file.path, "Book"], ["history", file.path], ["check", file.path],
            ["export", file.path, "--to", "json"], ["import", file.path, "export.json"],
            ["migrate", file.path, "--dry-run", "--schema", "schema.json"], ["migrate", file.path, "--schema", "schema.json"],
        ] {
            let failed = try run("strata", arguments, in: directory.url)
            #expect(failed.status == 1, "\(arguments[0])")
            #expect(failed.errors.hasPrefix("strata: ") && failed.errorLines.count == 1, "\(arguments[0]): \(failed.errors)")
        }
        #expect(try Data(contentsOf: file) == before)
    }
}
