import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty(ordinal: N)`: routes one stored property of a `@Model` class through
/// the model's `persistentBacking`.
///
/// - accessor: an `init` accessor that gives the backing the initial value, and a getter and
///   setter that read and write the value at ordinal `N`.
/// - peer: `private var _name: PersistedPropertyStorage`, the stand-in storage the `init` accessor
///   initializes so that definite initialization can track the property.
public struct PersistedPropertyMacro {}

extension PersistedPropertyMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let property = try PersistedProperty(node, declaration) else { return [] }
        let ordinal = property.ordinal
        // A transformer goes along with the type: `as: Color.self, by: ColorTransformer.self`.
        let type = TypeExpression.metatype(of: property.type) + (property.transformer.map { ", by: " + $0 } ?? "")
        return [
            """
            @storageRestrictions(accesses: _$persistentBacking, initializes: \(raw: property.storageName))
            init(initialValue) {
                ModelBacking.resolve(&_$persistentBacking, for: Self.self)
                    .setInitialValue(initialValue, at: \(literal: ordinal), as: \(raw: type))
                \(raw: property.storageName) = PersistedPropertyStorage()
            }
            """,
            "get { persistentValue(at: \(literal: ordinal), as: \(raw: type)) }",
            "set { setPersistentValue(newValue, at: \(literal: ordinal), as: \(raw: type)) }",
        ]
    }
}

extension PersistedPropertyMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let property = try PersistedProperty(node, declaration) else { return [] }
        return ["private var \(raw: property.storageName): PersistedPropertyStorage"]
    }
}

/// What `@_PersistedProperty` needs to know about the property it is attached to.
private struct PersistedProperty {
    let storageName: String
    let type: TypeSyntax
    let ordinal: Int
    /// The transformer of `@Attribute(.transformable(by:))`, as written.
    let transformer: String?

    /// Reads the property; `nil` for declarations it leaves alone (computed properties),
    /// throws for ones it cannot handle.
    init?(_ attribute: AttributeSyntax, _ declaration: some DeclSyntaxProtocol) throws {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            variable.bindings.count == 1, let binding = variable.bindings.first,
            let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
        else {
            throw MacroExpansionErrorMessage("@_PersistedProperty applies to a single stored property")
        }
        if binding.isComputed { return nil }
        guard let type = binding.typeAnnotation?.type else {
            throw DiagnosticsError(diagnostics: [
                Diagnostic(node: pattern, message: StrataDiagnostic.missingTypeAnnotation),
            ])
        }
        guard let argument = attribute.argumentList.first(where: { $0.label?.text == "ordinal" }),
            let literal = argument.expression.as(IntegerLiteralExprSyntax.self),
            let ordinal = Int(literal.literal.text)
        else {
            throw MacroExpansionErrorMessage("@_PersistedProperty needs an integer literal ordinal")
        }
        self.storageName = "_" + pattern.identifier.unescapedName
        self.type = type.trimmed
        self.ordinal = ordinal
        self.transformer = variable.attribute(named: "Attribute") != nil ? SchemaEntry.transformer(of: variable) : nil
    }
}
