/// How a context's save settles conflicts with the store: optimistic-locking
/// conflicts (an object changed or was deleted in the store since the context
/// read it) and uniqueness conflicts (a unique key already taken).
///
/// Set it per context; the default, ``error``, makes the save throw and keeps
/// the context's changes. See <doc:MergePolicies> for what each policy does.
///
/// ```swift
/// context.mergePolicy = .mergeByPropertyObjectTrump
/// try context.save()   // conflicting properties keep this context's values
///
/// // Decide per object:
/// context.mergePolicy = .custom { conflicts in
///     Dictionary(conflicts.map { ($0.objectID, $0.kind == .uniqueness ? .mergeByPropertyObjectTrump : .rollback) },
///                uniquingKeysWith: { first, _ in first })
/// }
/// ```
public struct MergePolicy: Sendable, CustomStringConvertible {
    private enum Rule: Sendable {
        case fixed(MergeResolution)
        case custom(@Sendable ([MergeConflict]) -> [ObjectID: MergeResolution])
    }

    private let rule: Rule

    private init(_ rule: Rule) {
        self.rule = rule
    }

    /// The save throws `.mergeConflict` or `.uniquenessConflict`; nothing is
    /// written and the context keeps its changes. The default.
    public static let error = MergePolicy(.fixed(.error))
    /// Properties changed both here and in the store take the store's value;
    /// this context's other changes are saved. A taken unique key keeps its stored row.
    public static let mergeByPropertyStoreTrump = MergePolicy(.fixed(.mergeByPropertyStoreTrump))
    /// Properties changed here keep this context's value; store changes to the
    /// others are kept. An inserted object whose unique key is taken updates that row.
    public static let mergeByPropertyObjectTrump = MergePolicy(.fixed(.mergeByPropertyObjectTrump))
    /// Every column of a conflicting object is written with this context's values.
    /// An inserted object whose unique key is taken updates that row.
    public static let overwrite = MergePolicy(.fixed(.overwrite))
    /// This context's changes to conflicting objects are dropped and the stored
    /// state kept, in memory too.
    public static let rollback = MergePolicy(.fixed(.rollback))

    /// Decides per object. `resolve` receives every conflict of one save attempt
    /// and returns a resolution per ``MergeConflict/objectID``; an object without
    /// one resolves as ``MergeResolution/error``, which fails the whole save.
    ///
    /// The closure runs synchronously inside `save()`, in the context's domain.
    public static func custom(
        _ resolve: @escaping @Sendable ([MergeConflict]) -> [ObjectID: MergeResolution]
    ) -> MergePolicy {
        MergePolicy(.custom(resolve))
    }

    /// The one resolution a fixed policy gives every conflict; nil for custom policies.
    package var fixedResolution: MergeResolution? {
        if case .fixed(let resolution) = rule { return resolution }
        return nil
    }

    /// The resolution for each conflict, in order.
    package func resolutions(for conflicts: [MergeConflict]) -> [MergeResolution] {
        switch rule {
        case .fixed(let resolution):
            return Array(repeating: resolution, count: conflicts.count)
        case .custom(let resolve):
            let chosen = resolve(conflicts)
            return conflicts.map { chosen[$0.objectID] ?? .error }
        }
    }

    public var description: String {
        switch rule {
        case .fixed(let resolution): "MergePolicy.\(resolution)"
        case .custom: "MergePolicy.custom"
        }
    }
}

/// What to do with one conflicting object; the outcomes of the fixed policies
/// of the same names (see <doc:MergePolicies>).
///
/// ```swift
/// let policy = MergePolicy.custom { conflicts in
///     [conflicts[0].objectID: .mergeByPropertyStoreTrump]
/// }
/// ```
public enum MergeResolution: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case error
    case mergeByPropertyStoreTrump
    case mergeByPropertyObjectTrump
    case overwrite
    case rollback

    public var description: String { rawValue }

    /// Whether this context's in-memory values win (object trump, overwrite).
    var objectWins: Bool { self == .mergeByPropertyObjectTrump || self == .overwrite }
}
