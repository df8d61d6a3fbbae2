import SwiftDiagnostics
import SwiftSyntax

/// One persistent property of a `@Model` class, as `@Model` found it.
struct PersistentProperty {
    /// The property's name without backticks; the schema uses it.
    let name: String
    /// The name as written, for key paths (keeps backticks).
    let identifier: TokenSyntax
    /// The declared type.
    let type: TypeSyntax
    /// The position among the persistent properties, in declaration order.
    let ordinal: Int
    /// The declaration, with its `@Attribute` or `@Relationship` options.
    let declaration: VariableDeclSyntax

    /// The name of the peer that stands in for the property's storage.
    var storageName: String { "_" + name }
}

/// The persistent properties of a `@Model` class and the problems found in its members.
///
/// Persistent properties are the stored `var`s that are not `static`/`class`, not `lazy`
/// and not `@Transient`. Computed properties are ignored.
struct ModelScan {
    private(set) var properties: [PersistentProperty] = []
    private(set) var diagnostics: [Diagnostic] = []

    init(members: MemberBlockItemListSyntax) {
        for item in members {
            if let variable = item.decl.as(VariableDeclSyntax.self) {
                scan(variable)
            }
        }
    }

    /// The persistent property declared by `variable`, if it is one and is well formed.
    func property(declaredBy variable: VariableDeclSyntax) -> PersistentProperty? {
        guard variable.bindings.count == 1,
            let pattern = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)
        else { return nil }
        let name = pattern.identifier.unescapedName
        return properties.first { $0.name == name }
    }

    private mutating func scan(_ variable: VariableDeclSyntax) {
        if variable.isTypeMember || variable.hasModifier(.lazy) { return }
        if variable.bindings.allSatisfy(\.isComputed) { return }
        if variable.attribute(named: "Transient") != nil {
            checkTransient(variable)
            return
        }
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            diagnose(variable.bindingSpecifier, .persistentLet, fixIts: [replaceLetWithVar(variable.bindingSpecifier)])
            return
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
            let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
        else {
            diagnose(variable.bindings, .multipleBindings)
            return
        }
        if binding.hasObservers, let accessorBlock = binding.accessorBlock {
            diagnose(accessorBlock, .propertyObservers)
            return
        }
        guard let type = binding.typeAnnotation?.type else {
            diagnose(pattern, .missingTypeAnnotation)
            return
        }
        properties.append(PersistentProperty(
            name: pattern.identifier.unescapedName, identifier: pattern.identifier.trimmed,
            type: type.trimmed, ordinal: properties.count, declaration: variable))
    }

    /// `init(backing:)` skips transient properties, so each needs a value of its own.
    private mutating func checkTransient(_ variable: VariableDeclSyntax) {
        let isVar = variable.bindingSpecifier.tokenKind == .keyword(.var)
        for binding in variable.bindings where binding.initializer == nil && !binding.isComputed {
            if isVar, binding.typeAnnotation?.type.isOptionalSpelling == true { continue }
            diagnose(binding.pattern, .transientWithoutInitialValue)
        }
    }

    private mutating func diagnose(
        _ node: some SyntaxProtocol, _ message: StrataDiagnostic, fixIts: [FixIt] = []
    ) {
        diagnostics.append(Diagnostic(node: node, message: message, fixIts: fixIts))
    }

    private func replaceLetWithVar(_ specifier: TokenSyntax) -> FixIt {
        FixIt(
            message: StrataFixItMessage.replaceLetWithVar,
            changes: [.replace(oldNode: Syntax(specifier), newNode: Syntax(specifier.with(\.tokenKind, .keyword(.var))))])
    }
}
