/// `a Book`, `an Author`: a name with the indefinite article English gives
/// it by its first letter (names are identifiers, read letter by letter).
///
/// ```swift
/// "\(withArticle("Author")) cannot be deleted"   // "an Author cannot be deleted"
/// ```
package func withArticle(_ name: String) -> String {
    guard let first = name.first?.lowercased() else { return name }
    return ("aeiou".contains(first) ? "an " : "a ") + name
}
