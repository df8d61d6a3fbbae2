/// Inserts many rows of one model type straight into the store, without
/// creating objects — Core Data's `NSBatchInsertRequest`.
///
/// Give the rows as dictionaries keyed by property name, or fill them one at a
/// time with a ``BatchRow``. Keys are attributes and to-one relationships (a
/// relationship's value is an ``ObjectID`` or a saved object of the destination).
/// Values are the Swift values the model stores (`String`, `Int`, `Date`, enums
/// with raw values, `Codable` values …); `nil` leaves an optional property empty.
///
/// ```swift
/// let result = try container.execute(BatchInsertRequest<Book>(objects: [
///     ["title": "Dune", "year": 1965],
///     ["title": "Emma", "year": 1815, "author": austenID],
/// ]))
/// result.count   // 2
/// ```
///
/// Executing it runs one write transaction: rows get primary keys from the
/// store's sequence, like saved objects, and either all are written or none.
/// An unknown key, a value of the wrong type or a missing required attribute
/// throws `.validation`.
///
/// A row whose unique key a stored row already holds is settled by the merge
/// policy the request runs with (the context's, or the container's
/// `execute(_:author:mergePolicy:)` argument), as Core Data does: `.error` (the
/// default) and custom policies fail the batch with `.uniquenessConflict`;
/// `.mergeByPropertyObjectTrump` updates the stored row with the properties the
/// row sets (it keeps its primary key and its other properties), `.overwrite`
/// with every property; `.mergeByPropertyStoreTrump` and `.rollback` keep the
/// stored row. The result tells inserted rows
/// (``BatchResult/insertedObjectIDs``) from updated ones
/// (``BatchResult/updatedObjectIDs``), and history records each as such.
/// Rows of one request that share a unique key count once: the last one when
/// updating, the first when keeping.
///
/// ```swift
/// // The Earthquakes refresh: quakes already stored (same `code`) are updated.
/// let result = try container.execute(
///     BatchInsertRequest<Quake>(objects: feed.map(\.dictionary)), mergePolicy: .mergeByPropertyObjectTrump)
/// print(result.insertedObjectIDs.count, "new,", result.updatedObjectIDs.count, "updated")
/// ```
///
/// > Important: The store writes rows directly. Validation hooks
/// > (`validateForInsert`), lifecycle hooks (`awakeFromInsert`, `willSave`) and
/// > relationship count limits are not run; only the schema is checked.
public struct BatchInsertRequest<Model: PersistentModel> {
    enum Source {
        case dictionaries([[String: any Sendable]])
        case handler((inout BatchRow<Model>) throws -> Bool)
    }

    let source: Source
    /// Whether the result lists the inserted IDs or only counts them.
    public var resultType: BatchResultType

    /// Rows as dictionaries keyed by property name.
    public init(objects: [[String: any Sendable]], resultType: BatchResultType = .count) {
        self.source = .dictionaries(objects)
        self.resultType = resultType
    }

    /// Rows filled one at a time by `handler`, until it returns `true` (done).
    ///
    /// The handler gets an empty ``BatchRow`` on each call; it sets the row's
    /// properties and returns `false` to insert it, or returns `true` to finish —
    /// as in Core Data, a row filled by the call that returns `true` is not inserted.
    ///
    /// ```swift
    /// var titles = ["Dune", "Emma"][...]
    /// let request = BatchInsertRequest<Book> { row in
    ///     guard let title = titles.popFirst() else { return true }
    ///     row[\.title] = title
    ///     row[\.year] = 2000
    ///     row["rating"] = 4.5        // by name works too
    ///     return false
    /// }
    /// try context.execute(request)
    /// ```
    public init(resultType: BatchResultType = .count, handler: @escaping (inout BatchRow<Model>) throws -> Bool) {
        self.source = .handler(handler)
        self.resultType = resultType
    }

