import SwiftDiagnostics

/// The errors and Fix-Its that Strata's macros report.
enum StrataDiagnostic: String, DiagnosticMessage {
    case modelNotAClass
    case missingTypeAnnotation
    case persistentLet
    case multipleBindings
    case propertyObservers
    case transientWithoutInitialValue
    case keyPathListExpected
    case projectionNotAStruct
    case projectionModelExpected
    case projectionMultipleBindings
    case projectionMissingTypeAnnotation

    var message: String {
        switch self {
        case .modelNotAClass:
            "@Model can only be applied to a class"
        case .missingTypeAnnotation:
            "@Model properties need an explicit type, e.g. `var year: Int = 0`"
        case .persistentLet:
            "persistent properties of a @Model class must be mutable; use var instead of let, "
                + "or mark the property @Transient"
        case .multipleBindings:
            "declare each persistent property of a @Model class with its own var, "
                + "e.g. `var a: Int` and `var b: Int` instead of `var a, b: Int`"
        case .propertyObservers:
            "persistent properties of a @Model class cannot have willSet or didSet observers"
        case .transientWithoutInitialValue:
            "@Transient properties need an initial value, e.g. `@Transient var isExpanded = false`"
        case .keyPathListExpected:
            "expected array literals of key paths, e.g. `[\\.title, \\.year]`"
        case .projectionNotAStruct:
            "@Projection can only be applied to a struct"
        case .projectionModelExpected:
            "@Projection needs the model it reads, e.g. `@Projection(of: Book.self)`"
        case .projectionMultipleBindings:
            "declare each property of a projection with its own let or var, "
                + "e.g. `let a: Int` and `let b: Int` instead of `let a, b: Int`"
        case .projectionMissingTypeAnnotation:
            "projection properties need an explicit type, e.g. `let year: Int`"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "StrataMacros", id: rawValue) }

    var severity: DiagnosticSeverity { .error }
}

/// The message of a Fix-It that Strata's macros offer.
struct StrataFixItMessage: FixItMessage {
    let message: String
    let id: String

    var fixItID: MessageID { MessageID(domain: "StrataMacros", id: id) }

    static let replaceLetWithVar = StrataFixItMessage(message: "replace 'let' with 'var'", id: "replaceLetWithVar")
}
