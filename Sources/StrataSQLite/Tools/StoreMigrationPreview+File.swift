import Foundation
import StrataCore

extension StoreMigrationPreview {
    /// Compares the store at `url` with `target`. A missing or non-Strata
    /// file fails as `StoreReport(url:)` does.
    public init(url: URL, to target: SchemaSummary) throws(StrataError) {
        let metadata = try StoreFileInspection(url: url).requireStore().metadata
        self.init(fileName: url.lastPathComponent, stored: metadata.schema, fingerprint: metadata.fingerprint, to: target)
    }
}
