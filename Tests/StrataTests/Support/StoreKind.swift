@_exported import StrataTesting
import Strata

// The suite uses StrataTesting's helpers; most tests run on the library models.

extension TestStack {
    /// A fresh stack over the library models.
    init(_ kind: StoreKind) async throws {
        try await self.init(kind, schema: librarySchema)
    }
}
