import Foundation
import PostgresNIO
import StrataCore
import StrataSQL

extension PostgresStore {
    /// Writes a context's changes as one transaction under the namespace's
    /// write lock, as the SQLite store does: deletions that free a unique key,
    /// inserts, updates, to-many order, the other deletions, metadata and
    /// history. The commit is announced with `NOTIFY`.
    ///
    /// Versions are checked by the writes themselves (`… AND _version = …`);
    /// only when one misses does the transaction roll back and the save run
    /// again, reading every expected row first to report all conflicts (with
    /// nothing written).
    func save(_ request: SaveRequest, origin: ObjectIdentifier?) throws(StrataError) -> SaveResult {
        do {
            return try writeSave(request, origin: origin)
        } catch where error.code == .unsupportedPredicate {
            // A save evaluates no predicate: its one sum is a row's version plus one.
            throw StrataError(
                .corruptStore, "A stored row is at the highest version a row can have; nothing was saved", underlyingError: error)
        }
    }

    private func writeSave(_ request: SaveRequest, origin: ObjectIdentifier?) throws(StrataError) -> SaveResult {
        if let result = try saveInOneStatement(request, origin: origin) {
            didCommit(result.changes)
            return result
        }
        let result: SaveResult
        do {
            result = try write { session throws(StrataError) in try attempt(request, origin: origin, checkFirst: false, in: session) }
        } catch where error.code == Self.versionMismatch {
            rerunSaves.add(1, ordering: .relaxed)
            result = try write { session throws(StrataError) in try attempt(request, origin: origin, checkFirst: true, in: session) }
        }
        if result.conflicts.isEmpty { didCommit(result.changes) }
        return result
    }

    /// Thrown inside a first attempt whose write found a row at another
    /// version: the transaction rolls back and the save runs again, checking first.
    private static let versionMismatch = StrataError.Code(rawValue: "postgresVersionMismatch")

    private func attempt(
        _ request: SaveRequest, origin: ObjectIdentifier?, checkFirst: Bool, in session: PostgresSession
    ) throws(StrataError) -> SaveResult {
        let executor = PostgresWriteExecutor(store: self, session: session)
        let written = try SaveWriter.write(
            request, origin: origin, checkFirst: checkFirst, of: self, in: executor,
            recordingHistory: { changes, previous throws(StrataError) in
                let token = try recordHistory(of: changes, previous: previous, in: session)
                if token == nil { try announce(nil, in: session) }
                return token
            })
        guard let written else { throw Self.mismatch() }
        return written
    }

    static func mismatch() -> StrataError {
        StrataError(versionMismatch, "A row changed since it was read; the save runs again with its checks")
    }

    // MARK: Inserts

    /// Inserts an entity's rows at version 1, `rows[i]` (values in column
    /// order) under `keys[i]`, with one binary array per column and per
    /// folded twin, 10,000 rows a statement. The arrays are made from the rows
    /// as they are: a row of key, version and twins is made only for a chunk
    /// whose values cannot go as arrays.
    func insertRows(keys: [Int64], rows: [[StoredValue]], entityIndex: Int, in session: PostgresSession) throws(StrataError) {
        let sql = layout.insertSQL(entityIndex: entityIndex)
        let entityLayout = layout.entities[entityIndex]
        let width = entityLayout.columns.count
        func fullRows(_ range: Range<Int>) -> [[StoredValue]] {
            range.map { layout.insertValues(entityIndex: entityIndex, primaryKey: keys[$0], values: rows[$0]) }
        }
        guard keys.count == rows.count, rows.allSatisfy({ $0.count == width }) else {
            return try insertRows(fullRows(0..<min(keys.count, rows.count)), sql: sql, in: session)
        }
        let types = columnTypes(entityIndex: entityIndex, columns: Array(0..<width))
        let head = String(sql[..<(sql.range(of: " VALUES ")?.lowerBound ?? sql.endIndex)])
        let unnest = " SELECT * FROM unnest(" + (["bigint", "bigint"] + types).enumerated().map { "$\($0.offset + 1)::\($0.element)[]" }
            .joined(separator: ", ") + ")"
        for start in stride(from: 0, to: rows.count, by: 10_000) {
            let range = start..<min(start + 10_000, rows.count)
            if let columns = columnArrays(keys: keys[range], rows: rows[range], types: types, folded: entityLayout.foldedColumns) {
                try session.execute(head + unnest, arguments: columns)
            } else {
                try insertRows(fullRows(range), sql: sql, in: session)
            }
        }
    }

