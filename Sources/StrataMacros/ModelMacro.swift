import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: makes a class a persistent model.
///
/// - memberAttribute: marks each persistent property `@_PersistedProperty(ordinal: N)`,
///   numbering the persistent properties in declaration order.
/// - member: adds `persistentBacking`, `schemaProperties` and `init(backing:)`, and reports
///   the members that cannot be persistent as written.
/// - extension: adds `extension Model: PersistentModel {}` unless the class already adopts it.
public struct ModelMacro {}

extension ModelMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: StrataDiagnostic.modelNotAClass))
            return []
        }
        let scan = ModelScan(members: classDecl.memberBlock.members)
        for diagnostic in scan.diagnostics {
            context.diagnose(diagnostic)
        }
        let modelName = classDecl.name.trimmed.text
        return backingDecls(modelName: modelName) + [
            schemaDecl(scan.properties, modelName: modelName),
            initDecl(scan.properties),
        ]
    }

    /// The backing lives in an optional that starts empty, so an object made for a
    /// fetched row (`init(backing:)`) creates no backing to throw away; a new
    /// object creates its own with its first initial value (or first use).
    private static func backingDecls(modelName: String) -> [DeclSyntax] {
        [
            "private var _$persistentBacking: ModelBacking? = nil",
            """
            public var persistentBacking: ModelBacking {
                if let backing = _$persistentBacking {
                    return backing
                }
                return ModelBacking.resolve(&_$persistentBacking, for: \(raw: modelName).self)
            }
            """,
        ]
    }

    private static func schemaDecl(_ properties: [PersistentProperty], modelName: String) -> DeclSyntax {
        guard !properties.isEmpty else {
            return "public static let schemaProperties: [PropertyMetadata] = []"
        }
        let entries = properties.map { "    " + SchemaEntry.source(for: $0, modelName: modelName) + "," }
        return """
            public static let schemaProperties: [PropertyMetadata] = [
            \(raw: entries.joined(separator: "\n"))
            ]
            """
    }

    private static func initDecl(_ properties: [PersistentProperty]) -> DeclSyntax {
        let lines = properties.map { "    self.\($0.storageName) = PersistedPropertyStorage()" }
            + ["    self._$persistentBacking = backing"]
        return """
            public required init(backing: ModelBacking) {
            \(raw: lines.joined(separator: "\n"))
            }
            """
    }
}

extension ModelMacro: MemberAttributeMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self),
            let variable = member.as(VariableDeclSyntax.self),
            variable.attribute(named: "_PersistedProperty") == nil,
            let property = ModelScan(members: classDecl.memberBlock.members).property(declaredBy: variable)
        else { return [] }
        return ["@_PersistedProperty(ordinal: \(literal: property.ordinal))"]
    }
}

extension ModelMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self), !protocols.isEmpty,
            !adoptsPersistentModel(declaration)
        else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): PersistentModel {}")]
    }

    /// Whether the inheritance clause already names `PersistentModel` (the compiler leaves it
    /// out of `protocols` then; this also covers expansion without type checking).
    private static func adoptsPersistentModel(_ declaration: some DeclGroupSyntax) -> Bool {
        let inherited = declaration.inheritanceClause?.inheritedTypes ?? []
        return inherited.contains { inheritedType in
            let type = inheritedType.type
            if let member = type.as(MemberTypeSyntax.self) {
                return member.name.text == "PersistentModel"
            }
            return type.trimmedDescription == "PersistentModel"
        }
    }
}
