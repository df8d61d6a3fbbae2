/// Options of a persistent attribute, given with `@Attribute(...)`.
///
/// ```swift
/// @Attribute(.unique) var email: String
/// @Attribute(.preserveValueOnDeletion) var title: String
/// ```
public struct AttributeOption: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The attribute's value is unique among all objects of the entity.
    public static let unique = AttributeOption(rawValue: "unique")
    /// The value is kept in history tombstones when the object is deleted.
    public static let preserveValueOnDeletion = AttributeOption(rawValue: "preserveValueOnDeletion")
    /// A hint that the value may be large; recorded in the schema.
    public static let externalStorage = AttributeOption(rawValue: "externalStorage")
}

/// What happens to related objects when an object is deleted.
///
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \Book.author) var books: [Book] = []
/// ```
public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
    /// Related objects lose their reference to the deleted object.
    case nullify
    /// Related objects are deleted too.
    case cascade
    /// The deletion fails while related objects exist.
    case deny
    /// Nothing is done to related objects.
    case noAction
}
