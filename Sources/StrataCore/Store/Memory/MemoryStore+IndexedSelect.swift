extension MemoryStore {
    /// The keys of a plan read through a sorted attribute (``MemoryIndex``):
    /// when the plan is ordered by one indexed attribute of the row, its rows
    /// come in that order and a page stops at its last row; when the
    /// predicate bounds an indexed attribute, only rows within the bounds are
    /// tested. Nil when no index serves the plan, or when its predicate can
    /// fail (every row is then tested, as the SQL stores do).
    static func indexedSelect(_ plan: FetchPlan, in database: MemoryDatabase) throws(StrataError) -> [Int64]? {
        let entityIndex = plan.entityIndex
        if plan.predicate?.canFail == true { return nil }
        var order: (ordinal: Int, ascending: Bool)?
        if let term = plan.sort.first {
            guard plan.sort.count == 1, (term.collation ?? .binary) == .binary,
                  case .property(let object, let ordinal) = term.value, object.entityIndex == entityIndex,
                  case .variable(0) = object.source, database.hasSortedIndex(entityIndex, ordinal: ordinal) else { return nil }
            order = (ordinal, term.ascending)
        }
        var chosen = order?.ordinal
        var bounds: MemoryIndex.Bounds?
        if let predicate = plan.predicate {
            if let ordinal = chosen {
                bounds = .of(predicate, entityIndex: entityIndex, ordinal: ordinal)
            } else {
                for ordinal in schemaOrdinals(of: predicate, entityIndex: entityIndex)
                where database.hasSortedIndex(entityIndex, ordinal: ordinal) {
                    if let found = MemoryIndex.Bounds.of(predicate, entityIndex: entityIndex, ordinal: ordinal) {
                        (chosen, bounds) = (ordinal, found)
                        break
                    }
                }
            }
        }
        guard let ordinal = chosen, let index = database.sortedIndex(entityIndex, ordinal: ordinal) else { return nil }
        let range = index.range(bounds)
        // An ordered page needs its rows up to the last one; without an order, every row in range.
        let wanted = if order != nil, let limit = plan.limit, limit >= 0 { plan.offset + limit } else { Int.max }
        var evaluator = MemoryEvaluator(database: database)
        var keys: [Int64] = []
        func visit(_ key: Int64) -> Bool {
            if let predicate = plan.predicate, !evaluator.matches(predicate, entityIndex: entityIndex, key: key) { return true }
            keys.append(key)
            return keys.count < wanted
        }
        if order?.ascending == false {
            index.visitDescending(range, visit)
        } else {
            for key in index.keys[range] where !visit(key) { break }
        }
        if let failure = evaluator.failure { throw failure }
        // Without an order, rows come by key, as every store returns them.
        if order == nil { keys.sort() }
        return keys
    }

    /// The attributes of the fetched row a predicate compares, in the order it names them.
    private static func schemaOrdinals(of predicate: StoreExpression, entityIndex: Int) -> [Int] {
        var ordinals: [Int] = []
        func visit(_ term: StoreExpression) {
            switch term {
            case .and(let lhs, let rhs):
                visit(lhs)
                visit(rhs)
            case .compare(.property(let object, let ordinal), _, _, _), .compare(_, _, .property(let object, let ordinal), _),
                 .between(.property(let object, let ordinal), _, _):
                if object.entityIndex == entityIndex, case .variable(0) = object.source, !ordinals.contains(ordinal) {
                    ordinals.append(ordinal)
                }
            default:
                break
            }
        }
        visit(predicate)
        return ordinals
    }
}
