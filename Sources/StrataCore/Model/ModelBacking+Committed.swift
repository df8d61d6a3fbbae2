// The values an object had when it was last read from or written to the
// store. They are kept sparsely: `values` is the whole row as it is now, and
// `originals` holds the earlier value of each property changed since, so an
// unchanged object keeps one set of values and a first change copies nothing.

extension ModelBacking {
    /// Values as last read from or written to the store: `values`, with the
    /// original value of every changed property.
    ///
    /// Setting it records the originals against the current `values`, so set it
    /// after the current values are in place (or use the single-property
    /// methods below).
    package var committed: ContiguousArray<StoredValue> {
        get {
            var committed = ContiguousArray(values)
            for original in originals where original.ordinal < committed.count {
                committed[original.ordinal] = original.value
            }
            return committed
        }
        nonmutating set {
            originals = []
            for ordinal in newValue.indices where ordinal < values.count && newValue[ordinal] != values[ordinal] {
                originals.append((ordinal, newValue[ordinal]))
            }
        }
    }

    /// The committed value of one property.
    package func committedValue(at ordinal: Int) -> StoredValue {
        for original in originals where original.ordinal == ordinal { return original.value }
        return values[ordinal]
    }

    /// Keeps the committed value of a property about to change, the first time
    /// it changes since the object was read or saved. Objects not saved yet
    /// have no committed values.
    package func keepOriginal(at ordinal: Int) {
        guard state == .registered || state == .deleted else { return }
        for original in originals where original.ordinal == ordinal { return }
        originals.append((ordinal, values[ordinal]))
    }

    /// Writes a changed value: keeps the committed one, then records the change.
    @usableFromInline package func change(to value: StoredValue, at ordinal: Int, owner: any PersistentModel) {
        recordUndo(.value(owner, ordinal: ordinal, values[ordinal]))
        keepOriginal(at: ordinal)
        values[ordinal] = value
        noteChange(at: ordinal, owner: owner)
    }

    /// Sets the committed value of one property, leaving its current value.
    package func setCommittedValue(_ value: StoredValue, at ordinal: Int) {
        if let index = originals.firstIndex(where: { $0.ordinal == ordinal }) {
            originals[index].value = value
        } else if values[ordinal] != value {
            originals.append((ordinal, value))
        }
    }

    /// Sets both the current and the committed value of one property (a save
    /// merged from elsewhere, a refresh).
    package func setCurrentAndCommittedValue(_ value: StoredValue, at ordinal: Int) {
        values[ordinal] = value
        if !originals.isEmpty { originals.removeAll { $0.ordinal == ordinal } }
    }

    /// The current values become the committed ones (after a save).
    package func commitValues() {
        if !originals.isEmpty { originals = [] }
    }

    /// Takes back every change since the object was read or saved.
    package func revertToCommitted() {
        for original in originals where original.ordinal < values.count {
            values[original.ordinal] = original.value
        }
        originals = []
    }
}
