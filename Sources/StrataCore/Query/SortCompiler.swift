import Foundation

// ORDER BY from `[SortDescriptor<T>]`.
//
// Orders match Swift's for numbers, dates, UUIDs and strings compared by code
// point. Optional keys sort `nil` first ascending and last descending, in SQLite
// (NULL is the smallest value) as in `SortDescriptor` on optionals.
//
// String keys get an explicit collation:
// - no string comparator (what `SortDescriptor(\.title)` gives on Linux, where it
//   uses `String.<`) or `.lexical`: `COLLATE BINARY`, code-point order;
// - any other comparator (`.localizedStandard`, the default on Apple platforms,
//   and `.localized`): `COLLATE NOCASE`, which folds ASCII case only and does not
//   sort digits numerically or follow the locale.

extension PredicateCompiler {
    /// The ORDER BY list without the keywords, e.g. `t0."title" COLLATE BINARY ASC, t0."year" DESC`;
    /// empty for no descriptors.
    ///
    /// Keys may be attributes of the entity or attributes reached through to-one
    /// relationships (`\Book.author?.name`, read by a correlated subquery).
    package func compileSort<T: PersistentModel>(_ sort: [SortDescriptor<T>]) throws(StrataError) -> SQLFragment {
        guard !sort.isEmpty else { return SQLFragment() }
        try checkModelType(T.self)
        var compilation = PredicateCompilation(schema: schema)
        var keys: [SQLFragment] = []
        for descriptor in sort {
            guard let keyPath = descriptor.keyPath else {
                throw StrataError(
                    .unsupportedPredicate, "a sort descriptor without a key path cannot be translated to SQL",
                    entityName: entity.name)
            }
            let (term, attribute) = try sortKey(keyPath, &compilation)
            if let problem = sqlOrderingProblem(for: type(of: keyPath).valueType) {
                throw StrataError(
                    .unsupportedPredicate, "cannot sort \(entity.name) by \(attribute.name) in SQL: \(problem)",
                    entityName: entity.name, propertyName: attribute.name)
            }
            var key = term.fragment
            // Decided by the Swift type, not the attribute type, so optionals and
            // any stored-as-text oddities of the schema do not change the collation.
            if predicateBaseType(type(of: keyPath).valueType) is any StringProtocol.Type {
                key.append(" COLLATE \(Self.collation(for: descriptor.stringComparator))")
            }
            key.append(descriptor.order == .forward ? " ASC" : " DESC")
            keys.append(key)
        }
        return SQLFragment.joined(keys, separator: ", ")
    }

    private static func collation(for comparator: String.StandardComparator?) -> String {
        guard let comparator, comparator != .lexical else { return "BINARY" }
        return "NOCASE"
    }

    /// The SQL for a sort key and the attribute it reads.
    private func sortKey(_ keyPath: AnyKeyPath, _ compilation: inout PredicateCompilation)
        throws(StrataError) -> (SQLTerm, AttributeDescription)
    {
        let path = entity.ordinal(for: keyPath).map { [$0] } ?? resolveChain(keyPath)
        guard let path, let last = path.last else {
            throw StrataError(
                .unsupportedPredicate,
                "cannot sort \(entity.name) by \(keyPath): only attributes, also through to-one relationships, can be sort keys",
                entityName: entity.name)
        }
        var reference = ObjectReference(row: "t0", entity: entity)
        for ordinal in path.dropLast() {
            let name = reference.entity.properties[ordinal].name
            let destination = schema.entities[reference.entity.destinationIndexByOrdinal[ordinal]]
            reference = ObjectReference(key: compilation.column(name, of: reference), entity: destination)
        }
        guard let attribute = reference.entity.attribute(at: last) else {
            throw StrataError(
                .unsupportedPredicate,
                "cannot sort \(entity.name) by the relationship \(reference.entity.properties[last].name): objects have no order",
                entityName: entity.name, propertyName: reference.entity.properties[last].name)
        }
        return (compilation.column(attribute.name, of: reference), attribute)
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

/// `\Model.self`'s description without `.self`: how key paths on `Model` begin.
private func rootDescription<M: PersistentModel>(_ type: M.Type) -> String {
    String((\M.self as AnyKeyPath).debugDescription.dropLast(".self".count))
}
