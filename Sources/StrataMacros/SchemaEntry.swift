import SwiftSyntax

/// Writes the `schemaProperties` entry of one persistent property:
/// `.property("name", \Model.name, <options from @Attribute or @Relationship>)`.
enum SchemaEntry {
    /// The labels of `@Relationship`'s parameters, in declaration order.
    static let relationshipLabels = [
        "deleteRule", "inverse", "minimumModelCount", "maximumModelCount", "originalName",
    ]

    /// The source text of the entry for `property` of the model type named `modelName`.
    /// A declared initial value (`var priority: Int = 3`) goes along as
    /// `defaultValue:`, for migration to give rows stored before the property.
    static func source(for property: PersistentProperty, modelName: String) -> String {
        var arguments = [
            "\"\(property.name)\"",
            "\\\(modelName).\(property.identifier.text)",
        ]
        if let transformer = transformer(of: property.declaration) {
            arguments.append("transformer: \(transformer)")
        }
        arguments += optionArguments(of: property.declaration)
        if let initial = property.declaration.bindings.first?.initializer?.value {
            arguments.append("defaultValue: \(initial.trimmedDescription)")
        }
        return ".property(" + arguments.joined(separator: ", ") + ")"
    }

    /// The labelled arguments that carry the property's `@Attribute` or `@Relationship` options.
    static func optionArguments(of declaration: VariableDeclSyntax) -> [String] {
        var arguments: [String] = []
        if let attribute = declaration.attribute(named: "Attribute") {
            arguments += attributeArguments(attribute.argumentList)
        }
        if let relationship = declaration.attribute(named: "Relationship") {
            arguments += relationshipArguments(relationship.argumentList)
        }
        return arguments
    }

    /// The transformer `@Attribute(.transformable(by: X.self))` names (`X.self`), if any.
    static func transformer(of declaration: VariableDeclSyntax) -> String? {
        guard let attribute = declaration.attribute(named: "Attribute") else { return nil }
        for argument in attribute.argumentList where argument.label == nil {
            guard let call = argument.expression.as(FunctionCallExprSyntax.self),
                let member = call.calledExpression.as(MemberAccessExprSyntax.self),
                member.declName.baseName.text == "transformable",
                let by = call.arguments.first(where: { $0.label?.text == "by" })
            else { continue }
            return by.expression.trimmedDescription
        }
        return nil
    }

    /// `@Attribute(.unique, .externalStorage, originalName: "x")` →
    /// `options: [.unique, .externalStorage]`, `originalName: "x"`.
    private static func attributeArguments(_ list: LabeledExprListSyntax) -> [String] {
        let options = list.filter { $0.label == nil }.map(\.expression.trimmedDescription)
        var arguments: [String] = []
        if !options.isEmpty {
            arguments.append("options: [" + options.joined(separator: ", ") + "]")
        }
        for argument in list {
            if let label = argument.label?.text {
                arguments.append("\(label): \(argument.expression.trimmedDescription)")
            }
        }
        return arguments
    }

    /// Each labelled argument of `@Relationship(...)`, verbatim, in parameter order.
    private static func relationshipArguments(_ list: LabeledExprListSyntax) -> [String] {
        let labelled = list.compactMap { argument in
            argument.label.map { (label: $0.text, expression: argument.expression.trimmedDescription) }
        }
        return labelled
            .sorted { rank($0.label) < rank($1.label) }
            .map { "\($0.label): \($0.expression)" }
    }

    private static func rank(_ label: String) -> Int {
        relationshipLabels.firstIndex(of: label) ?? relationshipLabels.count
    }
}
