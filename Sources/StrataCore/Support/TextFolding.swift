import Foundation

/// Text as Strata matches it regardless of case and diacritics: Unicode case
/// folding (`ß` and `SS` both become `ss`, `İ` becomes `i`) with combining
/// marks removed (`É` becomes `e`), composed (NFC) so that equal folded texts
/// are equal byte for byte.
///
/// Every place that matches folded text calls these functions: SQL through a
/// registered function and collation, the in-memory store, and predicates
/// evaluated on unsaved objects. They answer alike because they run the same code.
///
/// ```swift
/// TextFolding.fold("Straße")      // "strasse"
/// TextFolding.fold("ÉCOLE")       // "ecole"
/// TextFolding.backwards("abc")    // "cba"
/// ```
package enum TextFolding {
    /// The case- and diacritic-folded form of `text`.
    package static func fold(_ text: String) -> String {
        var hasUppercaseASCII = false
        for byte in text.utf8 {
            if byte >= 0x80 {
                return text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
                    .precomposedStringWithCanonicalMapping
            }
            if byte >= 0x41 && byte <= 0x5A { hasUppercaseASCII = true }
        }
        // ASCII, the common case: lower-casing is all there is to do.
        guard hasUppercaseASCII else { return text }
        return String(unsafeUninitializedCapacity: text.utf8.count) { buffer in
            var count = 0
            for byte in text.utf8 {
                buffer[count] = (byte >= 0x41 && byte <= 0x5A) ? byte + 0x20 : byte
                count += 1
            }
            return count
        }
    }

    /// `text` with its characters in reverse order: a suffix of a text is a
    /// prefix of its backwards form.
    package static func backwards(_ text: String) -> String {
        String(text.reversed())
    }

    /// Folded text compared by code point (an order every store can keep).
    package static func compareFolded(_ lhs: String, _ rhs: String) -> ComparisonResult {
        let left = fold(lhs).utf8, right = fold(rhs).utf8
        if left.elementsEqual(right) { return .orderedSame }
        return left.lexicographicallyPrecedes(right) ? .orderedAscending : .orderedDescending
    }
}
