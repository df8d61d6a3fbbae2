import Foundation
import Strata
import Testing

/// A note whose title outlives it in history tombstones.
@Model final class Memo {
    @Attribute(.preserveValueOnDeletion) var title: String
    var body: String
    var words: Int

    init(title: String, body: String = "", words: Int = 0) {
        self.title = title
        self.body = body
        self.words = words
    }
}

let historySchema = Schema(Author.self, Book.self, Memo.self)

extension TestStack {
    /// A loaded container with history tracking on (and, when asked, old and
    /// new values recorded).
    init(history kind: StoreKind, schema: Schema = historySchema, recordsValueChanges: Bool = false) async throws {
        try await self.init(kind, schema: schema, name: "History") { description in
            description.historyTracking = true
            description.historyRecordsValueChanges = recordsValueChanges
        }
    }
}

/// Saves in a fresh context with the given author and name.
@discardableResult
func save<T>(
    in container: PersistentContainer, author: String? = nil, name: String? = nil,
    _ body: (ManagedObjectContext) throws -> T
) throws -> T {
    let context = container.newContext()
    context.transactionAuthor = author
    context.name = name
    let result = try body(context)
    try context.save()
    return result
}

extension HistoryTransaction {
    /// The change to one object, if the transaction has one.
    func change(for id: ObjectID) -> HistoryChange? {
        changes.first { $0.objectID == id }
    }
}
