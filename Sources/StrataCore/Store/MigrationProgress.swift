/// How far a migration has come, reported as each table is migrated and each
/// stage's code has run (see ``PersistentContainer/migrationProgress``).
///
/// ```swift
/// container.migrationProgress = { progress in
///     print("\(progress.step): \(Int(progress.fractionCompleted * 100))% (\(progress.detail))")
/// }
/// ```
public struct MigrationProgress: Sendable, CustomStringConvertible {
    /// The step under way, as `"1.0.0 → 2.0.0"`.
    public var step: String
    /// What was just done (`"rebuilt Note"`, `"ran didMigrate"`).
    public var detail: String
    public var completedUnitCount: Int
    public var totalUnitCount: Int

    /// From 0 to 1.
    public var fractionCompleted: Double {
        totalUnitCount == 0 ? 1 : Double(completedUnitCount) / Double(totalUnitCount)
    }

    package init(step: String, detail: String, completedUnitCount: Int, totalUnitCount: Int) {
        self.step = step
        self.detail = detail
        self.completedUnitCount = completedUnitCount
        self.totalUnitCount = totalUnitCount
    }

    public var description: String { "\(step): \(completedUnitCount)/\(totalUnitCount) (\(detail))" }
}
