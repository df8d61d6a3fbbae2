import Foundation

// The order of `[SortDescriptor<T>]`.
//
// Orders match Swift's for numbers, dates, UUIDs and strings compared by code
// point. Optional keys sort `nil` first ascending and last descending (NULL is
// the smallest stored value), as `SortDescriptor` does on optionals.
//
// String keys get an explicit collation:
// - no string comparator (what `SortDescriptor(\.title)` gives on Linux, where it
//   uses `String.<`) or `.lexical`: binary, code-point order;
// - any other comparator (`.localizedStandard`, the default on Apple platforms,
//   and `.localized`): by folded text (case and diacritics ignored, see
//   `TextFolding`), which does not sort digits numerically or follow the locale.
// A key path through `String.folded` (`\Book.title.folded`) sorts by folded text
// on every platform.
// Raw-value enums sort by their raw value (not by their `Comparable` order),
// decimals numerically. Values stored as JSON have no meaningful order and are
// refused.

extension PredicateCompiler {
    /// The order as terms every store applies; empty for no descriptors.
    ///
    /// Keys may be attributes of the entity or attributes reached through to-one
    /// relationships (`\Book.author?.name`).
    package func compileSort<T: PersistentModel>(_ sort: [SortDescriptor<T>]) throws(StrataError) -> [SortTerm] {
        try compileSortKeys(sort).terms
    }

    /// The order of a request as keys an in-memory sort of objects applies the
    /// way stores do.
    package func sortKeys<T: PersistentModel>(_ sort: [SortDescriptor<T>]) throws(StrataError) -> [SortKey] {
        try compileSortKeys(sort).keys
    }

    private func compileSortKeys<T: PersistentModel>(
        _ sort: [SortDescriptor<T>]
    ) throws(StrataError) -> (terms: [SortTerm], keys: [SortKey]) {
        guard !sort.isEmpty else { return ([], []) }
        try checkModelType(T.self)
        var terms: [SortTerm] = []
        var keys: [SortKey] = []
        for descriptor in sort {
            guard let keyPath = descriptor.keyPath else {
                throw StrataError(
                    .unsupportedPredicate, "a sort descriptor without a key path cannot be translated to a store query",
                    entityName: entity.name)
            }
            let (value, attribute) = try sortValue(keyPath)
            if attribute.options.contains(.transformable) {
                throw StrataError(
                    .unsupportedPredicate,
                    "cannot sort \(entity.name) by \(attribute.name): it is stored through a transformer, whose stored form has no order of its values",
                    entityName: entity.name, propertyName: attribute.name)
            }
            let collation: Collation?
            do {
                collation = try Self.sortCollation(for: type(of: keyPath).valueType, comparator: descriptor.stringComparator)
            } catch {
                throw StrataError(
                    .unsupportedPredicate, "cannot sort \(entity.name) by \(attribute.name): \(error.message)",
                    entityName: entity.name, propertyName: attribute.name)
            }
            let ascending = descriptor.order == .forward
            terms.append(SortTerm(value, ascending: ascending, collation: collation))
            keys.append(SortKey(keyPath: keyPath, ascending: ascending, collation: collation))
        }
        return (terms, keys)
    }

    /// How values of a sort key's Swift type compare as stored; nil for types
    /// stores order natively (numbers, dates). Decided by the Swift type, not the
    /// attribute type, so optionals and raw values are seen through.
    private static func sortCollation(
        for type: Any.Type, comparator: String.StandardComparator?
    ) throws(StrataError) -> Collation? {
        var base = predicateBaseType(type)
        if base == Decimal.self { return .decimal }
        if !(base is any PersistentValue.Type), let raw = base as? any RawRepresentable.Type {
            base = predicateBaseType(rawValueType(of: raw))
            guard base is any PersistentValue.Type else {
                throw StrataError(.unsupportedPredicate, "the raw values of \(type) cannot be stored")
            }
            if base == Decimal.self { return .decimal }
            return base is any StringProtocol.Type ? .binary : nil
        }
        if base is any StringProtocol.Type {
            guard let comparator, comparator != .lexical else { return .binary }
            return .folded
        }
        if base is any PersistentModel.Type {
            throw StrataError(.unsupportedPredicate, "model objects have no order")
        }
        guard base is any PersistentValue.Type else {
            throw StrataError(
                .unsupportedPredicate,
                "\(base) values are stored as JSON, which has no meaningful order; sort by one of their stored properties instead")
        }
        // Numbers and dates need no collation; UUIDs and URLs are text in
        // code-point order, every store's default.
        return nil
    }

