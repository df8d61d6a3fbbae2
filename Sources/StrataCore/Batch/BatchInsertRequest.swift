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
        var lastGiven: OrdinalSet?
        func noteGiven(_ given: OrdinalSet) {
            guard tracksGivenColumns else { return }
            // Rows mostly set what the row before set.
            if given == lastGiven, let last = rows.columnSetOfRow.last {
                rows.columnSetOfRow.append(last)
                return
            }
            lastGiven = given
            let columns = given.elements
            let index = setIndex[columns] ?? {
                rows.columnSets.append(columns)
                setIndex[columns] = rows.columnSets.count - 1
                return rows.columnSets.count - 1
            }()
            rows.columnSetOfRow.append(index)
        }
        var slots = [BatchSlot](repeating: .unset, count: values.entity.properties.count)
        switch source {
        case .dictionaries(let objects):
            rows.values.reserveCapacity(objects.count)
            for object in objects {
                for (name, value) in object {
                    slots[try values.ordinal(named: name)] = .given(value)
                }
                var given = OrdinalSet()
                rows.values.append(try values.takeRow(&slots, given: &given))
                noteGiven(given)
            }
        case .handler(let handler):
            var row = BatchRow<Model>(entity: values.entity)
            while true {
                row.clear()
                if try handler(&row) { break }
                if let problem = row.problem { throw problem }
                for ordinal in values.ordinalsWithoutColumn {
                    if case .unset = row.slots[ordinal] { continue }
                    _ = try values.ordinal(named: values.entity.properties[ordinal].name)
                }
                var given = OrdinalSet()
                rows.values.append(try values.takeRow(&row.slots, given: &given))
                noteGiven(given)
            }
        }
        return rows
    }
}
