/// One version of an app's models, for migration: a version identifier and
/// the model types as they were in that version.
///
/// Declare each version's models nested in its own enum; an entity keeps its
/// name across versions (the class name), so `NotesV1.Note` and
/// `NotesV2.Note` are two versions of the entity `Note`.
///
/// ```swift
/// enum NotesV1: VersionedSchema {
///     static let versionIdentifier = Schema.Version(1, 0, 0)
///     static var models: [any PersistentModel.Type] { [Note.self] }
///     @Model final class Note { var title: String; init(title: String) { self.title = title } }
/// }
/// let schema = Schema(versionedSchema: NotesV1.self)
/// ```
public protocol VersionedSchema: SendableMetatype {
    /// The version these models are.
    static var versionIdentifier: Schema.Version { get }
    /// The model types of this version.
    static var models: [any PersistentModel.Type] { get }
}

extension Schema {
    /// A schema version: major, minor and patch numbers, ordered as numbers.
    ///
    /// ```swift
    /// Schema.Version(1, 2, 0) < Schema.Version(1, 10, 0)   // true
    /// ```
    public struct Version: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
        public var major: Int
        public var minor: Int
        public var patch: Int

        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        public var description: String { "\(major).\(minor).\(patch)" }

        /// Parses `"1.2.3"`.
        package init?(_ text: String) {
            let parts = text.split(separator: ".").compactMap { Int($0) }
            guard parts.count == 3 else { return nil }
            self.init(parts[0], parts[1], parts[2])
        }
    }

    /// The schema of a versioned schema's models, carrying its version.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }
}
