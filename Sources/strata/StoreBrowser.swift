import Foundation
import Strata

/// Reads the store a command names: a SQLite file through the file tools,
/// which read it without opening it as a store, or a PostgreSQL URL through
/// the store itself, opened read-only under the schema it records.
///
/// ```swift
/// let report = try StoreBrowser.report(at: "postgres://app@db/app?schema=library")
/// ```
enum StoreBrowser {
    /// Whether `location` is a PostgreSQL URL rather than a file.
    static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    static func report(at location: String) throws(StrataError) -> StoreReport {
        guard isPostgres(location) else { return try StoreReport(url: file(location)) }
        return try PostgresBrowser.report(url: location)
    }

    /// The rows of one entity; with `eachRow`, handed over one at a time with the columns.
    static func rows(
        at location: String, entity: String, conditions: [StoreRows.Condition], sort: [StoreRows.SortKey], limit: Int?,
        eachRow: ((StoreRows, [StoredValue]) -> Void)? = nil
    ) throws(StrataError) -> StoreRows {
        guard isPostgres(location) else {
            return try StoreRows(url: file(location), entity: entity, conditions: conditions, sort: sort, limit: limit, eachRow: eachRow)
        }
        return try PostgresBrowser.rows(url: location, entity: entity, conditions: conditions, sort: sort, limit: limit, eachRow: eachRow)
    }

    static func history(at location: String, after token: Int64?, author: String?) throws(StrataError) -> StoreHistoryListing {
        guard isPostgres(location) else { return try StoreHistoryListing(url: file(location), after: token, author: author) }
        return try PostgresBrowser.history(url: location, after: token, author: author)
    }

    static func check(at location: String, progress: @escaping (Int, Int) -> Void) throws(StrataError) -> StoreCheck {
        guard isPostgres(location) else { return try StoreCheck(url: file(location), progress: progress) }
        return try PostgresBrowser.check(url: location)
    }

    static func export(
        at location: String, as format: StoreExport.Format, to destination: URL, progress: @escaping (Int, Int) -> Void
    ) throws(StrataError) -> StoreExport.Summary {
        guard isPostgres(location) else {
            return try StoreExport.export(storeAt: file(location), as: format, to: destination, progress: progress)
        }
        return try PostgresBrowser.export(url: location, as: format, to: destination, progress: progress)
    }

    /// The schema a store records, from its report.
    static func recordedSchema(in report: StoreReport) throws(StrataError) -> SchemaSummary {
        let summary = SchemaSummary(entities: report.entities.map(\.summary))
        guard summary.fingerprint == report.fingerprint else {
            throw StrataError(.corruptStore, "\(report.fileName) records a schema whose fingerprint is not its own")
        }
        return summary
    }

    /// A file path as a URL; an empty one names no store.
    static func file(_ location: String) throws(StrataError) -> URL {
        guard !location.isEmpty else {
            throw StrataError(.invalidStoreLocation, "No store was named: give a file or a PostgreSQL URL")
        }
        return URL(fileURLWithPath: location)
    }

    /// The store file a command that writes files works on; a PostgreSQL URL is refused.
    static func sqliteFile(_ location: String, for command: String) throws(StrataError) -> URL {
        guard !isPostgres(location) else {
            throw StrataError(
                .invalidStoreLocation,
                "strata \(command) works on SQLite files; a PostgreSQL store is migrated, and filled, by the app's container")
        }
        return try file(location)
    }

    static func builtWithoutPostgres(_ url: String) -> StrataError {
        StrataError(.invalidStoreLocation, "This strata was built without Strata's PostgreSQL trait, so it cannot open \(url)")
    }
}
