import SwiftSyntax

extension AttributeSyntax {
    /// The attribute's name without any module qualification (`Strata.Attribute` → `Attribute`).
    var simpleName: String {
        if let member = attributeName.as(MemberTypeSyntax.self) {
            return member.name.text
        }
        return attributeName.trimmedDescription
    }

    /// The arguments written in parentheses, if any.
    var argumentList: LabeledExprListSyntax {
        arguments?.as(LabeledExprListSyntax.self) ?? []
    }
}

extension VariableDeclSyntax {
    /// The attribute named `name` (module qualification ignored), if the declaration has one.
    func attribute(named name: String) -> AttributeSyntax? {
        for element in attributes {
            if case .attribute(let attribute) = element, attribute.simpleName == name {
                return attribute
            }
        }
        return nil
    }

    /// Whether the declaration carries the modifier spelled `keyword`.
    func hasModifier(_ keyword: Keyword) -> Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(keyword) }
    }

    /// Whether the declaration is `static` or `class`.
    var isTypeMember: Bool { hasModifier(.static) || hasModifier(.class) }
}

extension PatternBindingSyntax {
    /// Whether the binding has accessors that make it computed (a getter, setter, `_read`, …),
    /// as opposed to none or only `willSet`/`didSet` observers.
    var isComputed: Bool {
        guard let accessorBlock else { return false }
        switch accessorBlock.accessors {
        case .getter:
            return true
        case .accessors(let accessors):
            return accessors.contains { !$0.isObserver }
        }
    }

    /// Whether the binding has `willSet` or `didSet` observers.
    var hasObservers: Bool {
        guard case .accessors(let accessors)? = accessorBlock?.accessors else { return false }
        return accessors.contains { $0.isObserver }
    }
}

extension AccessorDeclSyntax {
    /// Whether this is a `willSet` or `didSet` observer.
    var isObserver: Bool {
        switch accessorSpecifier.tokenKind {
        case .keyword(.willSet), .keyword(.didSet): true
        default: false
        }
    }
}

extension TokenSyntax {
    /// The identifier's name without backticks (`` `default` `` → `default`).
    var unescapedName: String {
        identifier?.name ?? text
    }
}

extension TypeSyntax {
    /// Whether the type is spelled as an optional (`T?`, `T!` or `Optional<T>`).
    var isOptionalSpelling: Bool {
        if self.is(OptionalTypeSyntax.self) || self.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return true
        }
        if let identifier = self.as(IdentifierTypeSyntax.self) {
            return identifier.name.text == "Optional" && identifier.genericArgumentClause != nil
        }
        if let member = self.as(MemberTypeSyntax.self) {
            return member.baseType.trimmedDescription == "Swift" && member.name.text == "Optional"
        }
        return false
    }
}
