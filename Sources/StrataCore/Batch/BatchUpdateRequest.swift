import Foundation

/// Sets attributes of every row that matches a predicate, in the store,
/// without fetching objects — Core Data's `NSBatchUpdateRequest`.
///
/// ```swift
/// var request = BatchUpdateRequest<Book>(predicate: #Predicate { $0.year < 1900 })
/// request.set(\.rating, to: 5.0)                  // typed
/// request.propertiesToUpdate["title"] = "Classic"  // or by name
/// let result = try container.execute(request)
/// result.count   // rows updated
/// ```
///
/// Executing it runs one `UPDATE` in one write transaction. Each matched row's
/// version goes up by one, so a context that read one of these objects before
/// and saves a change to it afterwards meets a `.mergeConflict` (see
/// <doc:MergePolicies>) unless it merged the result first. Values convert like
/// batch-insert values; a `nil` for a required attribute, an unknown name or a
/// relationship throws `.validation`, a duplicate unique value
/// `.uniquenessConflict`, and nothing is written.
///
/// > Important: Only attributes can be set (not relationships), and validation
/// > hooks (`validateForUpdate`) and lifecycle hooks (`willSave`) are not run.
public struct BatchUpdateRequest<Model: PersistentModel>: Sendable {
    /// The rows to update; nil updates every row.
    public var predicate: Predicate<Model>?
    /// New values, by attribute name.
    public var propertiesToUpdate: [String: any Sendable]
    /// Whether the result lists the updated IDs or only counts them.
    public var resultType: BatchResultType
    /// Whether ``set(_:to:)`` was given a key path that is not a persistent property.
    var invalidKeyPath = false

    public init(
        predicate: Predicate<Model>? = nil, propertiesToUpdate: [String: any Sendable] = [:],
        resultType: BatchResultType = .count
    ) {
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
        self.resultType = resultType
    }

    /// Sets an attribute named by key path to a new value.
    public mutating func set<Value: Sendable>(_ keyPath: KeyPath<Model, Value>, to value: Value) {
        guard let property = Model.schemaProperties.first(where: { $0.keyPath == keyPath }) else {
            invalidKeyPath = true
            return
        }
        propertiesToUpdate[property.name] = value
    }
}
