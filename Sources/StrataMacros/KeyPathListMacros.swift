import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `#Unique<Model>([\.a, \.b], …)`: declares compound uniqueness constraints, as
/// `public static var uniquenessConstraints: [[String]] { [["a", "b"], …] }`.
public struct UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        [try KeyPathLists.declaration(named: "uniquenessConstraints", from: node)]
    }
}

/// `#Index<Model>([\.a], [\.b, \.c], …)`: declares extra indexes, as
/// `public static var indexes: [[String]] { [["a"], ["b", "c"], …] }`.
public struct IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        [try KeyPathLists.declaration(named: "indexes", from: node)]
    }
}

/// Reads the key path arrays of `#Unique` and `#Index` as lists of property names.
enum KeyPathLists {
    /// `public static var <name>: [[String]] { … }` with one list of names per array argument.
    static func declaration(named name: String, from node: some FreestandingMacroExpansionSyntax) throws -> DeclSyntax {
        let lists = try node.arguments.map { try propertyNames(in: $0.expression) }
        return "public static var \(raw: name): [[String]] { \(literal: lists) }"
    }

    /// `[\.title, \Book.year, \.name.folded]` → `["title", "year", "name.folded"]`: the
    /// property components of each key path, joined by dots.
    static func propertyNames(in expression: ExprSyntax) throws -> [String] {
        guard let array = expression.as(ArrayExprSyntax.self), !array.elements.isEmpty else {
            throw DiagnosticsError(diagnostics: [Diagnostic(node: expression, message: StrataDiagnostic.keyPathListExpected)])
        }
        return try array.elements.map { element in
            let components = element.expression.as(KeyPathExprSyntax.self)?.components.map { component -> String? in
                guard case .property(let property) = component.component else { return nil }
                return property.declName.baseName.unescapedName
            }
            guard let components, !components.isEmpty, !components.contains(nil) else {
                throw DiagnosticsError(diagnostics: [
                    Diagnostic(node: element.expression, message: StrataDiagnostic.keyPathListExpected),
                ])
            }
            return components.compactMap { $0 }.joined(separator: ".")
        }
    }
}
