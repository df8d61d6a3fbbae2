import Observation

// Observation of model objects. Reads register with an object's
// `ObservationRegistrar` only in contexts that observe reads (the view context
// by default; the flag is copied to each object, beside `isFault`): a registrar costs two allocations and each registered read a
// call into the Observation runtime, which unobserved contexts should not pay.
// Every change a context makes or takes in (a set, an inverse kept in step, a
// merge, a refresh, a rollback) notifies the object's registrar when it has one.

extension ModelBacking {
    /// Registers a read of the property at `ordinal` with Observation.
    @usableFromInline package func observeRead<Model: PersistentModel>(of object: Model, at ordinal: Int) {
        let box: ObservationBox
        if let existing = observation {
            box = existing
        } else {
            box = ObservationBox()
            observation = box
        }
        box.registrar.access(object, anyKeyPath: keyPath(at: ordinal))
    }

    /// Tells Observation that properties of `object` changed.
    package func notifyObservers(of object: any PersistentModel, ordinals: some Sequence<Int>) {
        guard let registrar = observation?.registrar else { return }
        func notify<Model: PersistentModel>(_ subject: Model) {
            for ordinal in ordinals {
                let keyPath = keyPath(at: ordinal)
                registrar.willSet(subject, anyKeyPath: keyPath)
                registrar.didSet(subject, anyKeyPath: keyPath)
            }
        }
        notify(object)
    }

    /// Tells Observation that any property of `object` may have changed.
    package func notifyObserversOfEveryProperty(of object: any PersistentModel) {
        guard observation != nil else { return }
        notifyObservers(of: object, ordinals: 0..<valueCount)
    }

    /// Records a local change for the context's next change event and tells observers.
    package func propertyDidChange(at ordinal: Int, owner: any PersistentModel) {
        if let token = contextToken, token.recordsChanges { token.coordinator?.recordPropertyChange(of: owner, at: ordinal) }
        if observation != nil { notifyObservers(of: owner, ordinals: CollectionOfOne(ordinal)) }
    }

    private func keyPath(at ordinal: Int) -> AnyKeyPath {
        modelType.schemaProperties[ordinal].keyPath
    }
}

/// An object's `ObservationRegistrar`, made on its first observed read.
///
/// Boxed so that a backing's field is a plain optional reference: the
/// registrar's own layout is resilient, so an optional of it in every
/// backing was set up and destroyed through value witnesses, observed or not.
package final class ObservationBox {
    let registrar = ObservationRegistrar()
}

extension ObservationRegistrar {
    // Observation takes typed key paths; a model's metadata keeps them erased.
    // Each opens the key path's value type to call the typed form.

    func access<Subject: Observable>(_ subject: Subject, anyKeyPath: AnyKeyPath) {
        func open<Member>(_: Member.Type) {
            if let keyPath = anyKeyPath as? KeyPath<Subject, Member> { access(subject, keyPath: keyPath) }
        }
        _openExistential(type(of: anyKeyPath).valueType, do: open)
    }

    func willSet<Subject: Observable>(_ subject: Subject, anyKeyPath: AnyKeyPath) {
        func open<Member>(_: Member.Type) {
            if let keyPath = anyKeyPath as? KeyPath<Subject, Member> { willSet(subject, keyPath: keyPath) }
        }
        _openExistential(type(of: anyKeyPath).valueType, do: open)
    }

    func didSet<Subject: Observable>(_ subject: Subject, anyKeyPath: AnyKeyPath) {
        func open<Member>(_: Member.Type) {
            if let keyPath = anyKeyPath as? KeyPath<Subject, Member> { didSet(subject, keyPath: keyPath) }
        }
        _openExistential(type(of: anyKeyPath).valueType, do: open)
    }
}
