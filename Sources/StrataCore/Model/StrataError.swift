import Foundation

/// The one error type Strata throws.
///
/// Match on ``code``; read ``message`` for a sentence a person can act on. Bound
/// values stay out of messages.
///
/// ```swift
/// do {
///     try context.save()
/// } catch let error as StrataError where error.code == .validation {
///     print(error.message, error.objectIDs)
/// }
/// ```
public struct StrataError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes can be added without breaking matches.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The container's stores are not loaded yet (or failed to load).
        public static let storeNotLoaded = Code(rawValue: "storeNotLoaded")
        /// The store file is not a readable SQLite database.
        public static let corruptStore = Code(rawValue: "corruptStore")
        /// The store was written with a different schema.
        public static let incompatibleStore = Code(rawValue: "incompatibleStore")
        /// The schema itself is invalid (names, types, inverses).
        public static let invalidSchema = Code(rawValue: "invalidSchema")
        /// A predicate or sort cannot be translated to SQL.
        public static let unsupportedPredicate = Code(rawValue: "unsupportedPredicate")
        /// An object failed validation at save.
        public static let validation = Code(rawValue: "validation")
        /// A uniqueness constraint was violated.
        public static let uniquenessConflict = Code(rawValue: "uniquenessConflict")
        /// An optimistic-locking conflict.
        public static let mergeConflict = Code(rawValue: "mergeConflict")
        /// No object exists for an ID.
        public static let objectNotFound = Code(rawValue: "objectNotFound")
        /// A history token refers to pruned history.
        public static let historyTokenExpired = Code(rawValue: "historyTokenExpired")
        /// A migration step failed.
        public static let migrationFailed = Code(rawValue: "migrationFailed")
        /// A stored value could not be converted to the model's type.
        public static let valueConversion = Code(rawValue: "valueConversion")
        /// An import was refused: a malformed export, or a store that already has rows.
        public static let importFailed = Code(rawValue: "importFailed")
        /// A store's path cannot hold a store (a link to nowhere, say).
        public static let invalidStoreLocation = Code(rawValue: "invalidStoreLocation")
        /// A container name cannot name a store file.
        public static let invalidName = Code(rawValue: "invalidName")
        /// The store is read-only.
        public static let readOnlyStore = Code(rawValue: "readOnlyStore")
        /// SQLite reported an error.
        public static let sqlite = Code(rawValue: "sqlite")
        /// History was asked for, but the store was loaded without history tracking.
        public static let historyTrackingDisabled = Code(rawValue: "historyTrackingDisabled")
        /// A history token was used with a store other than the one that issued it.
        public static let invalidHistoryToken = Code(rawValue: "invalidHistoryToken")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence for people; it names entities and properties, never bound values.
    public var message: String
    /// The error that caused this one, if any.
    public var underlyingError: (any Error & Sendable)?
    /// The objects concerned, when the failure is about objects.
    public var objectIDs: [ObjectID]
    /// The entity concerned, when there is one.
    public var entityName: String?
    /// The property concerned, when there is one.
    public var propertyName: String?
    /// Further failures reported together with this one (for example every
    /// validation failure of one save).
    public var detailedErrors: [StrataError]
    /// The merge or uniqueness conflicts behind a `.mergeConflict` or `.uniquenessConflict`
    /// error, with the stored and in-memory values (kept out of ``message``).
    public var conflicts: [MergeConflict] = []

    public init(
        _ code: Code,
        _ message: String,
        entityName: String? = nil,
        propertyName: String? = nil,
        objectIDs: [ObjectID] = [],
        underlyingError: (any Error & Sendable)? = nil,
        detailedErrors: [StrataError] = []
    ) {
        self.code = code
        self.message = message
        self.entityName = entityName
        self.propertyName = propertyName
        self.objectIDs = objectIDs
        self.underlyingError = underlyingError
        self.detailedErrors = detailedErrors
    }

    public var description: String {
        var text = "StrataError.\(code): \(message)"
        if let underlyingError { text += " (\(underlyingError))" }
        return text
    }
}

extension StrataError: LocalizedError {
    public var errorDescription: String? { description }
}

extension StrataError {
    /// A key sequence another program or an import left with no room: no new
    /// key after `current` (when known) fits in 64 bits, or it is negative.
    package static func keysExhausted(entity: String, at current: Int64?) -> StrataError {
        let position = current.map { " stands at \($0), which" } ?? ""
        return StrataError(
            .corruptStore,
            "The store's key sequence for \(entity)\(position) leaves no room for new keys; nothing was saved",
            entityName: entity)
    }
}