    /// Key, version and each column (and folded twin) of `rows` as binary
    /// arrays of `types`; nil when a column's values do not fit its type or one
    /// statement.
    private func columnArrays(
        keys: ArraySlice<Int64>, rows: ArraySlice<[StoredValue]>, types: [String], folded: [String?]
    ) -> [PostgresArgument]? {
        guard let key = PostgresColumnArray(sqlType: "bigint", values: keys.map { .integer($0) }),
              let version = PostgresColumnArray(sqlType: "bigint", values: Array(repeating: .integer(1), count: keys.count)) else { return nil }
        var columns: [PostgresArgument] = [.column(key), .column(version)]
        var type = 0
        for column in folded.indices {
            let values = rows.map { $0[column] }
            guard let array = PostgresColumnArray(sqlType: types[type], values: values) else { return nil }
            columns.append(.column(array))
            type += 1
            if folded[column] != nil {
                guard let twin = PostgresColumnArray(sqlType: types[type], values: values.map(PostgresLayout.folded)) else { return nil }
                columns.append(.column(twin))
                type += 1
            }
        }
        return columns
    }

    /// Inserts rows with multi-row `VALUES` lists, in chunks PostgreSQL's
    /// 65,535 bound values allow. `sql` is the one-row insert.
    func insertRows(_ rows: [[StoredValue]], sql: String, in session: PostgresSession) throws(StrataError) {
        guard let width = rows.first?.count, width > 0 else { return }
        let head = String(sql[..<(sql.range(of: " VALUES ")?.lowerBound ?? sql.endIndex)])
        for range in try PostgresSession.chunks(of: rows[...], maximumRows: max(1, 30_000 / width)) {
            let chunk = rows[range]
            var tuples: [String] = []
            var values: [StoredValue] = []
            values.reserveCapacity(chunk.count * width)
            for row in chunk {
                let first = values.count + 1
                tuples.append("(" + (first..<(first + width)).map { "$\($0)" }.joined(separator: ", ") + ")")
                values += row
            }
            try session.execute(head + " VALUES " + tuples.joined(separator: ", "), values)
        }
    }

    /// Takes `count` keys of one entity from the sequence table; returns the first.
    func reserveKeyBlock(entityIndex: Int, count: Int64, in session: PostgresSession) throws(StrataError) -> Int64 {
        // A sequence another program left negative, or too near the top for
        // the block, is not moved: no row comes back.
        let name = schema.entities[entityIndex].name
        let last = try integers("""
            INSERT INTO \(layout.sequenceTable) AS s (entity, max_pk) VALUES ($1, $2)
            ON CONFLICT (entity) DO UPDATE SET max_pk = s.max_pk + $2
            WHERE s.max_pk >= 0 AND s.max_pk <= 9223372036854775807 - $2 RETURNING max_pk
            """, [.text(name), .integer(count)], in: session)
        guard let last = last.first else { throw StrataError.keysExhausted(entity: name, at: nil) }
        return last - count + 1
    }
}

/// A save's row writes on the PostgreSQL store: each entity's inserts, each
/// column set's updates and each entity's deletions in few statements, the
/// rows bound as one binary array per column.
extension PostgresWriteExecutor {
    func reserveKeys(entityIndex: Int, count: Int64) throws(StrataError) -> Int64 {
        try store.reserveKeyBlock(entityIndex: entityIndex, count: count, in: session)
    }

    func insertRows(entityIndex: Int, keys: [Int64], rows: [[StoredValue]]) throws(StrataError) {
        try store.insertRows(keys: keys, rows: rows, entityIndex: entityIndex, in: session)
    }

    func writeMetadata(_ metadata: [String: StoredValue?]) throws(StrataError) {
        try store.writeAppMetadata(metadata, in: session)
    }

