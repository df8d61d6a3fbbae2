import Foundation

// Matching text regardless of case and diacritics, on every platform, in
// predicates and in plain Swift alike. Foundation's `#Predicate` accepts
// property access on any value, so `folded` and `backwards` are properties:
// stores translate them, and unsaved objects evaluate them as written.

extension String {
    /// This text with case and diacritics folded away, for matching:
    /// `"Straße".folded == "STRASSE".folded` and `"ÉCOLE".folded == "ecole"`.
    /// Compare it with another folded text, in a predicate or anywhere else.
    ///
    /// ```swift
    /// let query = "ecole".folded
    /// let equal    = #Predicate<School> { $0.name.folded == query }
    /// let prefix   = #Predicate<School> { $0.name.folded.starts(with: query) }
    /// let contains = #Predicate<School> { $0.name.folded.contains(query) }
    /// let suffix   = #Predicate<School> { $0.name.folded.backwards.starts(with: query.backwards) }
    /// ```
    ///
    /// Folding is Unicode case folding (`ß` matches `ss`, `İ` matches `i`)
    /// with combining marks removed, the same on Linux and Apple platforms and
    /// in every store, with no locale.
    public var folded: String { TextFolding.fold(self) }

    /// This text with its characters in reverse order. A text ends with
    /// another when its backwards form starts with the other's, which is how
    /// a predicate asks for a suffix (`#Predicate` has no `hasSuffix`).
    ///
    /// ```swift
    /// let suffix = #Predicate<Book> { $0.title.folded.backwards.starts(with: "COLE".folded.backwards) }
    /// ```
    public var backwards: String { TextFolding.backwards(self) }
}

/// Whether one text contains another regardless of case and diacritics:
/// what `localizedStandardContains` means in a `#Predicate` run by Strata.
///
/// Foundation provides `localizedStandardContains` to predicates on Apple
/// platforms only; Strata provides it everywhere else, with the meaning of
/// ``Swift/String/folded``, and gives Foundation's the same meaning in its
/// stores, so a predicate matches the same objects on every platform.
///
/// ```swift
/// let matches = #Predicate<Book> { $0.title.localizedStandardContains("ecole") }
/// ```
public struct FoldedTextContains<Root: StandardPredicateExpression<String>, Other: StandardPredicateExpression<String>>:
    StandardPredicateExpression {
    public typealias Output = Bool

    public let root: Root
    public let other: Other

    public init(root: Root, other: Other) {
        self.root = root
        self.other = other
    }

    public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
        try Self.matches(root.evaluate(bindings), other.evaluate(bindings))
    }

    /// Containment of the folded texts, by code point, as stores test it.
    static func matches(_ text: String, _ part: String) -> Bool {
        TextFolding.fold(text).unicodeScalars.containsScalars(TextFolding.fold(part).unicodeScalars)
    }
}

#if !canImport(Darwin)
extension PredicateExpressions {
    /// `localizedStandardContains` in a `#Predicate`, where Foundation has none.
    public static func build_localizedStandardContains<Root, Other>(
        _ root: Root, _ other: Other
    ) -> FoldedTextContains<Root, Other> {
        FoldedTextContains(root: root, other: other)
    }
}
#endif

extension String.UnicodeScalarView {
    /// Whether `part` occurs in this text, by code point (the meaning stores give containment).
    func containsScalars(_ part: String.UnicodeScalarView) -> Bool {
        guard let first = part.first else { return true }
        var start = startIndex
        while let found = self[start...].firstIndex(of: first) {
            if self[found...].starts(with: part) { return true }
            start = index(after: found)
        }
        return false
    }
}
