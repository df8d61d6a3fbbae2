import Foundation
import Strata
import StrataPostgres

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
        return try withPostgres(location) { inspection throws(StrataError) in
            try StoreReport(
                store: inspection.store, name: inspection.name, sizeInBytes: try inspection.sizeInBytes(),
                formatVersion: inspection.formatVersion)
        }
    }

    /// The rows of one entity; with `eachRow`, handed over one at a time with the columns.
    static func rows(
        at location: String, entity: String, conditions: [StoreRows.Condition], sort: [StoreRows.SortKey], limit: Int?,
        eachRow: ((StoreRows, [StoredValue]) -> Void)? = nil
    ) throws(StrataError) -> StoreRows {
        guard isPostgres(location) else {
            return try StoreRows(url: file(location), entity: entity, conditions: conditions, sort: sort, limit: limit, eachRow: eachRow)
        }
        return try withPostgres(location) { inspection throws(StrataError) in
            try StoreRows(
                store: inspection.store, name: inspection.name, entity: entity, conditions: conditions, sort: sort,
                limit: limit, eachRow: eachRow)
        }
    }

    static func history(at location: String, after token: Int64?, author: String?) throws(StrataError) -> StoreHistoryListing {
        guard isPostgres(location) else { return try StoreHistoryListing(url: file(location), after: token, author: author) }
        return try withPostgres(location) { inspection throws(StrataError) in
            try StoreHistoryListing(store: inspection.store, name: inspection.name, after: token, author: author)
        }
    }

    static func check(at location: String, progress: @escaping (Int, Int) -> Void) throws(StrataError) -> StoreCheck {
        guard isPostgres(location) else { return try StoreCheck(url: file(location), progress: progress) }
        return try withPostgres(location) { inspection throws(StrataError) in
            StoreCheck(name: inspection.name, problems: try inspection.problems())
        }
    }

    static func export(
        at location: String, as format: StoreExport.Format, to destination: URL, progress: @escaping (Int, Int) -> Void
    ) throws(StrataError) -> StoreExport.Summary {
        guard isPostgres(location) else {
            return try StoreExport.export(storeAt: file(location), as: format, to: destination, progress: progress)
        }
        return try withPostgres(location) { inspection throws(StrataError) in
            try StoreExport.export(
                store: inspection.store, name: inspection.name, sequences: try inspection.sequences(), as: format,
                to: destination, progress: progress)
        }
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

    private static func withPostgres<Result>(
        _ url: String, _ body: (PostgresStoreInspection) throws(StrataError) -> Result
    ) throws(StrataError) -> Result {
        let inspection = try PostgresStoreInspection(url: url)
        defer { inspection.close() }
        return try body(inspection)
    }
}