    /// Up to 100,000 rows a statement, joined to the table as arrays (each
    /// statement reads the table once); a `VALUES` list of bound values where
    /// a column cannot be an array.
    func updateRows(_ updates: [RowUpdate], checked: Bool) throws(StrataError) -> [Int64?] {
        guard let first = updates.first else { return [] }
        let (entityIndex, columns, versioned) = (first.entityIndex, first.columns, first.expectedVersion != nil)
        let layout = store.layout
        let types = ["bigint", "bigint"] + store.columnTypes(entityIndex: entityIndex, columns: columns)
        let rows = updates.map { update in
            [StoredValue.integer(update.primaryKey), .integer(update.expectedVersion ?? 0)]
                + layout.updateValues(entityIndex: entityIndex, columns: columns, values: update.values)
        }
        // A row written at its expected version is now one past it, so a
        // first attempt needs only the count back; the others read each row's
        // new version.
        let countsOnly = versioned && !checked
        var versions = [Int64?](repeating: nil, count: updates.count)
        for start in stride(from: 0, to: rows.count, by: Self.updateRowsPerStatement) {
            let range = start..<min(start + Self.updateRowsPerStatement, rows.count)
            if countsOnly, let arguments = PostgresStore.columnArrays(rows[range], types: types) {
                let sql = layout.updateSQL(
                    entityIndex: entityIndex, columns: columns, checkingVersion: true,
                    source: PostgresStore.unnestSource(types), returning: false)
                guard try session.execute(sql, arguments: arguments) == range.count else { return versions }
                for position in range { versions[position] = updates[position].expectedVersion.map { $0 + 1 } }
                continue
            }
            let updated = try store.updateRows(
                rows[range], types: types, entityIndex: entityIndex, columns: columns, checkingVersion: versioned, in: session)
            // A row named twice is updated once, and both updates take its version.
            var positions: [Int64: [Int]] = [:]
            positions.reserveCapacity(range.count)
            for position in range { positions[updates[position].primaryKey, default: []].append(position) }
            for (key, version) in try PostgresSession.integerPairs(updated) {
                for position in positions[key] ?? [] { versions[position] = version }
            }
        }
        return versions
    }

    /// Rows one update statement joins: the table is read once a statement.
    private static let updateRowsPerStatement = 100_000

    func deleteRows(
        entityIndex: Int, _ rows: ArraySlice<RowDelete>, checked: Bool, whileDeleting record: () -> Void
    ) throws(StrataError) -> Bool {
        let keys = rows.map(\.primaryKey)
        let table = store.layout.entities[entityIndex].table
        // Rows that cascade to rows of their own entity go in one statement:
        // a later one would miss the rows an earlier one's cascade took.
        let cascadesWithin = store.schema.cascadeEdges.contains { $0.childIndex == entityIndex && $0.parentIndex == entityIndex }
        if checked || !rows.contains(where: { $0.expectedVersion != nil }) {
            let condition = PostgresKeyCondition(keys: keys, firstParameter: 1)
            try session.execute("DELETE FROM \(table) WHERE \(condition.sql)", arguments: condition.arguments, meanwhile: record)
            return true
        }
        if let groups = Self.keysByVersion(rows), groups.count == 1 || !cascadesWithin {
            // Only rows at their expected version go; a shortfall is a conflict. No row comes back.
            var deleted = 0
            for (version, keys) in groups {
                if let version {
                    let condition = PostgresKeyCondition(keys: keys, firstParameter: 2)
                    deleted += try session.execute(
                        "DELETE FROM \(table) WHERE _version = $1 AND \(condition.sql)",
                        arguments: [.integer(version)] + condition.arguments, meanwhile: record)
                } else {
                    let condition = PostgresKeyCondition(keys: keys, firstParameter: 1)
                    deleted += try session.execute(
                        "DELETE FROM \(table) WHERE \(condition.sql)", arguments: condition.arguments, meanwhile: record)
                }
            }
            return deleted == keys.count
        }
        // The arrays are expanded in the select list, which streams them, where
        // `unnest(…)` in `FROM` would first copy them into a table of its own.
        let deleted = try session.execute("""
            DELETE FROM \(table) AS t USING (SELECT unnest($1::bigint[]), unnest($2::bigint[])) AS e(pk, version) \
            WHERE t.pk = e.pk AND (e.version IS NULL OR t._version = e.version)
            """, arguments: [.keys(keys), .optionalIntegers(rows.map(\.expectedVersion))], meanwhile: record)
        return deleted == keys.count
    }

    /// The most expected versions deleted with one statement each.
    private static let versionGroupLimit = 4

    /// The keys of `rows` by the version each is expected at, when they hold
    /// few versions (rows deleted together usually share one or two): one
    /// `_version = $1 AND pk = ANY($2)` per version (or key ranges, see
    /// ``PostgresKeyCondition``) is one pass over the table, about twice as
    /// fast as joining the keys and versions as a table of pairs. Nil when
    /// there are more. Each group's keys stay in the order of `rows`.
    private static func keysByVersion(_ rows: ArraySlice<RowDelete>) -> [(Int64?, [Int64])]? {
        var groups: [(version: Int64?, keys: [Int64])] = []
        for row in rows {
            if let index = groups.firstIndex(where: { $0.version == row.expectedVersion }) {
                groups[index].keys.append(row.primaryKey)
            } else {
                guard groups.count < versionGroupLimit else { return nil }
                groups.append((row.expectedVersion, [row.primaryKey]))
            }
        }
        return groups.map { ($0.version, $0.keys) }
    }
}
