import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that vends Strata's macro implementations.
@main
struct StrataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ModelMacro.self,
        PersistedPropertyMacro.self,
        MarkerMacro.self,
        UniqueMacro.self,
        IndexMacro.self,
        ProjectionMacro.self,
    ]
}
