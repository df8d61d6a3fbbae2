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
        let check = try SaveChecks(request, schema: schema, versions: checkFirst, in: PostgresWriteExecutor(store: self, session: session))
        if !check.conflicts.isEmpty {
            return SaveResult(changes: ChangeSet(storeIdentifier: identifier), conflicts: check.conflicts)
        }
        let previous = try PreviousValues(for: request, schema: schema, options: options, in: PostgresWriteExecutor(store: self, session: session))
        try releaseDeniedKeys(of: request.deletes, in: session)
        let changes = changeSet(author: request.author, contextName: request.contextName, origin: origin)
        var result = SaveResult(changes: changes)
        var first: [RowDelete] = [], rest = request.deletes
        if !check.deletesFirst.isEmpty {
            first = request.deletes.filter { check.deletesFirst.contains(RowKey($0.entityIndex, $0.primaryKey)) }
            rest = request.deletes.filter { !check.deletesFirst.contains(RowKey($0.entityIndex, $0.primaryKey)) }
        }
        try deleteRows(first, checked: checkFirst, into: &result, in: session)
        try writeInserts(request, into: &result, in: session)
        try writeUpdates(request, checked: checkFirst, into: &result, in: session)
        result.changes.toManyChanges += try ToManyWriting.write(
            request, assignedKeys: result.assignedKeys, of: self, in: PostgresWriteExecutor(store: self, session: session))
        try deleteRows(rest, checked: checkFirst, into: &result, in: session)
        if !request.metadata.isEmpty { try writeAppMetadata(request.metadata, in: session) }
        result.changes.historyToken = try recordHistory(of: result.changes, previous: previous, in: session)
        if result.changes.historyToken == nil { try announce(nil, in: session) }
        return result
    }

    private func mismatch() -> StrataError {
        StrataError(Self.versionMismatch, "A row changed since it was read; the save runs again with its checks")
    }

    // MARK: Inserts

    private func writeInserts(_ request: SaveRequest, into result: inout SaveResult, in session: PostgresSession) throws(StrataError) {
        guard !request.inserts.isEmpty else { return }
        var next = try reserveKeyBlocks(for: request.inserts, in: session)
        for insert in request.inserts {
            let key = next[insert.entityIndex]
            // Wrapping: the value after a block's last key is never used.
            next[insert.entityIndex] = key &+ 1
            result.insertedKeys.append(key)
            result.assignedKeys[insert.temporaryKey] = key
        }
        var rowsByEntity: [Int: (keys: [Int64], rows: [[StoredValue]])] = [:]
        for (insert, key) in zip(request.inserts, result.insertedKeys) {
            var values = insert.values
            for reference in insert.pendingReferences {
                guard let target = result.assignedKeys[reference.temporaryKey] else {
                    throw PendingReference.unsaved
                }
                values[reference.column] = .integer(target)
            }
            rowsByEntity[insert.entityIndex, default: ([], [])].keys.append(key)
            rowsByEntity[insert.entityIndex, default: ([], [])].rows.append(values)
            let entity = schema.entities[insert.entityIndex]
            result.changes.inserted.append(ChangeSet.Row(
                objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key),
                entity: entity, ordinals: entity.columnOrdinals, values: values, version: 1))
        }
        for (entityIndex, entityRows) in rowsByEntity.sorted(by: { $0.key < $1.key }) {
            try insertRows(keys: entityRows.keys, rows: entityRows.rows, entityIndex: entityIndex, in: session)
        }
    }

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

    /// Takes a block of primary keys per entity from the sequence table: the
    /// first key of each entity's block, by entity index.
    func reserveKeyBlocks(for inserts: [RowInsert], in session: PostgresSession) throws(StrataError) -> [Int64] {
        var counts = [Int64](repeating: 0, count: schema.entities.count)
        for insert in inserts { counts[insert.entityIndex] += 1 }
        var next = [Int64](repeating: 0, count: schema.entities.count)
        for (entityIndex, count) in counts.enumerated() where count > 0 {
            next[entityIndex] = try reserveKeyBlock(entityIndex: entityIndex, count: count, in: session)
        }
        return next
    }

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

    // MARK: Updates

    /// Updates rows with one statement per entity and column set (a chunk of
    /// rows joined to a `VALUES` list), in place of one statement per row.
    private func writeUpdates(
        _ request: SaveRequest, checked: Bool, into result: inout SaveResult, in session: PostgresSession
    ) throws(StrataError) {
        guard !request.updates.isEmpty else { return }
        struct Shape: Hashable {
            var entityIndex: Int
            var columns: [Int]
            var versioned: Bool
        }
        var resolved: [[StoredValue]] = []
        resolved.reserveCapacity(request.updates.count)
        // Positions in the request by shape, the shapes in order of first use.
        var shapes: [Shape] = []
        var groups: [[Int]] = []
        var groupOfShape: [Shape: Int] = [:]
        for (position, update) in request.updates.enumerated() {
            resolved.append(try update.resolvedValues(assignedKeys: result.assignedKeys))
            let shape = Shape(entityIndex: update.entityIndex, columns: update.columns, versioned: update.expectedVersion != nil)
            if let group = groupOfShape[shape] {
                groups[group].append(position)
            } else {
                groupOfShape[shape] = groups.count
                shapes.append(shape)
                groups.append([position])
            }
        }
        // The version each update leaves its row at, by position in the request.
        var versions = [Int64?](repeating: nil, count: request.updates.count)
        for (shape, positions) in zip(shapes, groups) {
            let types = ["bigint", "bigint"] + columnTypes(entityIndex: shape.entityIndex, columns: shape.columns)
            let rows = positions.map { position in
                let update = request.updates[position]
                return [StoredValue.integer(update.primaryKey), .integer(update.expectedVersion ?? 0)]
                    + layout.updateValues(entityIndex: shape.entityIndex, columns: shape.columns, values: resolved[position])
            }
            // A row written at its expected version is now one past it, so a
            // first attempt needs only the count back; the others read each
            // row's new version.
            let countsOnly = shape.versioned && !checked
            // One binary array per column, up to 100,000 rows a statement (each
            // statement joins the table once); a `VALUES` list of bound values
            // where a column cannot be an array.
            for start in stride(from: 0, to: rows.count, by: Self.updateRowsPerStatement) {
                let range = start..<min(start + Self.updateRowsPerStatement, rows.count)
                let chunk = rows[range]
                if countsOnly, let arguments = Self.columnArrays(chunk, types: types) {
                    let sql = layout.updateSQL(
                        entityIndex: shape.entityIndex, columns: shape.columns, checkingVersion: true,
                        source: Self.unnestSource(types), returning: false)
                    guard try session.execute(sql, arguments: arguments) == chunk.count else { throw mismatch() }
                    for position in positions[range] { versions[position] = (request.updates[position].expectedVersion ?? 0) + 1 }
                    continue
                }
                let updated = try updateRows(
                    chunk, types: types, entityIndex: shape.entityIndex, columns: shape.columns, checkingVersion: shape.versioned,
                    in: session)
                // A row named twice is updated once, and both updates take its version.
                var positionByKey: [Int64: Int] = [:], laterPositions: [Int64: [Int]] = [:]
                positionByKey.reserveCapacity(range.count)
                for position in positions[range] {
                    let key = request.updates[position].primaryKey
                    if positionByKey[key] == nil {
                        positionByKey[key] = position
                    } else {
                        laterPositions[key, default: []].append(position)
                    }
                }
                for row in updated {
                    var cells = row.makeIterator()
                    guard let key = try cells.next().flatMap({ cell throws(StrataError) in try PostgresSession.integer(cell) }),
                          let version = try cells.next().flatMap({ cell throws(StrataError) in try PostgresSession.integer(cell) }),
                          let position = positionByKey[key]
                    else { continue }
                    versions[position] = version
                    for later in laterPositions[key] ?? [] { versions[later] = version }
                }
            }
        }
        result.updatedVersions.reserveCapacity(request.updates.count)
        result.changes.updated.reserveCapacity(result.changes.updated.count + request.updates.count)
        for (position, update) in request.updates.enumerated() {
            let entity = schema.entities[update.entityIndex]
            let objectID = ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: update.primaryKey)
            guard let version = versions[position] else {
                if !checked, update.expectedVersion != nil { throw mismatch() }
                throw StrataError(
                    .mergeConflict, "\(objectID) was deleted from the store by another context; nothing was saved",
                    entityName: entity.name, objectIDs: [objectID])
            }
            result.updatedVersions.append(version)
            result.changes.updated.append(ChangeSet.Row(
                objectID: objectID, entity: entity, ordinals: update.columns.map { entity.columnOrdinals[$0] },
                values: resolved[position], version: version))
        }
    }

    /// Rows one update statement joins: the table is read once a statement.
    private static let updateRowsPerStatement = 100_000

    // MARK: Deletes

    /// Deletes rows by entity, in primary-key order, and records them. An
    /// entity's rows go before those of the entities that cascade to them.
    private func deleteRows(
        _ deletes: [RowDelete], checked: Bool, into result: inout SaveResult, in session: PostgresSession
    ) throws(StrataError) {
        guard !deletes.isEmpty else { return }
        var byEntity = [[(key: Int64, version: Int64?)]](repeating: [], count: schema.entities.count)
        for delete in deletes { byEntity[delete.entityIndex].append((delete.primaryKey, delete.expectedVersion)) }
        result.changes.deleted.reserveCapacity(result.changes.deleted.count + deletes.count)
        let present = byEntity.indices.filter { !byEntity[$0].isEmpty }
        for entityIndex in ForeignKeyEdge.deletionOrder(of: present, cascades: layout.cascadeEdges) {
            var rows = byEntity[entityIndex]
            // A context lists its deletions in key order, typically: sort only when not.
            if zip(rows, rows.dropFirst()).contains(where: { $0.key >= $1.key }) {
                rows.sort { $0.key < $1.key }
                // A key listed twice is deleted once, at the version listed last.
                var unique: [(key: Int64, version: Int64?)] = []
                unique.reserveCapacity(rows.count)
                for row in rows {
                    if unique.last?.key == row.key { unique[unique.count - 1] = row } else { unique.append(row) }
                }
                rows = unique
            }
            let keys = rows.map(\.key)
            let table = layout.entities[entityIndex].table
            let entity = schema.entities[entityIndex]
            // The change set's rows are made while the server deletes.
            var recorded = false
            func record() {
                guard !recorded else { return }
                recorded = true
                for key in keys {
                    result.changes.deleted.append(deletedRow(entityIndex: entity.index, primaryKey: key))
                }
            }
            // Rows that cascade to rows of their own entity go in one statement:
            // a later one would miss the rows an earlier one's cascade took.
            let cascadesWithin = layout.cascadeEdges.contains { $0.childIndex == entityIndex && $0.parentIndex == entityIndex }
            if checked || !rows.contains(where: { $0.version != nil }) {
                let condition = PostgresKeyCondition(keys: keys, firstParameter: 1)
                try session.execute("DELETE FROM \(table) WHERE \(condition.sql)", arguments: condition.arguments, meanwhile: record)
            } else if let groups = Self.keysByVersion(rows), groups.count == 1 || !cascadesWithin {
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
                guard deleted == keys.count else { throw mismatch() }
            } else {
                // The arrays are expanded in the select list, which streams them, where
                // `unnest(…)` in `FROM` would first copy them into a table of its own.
                let deleted = try session.execute("""
                    DELETE FROM \(table) AS t USING (SELECT unnest($1::bigint[]), unnest($2::bigint[])) AS e(pk, version) \
                    WHERE t.pk = e.pk AND (e.version IS NULL OR t._version = e.version)
                    """, arguments: [.keys(keys), .optionalIntegers(rows.map(\.version))], meanwhile: record)
                guard deleted == keys.count else { throw mismatch() }
            }
            record()
        }
    }

    /// The most expected versions deleted with one statement each.
    private static let versionGroupLimit = 4

    /// The keys of `rows` by the version each is expected at, when they hold
    /// few versions (rows deleted together usually share one or two): one
    /// `_version = $1 AND pk = ANY($2)` per version (or key ranges, see
    /// ``PostgresKeyCondition``) is one pass over the table, about twice as
    /// fast as joining the keys and versions as a table of pairs. Nil when
    /// there are more. Each group's keys stay in the order of `rows`.
    private static func keysByVersion(_ rows: [(key: Int64, version: Int64?)]) -> [(Int64?, [Int64])]? {
        var groups: [(version: Int64?, keys: [Int64])] = []
        for row in rows {
            if let index = groups.firstIndex(where: { $0.version == row.version }) {
                groups[index].keys.append(row.key)
            } else {
                guard groups.count < versionGroupLimit else { return nil }
                groups.append((row.version, [row.key]))
            }
        }
        return groups.map { ($0.version, $0.keys) }
    }

    // MARK: To-many order

}
