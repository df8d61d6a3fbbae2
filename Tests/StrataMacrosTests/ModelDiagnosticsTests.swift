import StrataMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

private let modelOnly = strataMacros.filter { $0.key != "_PersistedProperty" }

/// What `@Model` expands `class <name> { <members> }` to when none of the members is persistent.
private func modelWithoutPersistentProperties(_ name: String, members: String) -> String {
    """
    final class \(name) {
    \(members)

        private var _$persistentBacking: ModelBacking? = nil

        public var persistentBacking: ModelBacking {
            if let backing = _$persistentBacking {
                return backing
            }
            return ModelBacking.resolve(&_$persistentBacking, for: \(name).self)
        }

        public static let schemaProperties: [PropertyMetadata] = []

        public required init(backing: ModelBacking) {
            self._$persistentBacking = backing
        }
    }

    extension \(name): PersistentModel {
    }
    """
}

@Suite("@Model diagnostics")
struct ModelDiagnosticsTests {
    @Test("@Model on a type that is not a class is an error", arguments: ["struct", "enum", "actor"])
    func modelOnNonClassIsAnError(_ kind: String) {
        assertStrataExpansion(
            """
            @Model \(kind) Point {
                var x: Int = 0
            }
            """,
            expandedSource: """
            \(kind) Point {
                var x: Int = 0
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@Model can only be applied to a class", line: 1, column: 1)],
            macros: modelOnly)
    }

    @Test func persistentPropertyWithoutTypeAnnotationIsAnError() {
        assertStrataExpansion(
            """
            @Model final class Counter {
                var count = 0
            }
            """,
            expandedSource: modelWithoutPersistentProperties("Counter", members: "    var count = 0"),
            diagnostics: [
                DiagnosticSpec(
                    message: "@Model properties need an explicit type, e.g. `var year: Int = 0`", line: 2, column: 9),
            ],
            macros: modelOnly)
    }

    @Test func persistentLetIsAnErrorWithFixItToVar() {
        assertStrataExpansion(
            """
            @Model final class Counter {
                let id: Int = 0
            }
            """,
            expandedSource: modelWithoutPersistentProperties("Counter", members: "    let id: Int = 0"),
            diagnostics: [
                DiagnosticSpec(
                    message: "persistent properties of a @Model class must be mutable; use var instead of let, "
                        + "or mark the property @Transient",
                    line: 2, column: 5, fixIts: [FixItSpec(message: "replace 'let' with 'var'")]),
            ],
            macros: modelOnly,
            fixedSource: """
            @Model final class Counter {
                var id: Int = 0
            }
            """)
    }

    @Test func severalVariablesInOnePersistentDeclarationAreAnError() {
        assertStrataExpansion(
            """
            @Model final class Pair {
                var a, b: Int
            }
            """,
            expandedSource: modelWithoutPersistentProperties("Pair", members: "    var a, b: Int"),
            diagnostics: [
                DiagnosticSpec(
                    message: "declare each persistent property of a @Model class with its own var, "
                        + "e.g. `var a: Int` and `var b: Int` instead of `var a, b: Int`",
                    line: 2, column: 9),
            ],
            macros: modelOnly)
    }

    @Test func propertyObserversOnPersistentPropertyAreAnError() {
        assertStrataExpansion(
            """
            @Model final class Counter {
                var n: Int = 0 { didSet { print(n) } }
            }
            """,
            expandedSource: modelWithoutPersistentProperties(
                "Counter", members: "    var n: Int = 0 { didSet { print(n) } }"),
            diagnostics: [
                DiagnosticSpec(
                    message: "persistent properties of a @Model class cannot have willSet or didSet observers",
                    line: 2, column: 20),
            ],
            macros: modelOnly)
    }

    @Test func transientPropertyWithoutInitialValueIsAnErrorUnlessOptional() {
        assertStrataExpansion(
            """
            @Model final class Cache {
                @Transient var entries: [Int]
                @Transient var note: String?
            }
            """,
            expandedSource: modelWithoutPersistentProperties(
                "Cache", members: "    var entries: [Int]\n    var note: String?"),
            diagnostics: [
                DiagnosticSpec(
                    message: "@Transient properties need an initial value, e.g. `@Transient var isExpanded = false`",
                    line: 2, column: 20),
            ],
            macros: modelOnly)
    }

    @Test func validPropertiesKeepTheirOrdinalsWhenAnotherIsRejected() {
        assertStrataExpansion(
            """
            @Model final class Mixed {
                var bad = 1
                var good: Int = 2
            }
            """,
            expandedSource: #"""
            final class Mixed {
                var bad = 1
                @_PersistedProperty(ordinal: 0)
                var good: Int = 2

                private var _$persistentBacking: ModelBacking? = nil

                public var persistentBacking: ModelBacking {
                    if let backing = _$persistentBacking {
                        return backing
                    }
                    return ModelBacking.resolve(&_$persistentBacking, for: Mixed.self)
                }

                public static let schemaProperties: [PropertyMetadata] = [
                    .property("good", \Mixed.good, defaultValue: 2),
                ]

                public required init(backing: ModelBacking) {
                    self._good = PersistedPropertyStorage()
                    self._$persistentBacking = backing
                }
            }

            extension Mixed: PersistentModel {
            }
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Model properties need an explicit type, e.g. `var year: Int = 0`", line: 2, column: 9),
            ],
            macros: modelOnly)
    }
}
