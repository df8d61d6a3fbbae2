@testable import StrataCore
import StrataTestModels
import Testing

@Suite("Context footprint")
struct ContextFootprintTests {
    /// A context remembers which permanent key each object it inserted got,
    /// so its child contexts can follow; `reset()` forgets everything,
    /// that mapping included, so a long-lived context can shed it.
    @Test func resetForgetsTheKeysOfObjectsItSaved() async throws {
        let container = try PersistentContainer(name: "Footprint", schema: librarySchema)
        container.storeDescriptions = [.inMemory()]
        try await container.loadPersistentStores()
        try container.perform { context throws in
            for index in 0..<100 { context.insert(Book(title: "\(index)", year: index)) }
            try context.save()
            #expect(context.permanentKeysByTemporaryKey.count == 100)
            context.reset()
            #expect(context.permanentKeysByTemporaryKey.isEmpty)
            #expect(try context.count(for: FetchRequest<Book>()) == 100)
        }
    }
}
