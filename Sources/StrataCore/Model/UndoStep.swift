/// One change a context can take back: what a property or relationship slot
/// held before, or an object that came or went. Steps are recorded as changes
/// happen (inverses and delete rules included, each as its own step) and are
/// reverted in reverse order, each revert recording the step that takes it
/// back again (see `ContextUndoManager`).
///
/// ```swift
/// // book.title = "New" records:
/// UndoStep.value(book, ordinal: 0, .text("Old"))
/// ```
package enum UndoStep {
    /// An attribute held this stored value.
    case value(any PersistentModel, ordinal: Int, StoredValue)
    /// A relationship slot held this (and its column this foreign key).
    case relation(any PersistentModel, ordinal: Int, RelationSlot, StoredValue)
    /// A member was appended to a loaded to-many (reverting removes it): a
    /// step of constant size, where `relation` would keep the whole list.
    case appended(any PersistentModel, ordinal: Int, member: any PersistentModel)
    /// The object came into the context (reverting removes it).
    case insertion(any PersistentModel)
    /// The object left the context, with its relationships as they were
    /// (reverting puts it back).
    case removal(any PersistentModel, relations: ContiguousArray<RelationSlot>)
}

extension ModelBacking {
    /// Records a step for the context's undo manager, when it has one.
    @inline(__always)
    func recordUndo(_ step: @autoclosure () -> UndoStep) {
        guard let token = contextToken, token.recordsUndo else { return }
        token.coordinator?.recordUndo(step())
    }

    /// Whether changes made through this object are recorded for undo.
    var recordsUndo: Bool { contextToken?.recordsUndo == true }
}
