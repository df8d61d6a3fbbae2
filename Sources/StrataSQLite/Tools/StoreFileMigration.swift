import Foundation
import StrataCore
import GRDB

/// Migrates a store file to another schema outside the app, as the app's
/// next load would by inference: `strata migrate` without `--dry-run`.
///
/// It first checks what `StoreMigrationPreview` checks and changes nothing
/// when the step cannot be inferred. Otherwise it copies the store to
/// `backup` (SQLite's online backup, a consistent copy even while another
/// process has the store open) and then migrates the store in one
/// transaction: a failure leaves it as it was, and the copy stays either way.
///
/// ```swift
/// let preview = try StoreFileMigration.migrate(
///     storeAt: url, to: appSchema, backup: url.deletingPathExtension().appendingPathExtension("backup.sqlite"))
/// ```
public enum StoreFileMigration {
    /// Migrates the store at `url` to `target`, copying it to `backup` first;
    /// returns what was done (nothing when the store is at `target` already).
    /// Refuses with `.incompatibleStore` when the step cannot be inferred and
    /// with `.invalidStoreLocation` when `backup` exists or cannot be written.
    @discardableResult
    public static func migrate(storeAt url: URL, to target: SchemaSummary, backup: URL) throws(StrataError) -> StoreMigrationPreview {
        let preview = try StoreMigrationPreview(url: url, to: target)
        guard preview.isNeeded else { return preview }
        guard preview.problems.isEmpty else {
            throw StrataError(
                .incompatibleStore,
                "\(url.lastPathComponent) cannot be migrated to this schema by inference; nothing was changed: "
                    + preview.problems.joined(separator: "; "))
        }
        // The schema file records no declared defaults: a step that would give
        // stored rows a required value the app has not said is the app's to make.
        let schema = Schema(recorded: target, assumedDefault: nil)
        let storedSchema = try StoreFileInspection(url: url).requireStore().metadata.schema
        let unsaid = InferredMigration(from: storedSchema, to: schema).problems
        guard unsaid.isEmpty else {
            throw StrataError(
                .incompatibleStore,
                "\(url.lastPathComponent) needs values the schema file does not give (it records no defaults), so the app "
                    + "migrates it when it loads it with its models; nothing was changed: " + unsaid.joined(separator: "; "))
        }
        guard !FileManager.default.fileExists(atPath: backup.path) else {
            throw StrataError(
                .invalidStoreLocation, "The backup \(backup.path) exists already; move it away or name another, nothing was changed")
        }
        do {
            let source = try DatabaseQueue(path: url.path, configuration: SQLiteStore.configuration(readOnly: true))
            defer { try? source.close() }
            let copy = try DatabaseQueue(path: backup.path)
            defer { try? copy.close() }
            try source.backup(to: copy)
        } catch {
            try? FileManager.default.removeItem(at: backup)
            throw StrataError(
                .invalidStoreLocation, "\(url.lastPathComponent) could not be copied to \(backup.path); nothing was changed",
                underlyingError: SendableDescription(error))
        }
        let step = MigrationStep(label: "stored schema → \(target.fingerprint) (inferred)", source: nil, target: schema)
        try SQLiteStore(location: .file(url), schema: schema, migration: { _, _ in [step] }).close()
        return preview
    }
}
