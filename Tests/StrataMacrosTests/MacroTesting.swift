import StrataMacros
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros as `Strata` declares them, by the names the tests write.
let strataMacros: [String: MacroSpec] = [
    "Model": MacroSpec(
        type: ModelMacro.self,
        conformances: [TypeSyntax(IdentifierTypeSyntax(name: .identifier("PersistentModel")))]),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "Attribute": MacroSpec(type: MarkerMacro.self),
    "Relationship": MacroSpec(type: MarkerMacro.self),
    "Transient": MacroSpec(type: MarkerMacro.self),
    "Unique": MacroSpec(type: UniqueMacro.self),
    "Index": MacroSpec(type: IndexMacro.self),
    "Projection": MacroSpec(
        type: ProjectionMacro.self,
        conformances: [TypeSyntax(IdentifierTypeSyntax(name: .identifier("ModelProjection")))]),
]

/// Expands Strata's macros in `source` and records an issue for each difference from
/// `expandedSource` and `diagnostics`.
func assertStrataExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    macros: [String: MacroSpec] = strataMacros,
    fixedSource: String? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: macros,
        fixedSource: fixedSource,
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: SourceLocation(
                    fileID: failure.location.fileID, filePath: failure.location.filePath,
                    line: failure.location.line, column: failure.location.column))
        },
        fileID: fileID, filePath: filePath, line: line, column: column)
}