    /// The rows in column order, checked; throws before anything is written.
    /// With `tracksGivenColumns`, also which columns each row set (an upsert
    /// updates only those).
    func rows(_ values: BatchValues, tracksGivenColumns: Bool = false) throws -> BatchRows {
        var rows = BatchRows()
        var setIndex: [[Int]: Int] = [:]
        let columnOrdinals = values.entity.columnOrdinals
        func noteGiven(_ slots: [Any?]) {
            guard tracksGivenColumns else { return }
            // Rows mostly set what the row before set: reuse its set unless one differs.
            if let last = rows.columnSetOfRow.last {
                var next = 0, same = true
                let set = rows.columnSets[last]
                for (column, ordinal) in columnOrdinals.enumerated() where slots[ordinal] != nil {
                    guard next < set.count, set[next] == column else {
                        same = false
                        break
                    }
                    next += 1
                }
                if same, next == set.count {
                    rows.columnSetOfRow.append(last)
                    return
                }
            }
            let columns = columnOrdinals.indices.filter { slots[columnOrdinals[$0]] != nil }
            let index = setIndex[columns] ?? {
                rows.columnSets.append(columns)
                setIndex[columns] = rows.columnSets.count - 1
                return rows.columnSets.count - 1
            }()
            rows.columnSetOfRow.append(index)
        }
        switch source {
        case .dictionaries(let objects):
            rows.values.reserveCapacity(objects.count)
            var slots = [Any?](repeating: nil, count: values.entity.properties.count)
            for object in objects {
                for index in slots.indices { slots[index] = nil }
                for (name, value) in object {
                    slots[try values.ordinal(named: name)] = value
                }
                rows.values.append(try values.row(slots))
                noteGiven(slots)
            }
        case .handler(let handler):
            var row = BatchRow<Model>(entity: values.entity)
            // Whether a batch may set each property is checked once, the first time it is set.
            var settable = [Bool](repeating: false, count: values.entity.properties.count)
            while true {
                row.clear()
                if try handler(&row) { break }
                if let problem = row.problem { throw problem }
                for ordinal in row.values.indices where !settable[ordinal] && row.values[ordinal] != nil {
                    _ = try values.ordinal(named: values.entity.properties[ordinal].name)
                    settable[ordinal] = true
                }
                rows.values.append(try values.row(row.values))
                noteGiven(row.values)
            }
        }
        return rows
    }
}

/// One row of a ``BatchInsertRequest`` being filled by its handler: set
/// properties by key path or by name.
///
/// ```swift
/// row[\.title] = "Dune"      // typed: the value must be the property's type
/// row[\.author] = author     // a saved object (or use row["author"] = authorID)
/// row["year"] = 1965         // by name: any value the property can store
/// ```
///
/// Properties left unset are `nil` (optional ones) or an error (required ones).
/// A key path or name that is not an attribute or to-one relationship makes
/// the request throw `.validation` once the handler returns.
public struct BatchRow<Model: PersistentModel> {
    let entity: EntityDescription
    /// The values set so far, by property ordinal (nil: not set).
    var values: [Any?]
    /// The first key path or name that did not name a persistent property.
    var problem: StrataError?
    /// The key paths set so far with their ordinals: a handler sets the same
    /// few on every row, and finding one here by identity is cheaper than
    /// hashing it. Holding them keeps their identities from being reused.
    private var recentKeyPaths: [(keyPath: AnyKeyPath, ordinal: Int)] = []

    init(entity: EntityDescription) {
        self.entity = entity
        self.values = Array(repeating: nil, count: entity.properties.count)
    }

    mutating func clear() {
        for index in values.indices { values[index] = nil }
        problem = nil
    }

    /// The value of a property, by key path; `nil` when not set yet.
    public subscript<Value>(keyPath: KeyPath<Model, Value>) -> Value? {
        get {
            entity.ordinal(for: keyPath).flatMap { values[$0] as? Value }
        }
        set {
            guard let ordinal = ordinal(for: keyPath) else {
                problem = problem ?? StrataError(
                    .validation, "A key path of \(entity.name) does not name a persistent property; nothing was written",
                    entityName: entity.name)
                return
            }
            values[ordinal] = newValue.map { $0 as Any }
        }
    }

    private mutating func ordinal(for keyPath: AnyKeyPath) -> Int? {
        for recent in recentKeyPaths where recent.keyPath === keyPath { return recent.ordinal }
        guard let ordinal = entity.ordinal(for: keyPath) else { return nil }
        if recentKeyPaths.count < entity.properties.count * 2 { recentKeyPaths.append((keyPath, ordinal)) }
        return ordinal
    }

    /// The value of a property, by name; `nil` when not set yet.
    public subscript(name: String) -> Any? {
        get {
            guard let ordinal = entity.ordinalByName[name] else { return nil }
            return values[ordinal]
        }
        set {
            guard let ordinal = entity.ordinalByName[name] else {
                problem = problem ?? StrataError(
                    .validation, "\(entity.name) has no persistent property named \(name); nothing was written",
                    entityName: entity.name, propertyName: name)
                return
            }
            values[ordinal] = newValue
        }
    }
}
