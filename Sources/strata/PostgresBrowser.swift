import Foundation
import Strata
#if PostgreSQL
import StrataPostgres
#endif

/// What the commands read of a PostgreSQL store, each in one read-only
/// transaction (see `PostgresStoreInspection`). Without Strata's PostgreSQL
/// trait each says so instead.
enum PostgresBrowser {
    #if PostgreSQL
    static func report(url: String) throws(StrataError) -> StoreReport {
        try PostgresStoreInspection.reading(url: url) { inspection throws(StrataError) in
            try StoreReport(
                store: inspection.store, name: inspection.name, sizeInBytes: try inspection.sizeInBytes(),
                formatVersion: inspection.formatVersion, history: try inspection.history())
        }
    }

    static func rows(
        url: String, entity: String, conditions: [StoreRows.Condition], sort: [StoreRows.SortKey], limit: Int?,
        eachRow: ((StoreRows, [StoredValue]) -> Void)?
    ) throws(StrataError) -> StoreRows {
        try PostgresStoreInspection.reading(url: url) { inspection throws(StrataError) in
            try StoreRows(
                store: inspection.store, name: inspection.name, entity: entity, conditions: conditions, sort: sort,
                limit: limit, eachRow: eachRow)
        }
    }

    static func history(url: String, after token: Int64?, author: String?) throws(StrataError) -> StoreHistoryListing {
        try PostgresStoreInspection.reading(url: url) { inspection throws(StrataError) in
            try StoreHistoryListing(store: inspection.store, name: inspection.name, after: token, author: author)
        }
    }

    static func check(url: String) throws(StrataError) -> StoreCheck {
        try PostgresStoreInspection.reading(url: url) { inspection throws(StrataError) in
            StoreCheck(name: inspection.name, problems: try inspection.problems())
        }
    }

    static func export(
        url: String, as format: StoreExport.Format, to destination: URL, progress: @escaping (Int, Int) -> Void
    ) throws(StrataError) -> StoreExport.Summary {
        try PostgresStoreInspection.reading(url: url) { inspection throws(StrataError) in
            try StoreExport.export(
                store: inspection.store, name: inspection.name, sequences: try inspection.sequences(), as: format,
                to: destination, progress: progress)
        }
    }
    #else
    static func report(url: String) throws(StrataError) -> StoreReport {
        throw StoreBrowser.builtWithoutPostgres(url)
    }

    static func rows(
        url: String, entity: String, conditions: [StoreRows.Condition], sort: [StoreRows.SortKey], limit: Int?,
        eachRow: ((StoreRows, [StoredValue]) -> Void)?
    ) throws(StrataError) -> StoreRows {
        throw StoreBrowser.builtWithoutPostgres(url)
    }

    static func history(url: String, after token: Int64?, author: String?) throws(StrataError) -> StoreHistoryListing {
        throw StoreBrowser.builtWithoutPostgres(url)
    }

    static func check(url: String) throws(StrataError) -> StoreCheck {
        throw StoreBrowser.builtWithoutPostgres(url)
    }

    static func export(
        url: String, as format: StoreExport.Format, to destination: URL, progress: @escaping (Int, Int) -> Void
    ) throws(StrataError) -> StoreExport.Summary {
        throw StoreBrowser.builtWithoutPostgres(url)
    }
    #endif
}
