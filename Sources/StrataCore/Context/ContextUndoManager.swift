/// Undo and redo for one context, in the shape of Foundation's `UndoManager`
/// (which Linux's Foundation lacks): groups of changes, undone and redone
/// whole, at most ``levelsOfUndo`` of them kept.
///
/// A context records every insert, deletion, attribute change and
/// relationship change (the inverses it keeps in step and the objects its
/// delete rules reach included) while it has an undo manager
/// (``ManagedObjectContext/isUndoEnabled``). Changes go into the group opened
/// with ``beginUndoGrouping()``, else each top-level operation (one property
/// set, `insert`, `delete`) is a group of its own. Undoing after a save leaves
/// changes to save again, as in Core Data.
///
/// ```swift
/// let undo = try #require(context.undoManager)
/// undo.beginUndoGrouping()
/// book.title = "Dune Messiah"
/// book.year = 1969
/// undo.endUndoGrouping()
/// context.undo()              // both changes taken back
/// context.redo()              // and made again
/// ```
public final class ContextUndoManager {
    /// One undoable group: the steps that take it back, in the order recorded.
    struct Group {
        var steps: [UndoStep] = []
        var name = ""
    }

    /// How many groups are kept (0: no limit); the oldest go first.
    public var levelsOfUndo = 0 {
        didSet { trim() }
    }
    /// How deep explicit groups are nested.
    public private(set) var groupingLevel = 0
    /// Whether an undo is in progress (its changes are recorded for redo).
    public private(set) var isUndoing = false
    /// Whether a redo is in progress.
    public private(set) var isRedoing = false

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// The group being filled: an explicit group, one operation, or an undo's or redo's counterpart.
    private var open: Group?
    private var operationDepth = 0
    private weak var context: ManagedObjectContext?

    init(context: ManagedObjectContext) {
        self.context = context
    }

    /// Whether there is a group to undo.
    public var canUndo: Bool { !undoStack.isEmpty || !(open?.steps.isEmpty ?? true) }
    /// Whether there is a group to redo.
    public var canRedo: Bool { !redoStack.isEmpty }
    /// The name of the group an undo would take back.
    public var undoActionName: String { undoStack.last?.name ?? "" }
    /// The name of the group a redo would make again.
    public var redoActionName: String { redoStack.last?.name ?? "" }

    /// Opens a group; changes until the matching ``endUndoGrouping()`` undo together.
    public func beginUndoGrouping() {
        if groupingLevel == 0 { close() ; open = Group() }
        groupingLevel += 1
    }

    /// Closes the group ``beginUndoGrouping()`` opened.
    public func endUndoGrouping() {
        guard groupingLevel > 0 else { return }
        groupingLevel -= 1
        if groupingLevel == 0 { close() }
    }

    /// Names the group being recorded, or else the last one (for a menu's "Undo Rename").
    public func setActionName(_ name: String) {
        if open != nil { open?.name = name } else if !undoStack.isEmpty { undoStack[undoStack.count - 1].name = name }
    }

    /// Takes back the last group (closing an open one first).
    public func undo() {
        close()
        guard let group = undoStack.popLast() else { return }
        isUndoing = true
        open = Group(name: group.name)
        context?.revert(group.steps)
        let counterpart = open!
        open = nil
        isUndoing = false
        redoStack.append(counterpart)
    }

    /// Makes the last undone group again.
    public func redo() {
        guard let group = redoStack.popLast() else { return }
        isRedoing = true
        open = Group(name: group.name)
        context?.revert(group.steps)
        let counterpart = open!
        open = nil
        isRedoing = false
        undoStack.append(counterpart)
        trim()
    }

    /// Forgets every group (a rollback or a reset does this).
    public func removeAllActions() {
        undoStack = []
        redoStack = []
        open = groupingLevel > 0 ? Group() : nil
    }

    // MARK: - Recording

    func record(_ step: UndoStep) {
        if open == nil {
            // Outside any group or operation: a group of one.
            undoStack.append(Group(steps: [step]))
            redoStack = []
            trim()
            return
        }
        open!.steps.append(step)
    }

    func beginOperation() {
        guard !isUndoing, !isRedoing else { return }
        if operationDepth == 0, groupingLevel == 0 { open = Group() }
        operationDepth += 1
    }

    func endOperation() {
        guard !isUndoing, !isRedoing, operationDepth > 0 else { return }
        operationDepth -= 1
        if operationDepth == 0, groupingLevel == 0 { close() }
    }

    /// Closes the open group of new changes, keeping it when it holds any.
    private func close() {
        guard !isUndoing, !isRedoing, let group = open else { return }
        open = nil
        guard !group.steps.isEmpty else { return }
        undoStack.append(group)
        redoStack = []
        trim()
    }

    private func trim() {
        guard levelsOfUndo > 0, undoStack.count > levelsOfUndo else { return }
        undoStack.removeFirst(undoStack.count - levelsOfUndo)
    }
}
