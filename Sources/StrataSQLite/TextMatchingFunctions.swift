import Foundation
import StrataCore
import GRDB

/// ``TextTransform`` and the folded ``Collation`` in SQL, computed by the
/// same Swift code the other stores and unsaved objects use, so every path
/// matches and orders text alike: `strata_fold(text)`, `strata_backwards(text)`
/// and `COLLATE strata_folded`. Declared pure (deterministic), so SQLite may
/// compute a call on a constant once and an index on `strata_fold(column)` can serve.
///
/// ```sql
/// SELECT … WHERE instr(strata_fold("title"), ?) > 0 ORDER BY "title" COLLATE strata_folded
/// ```
enum TextMatchingFunctions {
    /// The SQL function that applies a transform.
    static func name(of transform: TextTransform) -> String {
        switch transform {
        case .folded: "strata_fold"
        case .backwards: "strata_backwards"
        }
    }

    static let collationName = "strata_folded"

    static let functions: [DatabaseFunction] = [TextTransform.folded, .backwards].map { transform in
        DatabaseFunction(name(of: transform), argumentCount: 1, pure: true) { values in
            // Only text changes: NULL stays NULL, and a number or blob is not text to fold.
            guard case .string(let text) = values[0].storage else { return values[0] }
            return transform.apply(text)
        }
    }

    static let collation = DatabaseCollation(collationName, function: TextFolding.compareFolded)
}
