import SwiftSyntax

/// Writes a type as an expression that names it, for `T.self` arguments.
///
/// Sugared spellings are written out (`Double?` → `Optional<Double>`, `[Book]` →
/// `Array<Book>`, `[String: Int]` → `Dictionary<String, Int>`) so that `.self` can follow
/// them; types that have no such spelling (`any P`, function types, …) are parenthesized.
enum TypeExpression {
    /// The source text of the expression `T.self` for `type`.
    static func metatype(of type: TypeSyntax) -> String {
        spelling(of: type) + ".self"
    }

    /// The type written so that it can stand before `.self`.
    static func spelling(of type: TypeSyntax) -> String {
        if let optional = type.as(OptionalTypeSyntax.self) {
            return "Optional<\(spelling(of: optional.wrappedType))>"
        }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return "Optional<\(spelling(of: unwrapped.wrappedType))>"
        }
        if let array = type.as(ArrayTypeSyntax.self) {
            return "Array<\(spelling(of: array.element))>"
        }
        if let dictionary = type.as(DictionaryTypeSyntax.self) {
            return "Dictionary<\(spelling(of: dictionary.key)), \(spelling(of: dictionary.value))>"
        }
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return identifier.name.text + genericArguments(identifier.genericArgumentClause)
        }
        if let member = type.as(MemberTypeSyntax.self) {
            return spelling(of: member.baseType) + "." + member.name.text
                + genericArguments(member.genericArgumentClause)
        }
        if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1,
            let element = tuple.elements.first, element.firstName == nil, element.ellipsis == nil
        {
            return spelling(of: element.type)
        }
        return "(\(type.trimmedDescription))"
    }

    private static func genericArguments(_ clause: GenericArgumentClauseSyntax?) -> String {
        guard let clause else { return "" }
        let arguments = clause.arguments.map { argument in
            switch argument.argument {
            case .type(let type): spelling(of: type)
            case .expr(let expression): expression.trimmedDescription
            }
        }
        return "<" + arguments.joined(separator: ", ") + ">"
    }
}
