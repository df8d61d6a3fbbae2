import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Projection(of: Model.self)`: makes a struct a `ModelProjection` of `Model`.
///
/// Each stored property names the model property it holds: an attribute of
/// the same type (checked by the compiler through a typed key path), or a
/// to-one relationship declared `ObjectID?` (or `ObjectID`). A property
/// `id` or `objectID` of type `ObjectID` holds the row's own ID. The
/// conformance, the key path list and `init(reading:)` go in an extension,
/// so the struct keeps its memberwise initializer.
public struct ProjectionMacro {}

extension ProjectionMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let structDecl = declaration.as(StructDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: StrataDiagnostic.projectionNotAStruct))
            return []
        }
        guard let model = modelName(node) else {
            context.diagnose(Diagnostic(node: node, message: StrataDiagnostic.projectionModelExpected))
            return []
        }
        var fields: [ProjectedField] = []
        for item in structDecl.memberBlock.members {
            guard let variable = item.decl.as(VariableDeclSyntax.self) else { continue }
            switch ProjectedField.scan(variable) {
            case .skip: continue
            case .field(let field): fields.append(field)
            case .problem(let node, let message): context.diagnose(Diagnostic(node: node, message: message))
            }
        }
        let access = accessModifier(structDecl)
        let keyPaths = fields.compactMap { $0.keyPath(model: model) }
        let list = keyPaths.isEmpty
            ? "[]" : "[\n" + keyPaths.map { "            " + $0 + "," }.joined(separator: "\n") + "\n        ]"
        // Every value is read before any property is set: a throwing
        // initializer that sets properties between calls that throw builds
        // the value aside and copies it, a retain and release per reference.
        let reads = (fields.map(\.read) + fields.map(\.assignment)).map { "        " + $0 }.joined(separator: "\n")
        let conformance = protocols.isEmpty ? "" : ": ModelProjection"
        let source: DeclSyntax = """
            extension \(type.trimmed)\(raw: conformance) {
                \(raw: access)typealias Model = \(raw: model)
                \(raw: access)static var projectedProperties: [PartialKeyPath<\(raw: model)>] {
                    \(raw: list)
                }
                \(raw: access)init(reading row: inout ProjectionRow) throws(StrataError) {
            \(raw: reads)
                }
            }
            """
        guard let extensionDecl = source.as(ExtensionDeclSyntax.self) else { return [] }
        return [extensionDecl]
    }

    /// `Book` from `of: Book.self`.
    private static func modelName(_ node: AttributeSyntax) -> String? {
        guard let argument = node.argumentList.first(where: { $0.label?.text == "of" }),
            let access = argument.expression.as(MemberAccessExprSyntax.self),
            access.declName.baseName.text == "self", let base = access.base
        else { return nil }
        return base.trimmedDescription
    }

    /// `public ` or `package ` when the struct is, so the conformance is visible as the struct is.
    private static func accessModifier(_ declaration: StructDeclSyntax) -> String {
        for modifier in declaration.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }
}

/// One stored property of a projection and how it is read.
private struct ProjectedField {
    enum Kind {
        /// The row's own ID.
        case objectID
        /// The ID a to-one relationship points to.
        case relationship
        case attribute(TypeSyntax)
    }

    enum Scan {
        case skip
        case field(ProjectedField)
        case problem(Syntax, StrataDiagnostic)
    }

    let name: String
    let identifier: String
    let type: TypeSyntax
    let kind: Kind

    static func scan(_ variable: VariableDeclSyntax) -> Scan {
        if variable.isTypeMember || variable.hasModifier(.lazy) { return .skip }
        if variable.bindings.allSatisfy(\.isComputed) { return .skip }
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
            let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
        else { return .problem(Syntax(variable.bindings), .projectionMultipleBindings) }
        // A constant with its value cannot be set by the initializer.
        if variable.bindingSpecifier.tokenKind == .keyword(.let), binding.initializer != nil { return .skip }
        guard let type = binding.typeAnnotation?.type.trimmed else {
            return .problem(Syntax(pattern), .projectionMissingTypeAnnotation)
        }
        let name = pattern.identifier.unescapedName
        let kind: Kind
        if isObjectID(type) {
            kind = name == "id" || name == "objectID" ? .objectID : .relationship
        } else if type.isOptionalSpelling, let wrapped = wrappedType(type), isObjectID(wrapped) {
            kind = .relationship
        } else {
            kind = .attribute(type)
        }
        return .field(ProjectedField(name: name, identifier: pattern.identifier.trimmed.text, type: type, kind: kind))
    }

    /// The key path that names the model's property (typed for an attribute,
    /// so the compiler checks the two types agree); nil for the row's ID.
    func keyPath(model: String) -> String? {
        switch kind {
        case .objectID: nil
        case .relationship: "\\\(model).\(identifier)"
        case .attribute(let type): "\\\(model).\(identifier) as KeyPath<\(model), \(type.trimmedDescription)>"
        }
    }

    /// The statement of `init(reading:)` that reads the value.
    var read: String {
        switch kind {
        case .objectID: "let \(identifier) = row.objectID"
        case .relationship, .attribute: "let \(identifier) = try row.next(as: \(TypeExpression.metatype(of: type)))"
        }
    }

    /// The statement of `init(reading:)` that sets the property.
    var assignment: String { "self.\(identifier) = \(identifier)" }

    private static func isObjectID(_ type: TypeSyntax) -> Bool {
        let spelling = type.trimmedDescription
        return spelling == "ObjectID" || spelling == "Strata.ObjectID" || spelling == "StrataCore.ObjectID"
    }

    private static func wrappedType(_ type: TypeSyntax) -> TypeSyntax? {
        if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return unwrapped.wrappedType }
        if let identifier = type.as(IdentifierTypeSyntax.self), let argument = identifier.genericArgumentClause?.arguments.first,
            case .type(let wrapped) = argument.argument
        {
            return wrapped
        }
        return nil
    }
}
