/// How a context's objects reach it without a weak reference each.
///
/// Every object of a context holds this one small object strongly (a plain
/// retain, no weak side-table entry per object); the context clears it in
/// `deinit`, so objects that outlive their context see no coordinator.
///
/// ```swift
/// let token = ContextToken()
/// token.bind(context)                  // once, as the context is made
/// backing.contextToken = token         // each object joining the context
/// backing.contextToken?.coordinator    // the context, or nil once it is gone
/// ```
package final class ContextToken {
    // Read for every object a context makes and every property it sets; only
    // the context's isolation domain touches them, never two accesses at once,
    // so they are not checked for exclusivity at run time.
    @exclusivity(unchecked) private unowned(unsafe) var target: (any ObjectGraphCoordinator)?
    /// Whether reads of the context's objects register with Observation
    /// (copied to each object as it joins the context).
    @exclusivity(unchecked) package var observesReads = false
    /// Whether the context lists property changes for its next change event.
    @exclusivity(unchecked) package var recordsChanges = false
    /// Whether the context records changes for undo.
    @exclusivity(unchecked) package var recordsUndo = false
    /// Whether one of the context's objects was ever invalidated (deleted and
    /// saved, or reset): until then, loaded to-many members need no check.
    @exclusivity(unchecked) package var hasInvalidatedObjects = false
    /// The object whose `awakeFromFetch()` last ran the empty default while
    /// the context was asking (see ``awakesFromFetch(_:)``).
    @exclusivity(unchecked) private var defaultAwakeObject: ObjectIdentifier?

    package init() {}

    /// The context, or nil once it is gone.
    package var coordinator: (any ObjectGraphCoordinator)? { target }

    /// Binds the token to its context (once, when the context is created).
    package func bind(_ coordinator: any ObjectGraphCoordinator) { target = coordinator }

    /// Called from the context's `deinit`: its objects no longer reach it.
    package func invalidate() { target = nil }

    /// Calls `object.awakeFromFetch()` and answers whether the model type
    /// has a hook of its own; when it keeps the empty default, calling it on
    /// the other objects of the type can be skipped (a call on each object of
    /// a large fetch costs a retain and a release).
    package func awakesFromFetch(_ object: any PersistentModel) -> Bool {
        defaultAwakeObject = nil
        object.awakeFromFetch()
        // A hook of its own that calls another object's default names that object.
        return defaultAwakeObject != ObjectIdentifier(object)
    }

    func defaultAwakeFromFetchRan(for object: ObjectIdentifier) {
        defaultAwakeObject = object
    }
}

/// The `awakeFromFetch()` calls of one read, whose objects are of one type:
/// the first object's call tells whether the type has a hook of its own
/// (``ContextToken/awakesFromFetch(_:)``); without one, the rest are skipped.
///
/// ```swift
/// var hooks = FetchHooks(token: context.contextToken)
/// for object in loaded {
///     guard hooks.awake(object) else { break }
/// }
/// ```
package struct FetchHooks {
    private let token: ContextToken
    private var hasHook: Bool?

    package init(token: ContextToken) {
        self.token = token
    }

    /// Calls the object's hook; false once it is known that the type keeps
    /// the empty default, when the caller can stop.
    package mutating func awake(_ object: any PersistentModel) -> Bool {
        guard let known = hasHook else {
            let asked = token.awakesFromFetch(object)
            hasHook = asked
            return asked
        }
        if known { object.awakeFromFetch() }
        return known
    }
}
