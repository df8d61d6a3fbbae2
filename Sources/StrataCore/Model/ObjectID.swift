import Foundation
import Synchronization

/// The identity of a managed object: `Sendable`, hashable and URI-representable.
///
/// An object's ID is temporary from `insert` until its first successful save, and
/// permanent afterwards. Pass IDs — not objects — between isolation domains, and
/// turn them back into objects with `context.existingObject(with:as:)`.
///
/// ```swift
/// let id = try await container.performBackgroundTask { context in
///     let book = Book(title: "Dune", year: 1965)
///     context.insert(book)
///     try context.save()
///     return book.objectID
/// }
/// let url = id.uriRepresentation()   // strata://<store UUID>/Book/p1
/// ```
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    enum Key: Hashable, Sendable {
        case permanent(Int64)
        case temporary(UInt64)
    }

    // Unretained: spaces live as long as the process (see `ObjectIDSpace`),
    // so copying, comparing and hashing an ID counts no references.
    unowned(unsafe) let space: ObjectIDSpace
    let key: Key

    /// The entity of the object.
    public var entityName: String { space.entityName }
    /// The identifier of the store holding the object (empty while temporary).
    public var storeIdentifier: String { space.storeIdentifier }

    package init(space: ObjectIDSpace, primaryKey: Int64) {
        self.space = space
        self.key = .permanent(primaryKey)
    }

    package init(space: ObjectIDSpace, temporaryKey: UInt64) {
        self.space = space
        self.key = .temporary(temporaryKey)
    }

    /// An ID by names; code that makes many IDs of one store finds the space
    /// once instead (``ObjectIDSpaces``).
    package init(entityName: String, storeIdentifier: String, primaryKey: Int64) {
        self.init(space: .named(entity: entityName, store: storeIdentifier), primaryKey: primaryKey)
    }

    package init(entityName: String, temporaryKey: UInt64) {
        self.init(space: .named(entity: entityName, store: ""), temporaryKey: temporaryKey)
    }

    private static let nextTemporaryKey = Atomic<UInt64>(1)

    /// A new temporary ID of an entity, unique in the process.
    package static func makeTemporary(in space: ObjectIDSpace) -> ObjectID {
        ObjectID(space: space, temporaryKey: nextTemporaryKey.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    /// An object not given its ID yet.
    package static var unassigned: ObjectID { ObjectID(space: .unassigned, temporaryKey: 0) }

    // One space per pair of names: the same space is the same entity and store.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.space === rhs.space && lhs.key == rhs.key
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(space))
        hasher.combine(key)
    }

    /// Whether the object has not been saved yet.
    public var isTemporary: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The row's primary key, once the ID is permanent.
    public var primaryKey: Int64? {
        if case .permanent(let pk) = key { return pk }
        return nil
    }

    package var temporaryKey: UInt64? {
        if case .temporary(let key) = key { return key }
        return nil
    }

    /// The URI scheme of object IDs.
    public static let uriScheme = "strata"

    /// Whether a store identifier can name a store in object URIs: what
    /// Strata makes (a UUID's string) and other plain names of letters,
    /// digits, `-`, `_` and `.`. A store whose recorded identifier is not one
    /// (another program wrote it) is refused when it opens.
    package static func isUsableStoreIdentifier(_ identifier: String) -> Bool {
        !identifier.isEmpty && identifier.utf8.count <= 128 && identifier.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x5F || byte == 0x2E
        }
    }

    /// A URL that names this object; permanent IDs can be read back with
    /// `PersistentContainer.objectID(forURIRepresentation:)`.
    public func uriRepresentation() -> URL {
        var components = URLComponents()
        components.scheme = Self.uriScheme
        switch key {
        case .permanent(let pk):
            components.host = storeIdentifier
            components.path = "/\(entityName)/p\(pk)"
        case .temporary(let key):
            components.host = ""
            components.path = "/\(entityName)/t\(key)"
        }
        // Stores are opened only with usable identifiers, and the path is
        // percent-encoded, so this holds; the fallback names no object.
        return components.url ?? URL(fileURLWithPath: "/")
    }

    /// Parses a permanent object URI into its parts, or nil.
    package static func parse(uri: URL) -> (store: String, entity: String, primaryKey: Int64)? {
        guard uri.scheme == uriScheme, let store = uri.host, !store.isEmpty else { return nil }
        let parts = uri.path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[1].first == "p", let pk = Int64(parts[1].dropFirst()), pk > 0 else {
            return nil
        }
        return (store, String(parts[0]), pk)
    }

    public var description: String {
        switch key {
        case .permanent(let pk): "\(entityName)/p\(pk)"
        case .temporary(let key): "\(entityName)/t\(key)"
        }
    }
}

extension ObjectID: Codable {
    private enum CodingKeys: String, CodingKey { case uri }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let uri = try container.decode(URL.self, forKey: .uri)
        guard let parts = ObjectID.parse(uri: uri) else {
            throw DecodingError.dataCorruptedError(
                forKey: .uri, in: container, debugDescription: "Not a permanent Strata object URI")
        }
        self.init(entityName: parts.entity, storeIdentifier: parts.store, primaryKey: parts.primaryKey)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uriRepresentation(), forKey: .uri)
    }
}
