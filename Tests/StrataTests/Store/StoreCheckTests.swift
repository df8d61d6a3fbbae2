import Foundation
import GRDB
import Strata
import Testing

/// `strata check`: a sound store has no problem; damage another program made is named.
@Suite("Store checks")
struct StoreCheckTests {
    @Test
    func aSoundStoreHasNoProblemAndDamageIsNamed() async throws {
        let stack = try await TestStack(.file, schema: librarySchema, name: "Checked") { $0.historyTracking = true }
        try stack.container.perform { context in
            let author = Author(email: "u@example.com", name: "Le Guin")
            context.insert(author)
            Book(title: "Earthsea", year: 1968).author = author
        }
        try stack.container.persistentStoreCoordinator.close()
        let url = stack.directory.file("Checked.sqlite")
        #expect(try StoreCheck(url: url).problems.isEmpty)

        // Another program writes rows Strata never would.
        let queue = try DatabaseQueue(path: url.path)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "UPDATE \"Book\" SET \"author\" = 999")
            try db.execute(sql: "UPDATE \"Author\" SET _version = 0")
            try db.execute(sql: "UPDATE \"Book\" SET \"_order_author\" = 'first'")
        }
        try queue.close()
        let before = try Data(contentsOf: url)
        let problems = try StoreCheck(url: url).problems
        #expect(problems.contains { $0.contains("Book row") && $0.contains("does not exist") })
        #expect(problems.contains { $0.contains("Author has 1 rows whose version is not positive") })
        #expect(problems.contains("Author.books has 1 members whose position in their owner's order is not a whole number"))
        #expect(try Data(contentsOf: url) == before)
    }
}
