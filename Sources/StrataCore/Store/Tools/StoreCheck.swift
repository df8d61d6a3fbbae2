import Foundation

/// The problems a store file has, found without changing it: SQLite's full
/// integrity check, relationships that name missing rows, row versions that
/// are not positive, and history changes that belong to no transaction.
/// `strata check` prints them and fails when there is any.
///
/// ```swift
/// let problems = try StoreCheck(url: url).problems
/// if problems.isEmpty { print("ok") }
/// ```
public struct StoreCheck: Sendable, Codable {
    public var fileName: String
    /// What is wrong, one sentence each; empty for a sound store.
    public var problems: [String]

    /// A check's findings, for a store kind that checks itself.
    package init(name: String, problems: [String]) {
        fileName = name
        self.problems = problems
    }


}
