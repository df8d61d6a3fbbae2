import Foundation
import StrataCore

extension PostgresStore {
    /// A save that changes one row, and nothing a check must guard, in one
    /// autocommitted statement: the update, its version check and the
    /// commit's `NOTIFY` together, one round trip where a transaction under
    /// the write lock takes five.
    ///
    /// It applies when the store keeps no history (whose numbers must follow
    /// commit order, under the lock), the update has no unique value to check
    /// and no key of a new row to fill in, and nothing else is written. The
    /// row lock and the version test in the `UPDATE` make it as safe as the
    /// full path; when the row moved or went, it returns nil and the full path
    /// runs, reporting the conflict as ever.
    ///
    /// ```sql
    /// WITH changed AS (UPDATE t SET _version = _version + 1, "title" = $3 WHERE pk = $1 AND _version = $2 RETURNING _version)
    /// SELECT _version, pg_notify($4, $5) FROM changed
    /// ```
    func saveInOneStatement(_ request: SaveRequest, origin: ObjectIdentifier?) throws(StrataError) -> SaveResult? {
        guard !isReadOnly, !options.historyTracking, request.updates.count == 1, request.inserts.isEmpty,
              request.deletes.isEmpty, request.toManyWrites.isEmpty, request.toManyAppends.isEmpty, request.metadata.isEmpty,
              let update = request.updates.first, update.pendingReferences.isEmpty else { return nil }
        let entity = schema.entities[update.entityIndex]
        let uniqueColumns = entity.uniqueKeyOrdinals.joined().map { entity.columnIndexByOrdinal[$0] }
        guard Set(uniqueColumns).isDisjoint(with: update.columns) else { return nil }

        let checksVersion = update.expectedVersion != nil
        var arguments: [StoredValue] = [.integer(update.primaryKey)]
        if let expected = update.expectedVersion { arguments.append(.integer(expected)) }
        arguments += layout.updateValues(entityIndex: update.entityIndex, columns: update.columns, values: update.values)
        let notify = "pg_notify($\(arguments.count + 1), $\(arguments.count + 2))"
        // A store a newer server migrated misses here, and the full path says why.
        let unchanged = "EXISTS (SELECT 1 FROM \(layout.metadataTable) WHERE key = 'fingerprint' AND value = $\(arguments.count + 3))"
        arguments += [.text(layout.channel), .text("0 \(originIdentifier.uuidString)"), .text(recordedFingerprint)]
        let statement = layout.updateSQL(
            entityIndex: update.entityIndex, columns: update.columns, checkingVersion: checksVersion, alsoRequiring: unchanged)
        let rows = try pool.withSession { session throws(StrataError) in
            try session.preparedValues("WITH changed AS (\(statement)) SELECT \(StorageNaming.versionColumn), \(notify) FROM changed", arguments)
        }
        guard case .integer(let version) = rows.first?.first else { return nil }

        var changes = changeSet(author: request.author, contextName: request.contextName, origin: origin)
        changes.updated.append(ChangeSet.Row(
            objectID: ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: update.primaryKey),
            entity: entity, ordinals: update.columns.map { entity.columnOrdinals[$0] }, values: update.values, version: version))
        var result = SaveResult(changes: changes)
        result.updatedVersions = [version]
        return result
    }
}