    /// The value a sort key reads, and the attribute at its end.
    func sortValue(_ keyPath: AnyKeyPath) throws(StrataError) -> (StoreExpression, AttributeDescription) {
        if entity.ordinal(for: keyPath) == nil, let (ordinal, transform) = transformedAttribute(keyPath),
           let attribute = entity.attribute(at: ordinal) {
            return (.transformed(.property(.row(0, entity: entity.index), ordinal), transform), attribute)
        }
        let path = entity.ordinal(for: keyPath).map { [$0] } ?? resolveChain(keyPath)
        guard let path, let last = path.last else {
            throw StrataError(
                .unsupportedPredicate,
                "cannot sort \(entity.name) by \(keyPath): only attributes, also through to-one relationships, can be sort keys",
                entityName: entity.name)
        }
        var object = ObjectOperand.row(0, entity: entity.index)
        for ordinal in path.dropLast() {
            let current = schema.entities[object.entityIndex]
            object = .keyed(.property(object, ordinal), entity: current.destinationIndexByOrdinal[ordinal])
        }
        let owner = schema.entities[object.entityIndex]
        guard let attribute = owner.attribute(at: last) else {
            throw StrataError(
                .unsupportedPredicate,
                "cannot sort \(entity.name) by the relationship \(owner.properties[last].name): objects have no order",
                entityName: entity.name, propertyName: owner.properties[last].name)
        }
        return (.property(object, last), attribute)
    }

    /// The string attribute and transform of a key path such as
    /// `\Book.title.folded` (``Swift/String/folded``, ``Swift/String/backwards``), or nil.
    private func transformedAttribute(_ keyPath: AnyKeyPath) -> (Int, TextTransform)? {
        let transforms: [(TextTransform, AnyKeyPath)] = [(.folded, \String.folded), (.backwards, \String.backwards)]
        for (attributeKeyPath, ordinal) in entity.ordinalByKeyPath where entity.attribute(at: ordinal) != nil {
            for (transform, tail) in transforms where attributeKeyPath.appending(path: tail) == keyPath {
                return (ordinal, transform)
            }
        }
        return nil
    }

    /// The ordinals along a key path through to-one relationships, such as
    /// `\Book.author?.name`, or nil.
    ///
    /// Swift cannot split a key path into components or build an optional-chaining
    /// one at run time, so this matches the key path's `debugDescription` against
    /// those of the schema's own key paths: `\Book.<author>?.<name>?` is Book's
    /// `author` component, `?`, then Author's `name` component. Both come from the
    /// same runtime in the same process, so an unexpected format only fails to
    /// match (and the sort throws); it cannot pick a wrong property.
    private func resolveChain(_ keyPath: AnyKeyPath) -> [Int]? {
        let description = keyPath.debugDescription
        let prefix = rootDescription(entity.modelType)
        guard description.hasPrefix(prefix) else { return nil }
        return resolve(description.dropFirst(prefix.count), in: entity)
    }

    private func resolve(_ rest: Substring, in entity: EntityDescription) -> [Int]? {
        let prefix = rootDescription(entity.modelType)
        for (keyPath, ordinal) in entity.ordinalByKeyPath {
            let component = keyPath.debugDescription.dropFirst(prefix.count)
            guard component.hasPrefix(".") else { continue }
            switch entity.properties[ordinal] {
            case .attribute:
                // The chain ends here; optional chaining adds a trailing `?` unless the value is optional already.
                if rest == component || rest == component + "?" { return [ordinal] }
            case .relationship(let relationship) where !relationship.isToMany:
                guard rest.hasPrefix(component + "?.") else { continue }
                let destination = schema.entities[entity.destinationIndexByOrdinal[ordinal]]
                if let tail = resolve(rest.dropFirst(component.count + 1), in: destination) {
                    return [ordinal] + tail
                }
            case .relationship:
                continue
            }
        }
        return nil
    }
}

private func rawValueType<R: RawRepresentable>(of type: R.Type) -> Any.Type {
    R.RawValue.self
}

/// `\Model.self`'s description without `.self`: how key paths on `Model` begin.
private func rootDescription<M: PersistentModel>(_ type: M.Type) -> String {
    String((\M.self as AnyKeyPath).debugDescription.dropLast(".self".count))
}
