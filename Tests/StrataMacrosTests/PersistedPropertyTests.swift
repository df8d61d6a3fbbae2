import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@_PersistedProperty expansion")
struct PersistedPropertyTests {
    /// A declared type and the `as:` argument it must give.
    struct TypeCase: CustomTestStringConvertible, Sendable {
        let declared: String
        let metatype: String
        var testDescription: String { "\(declared) → \(metatype)" }
    }

    static let typeCases: [TypeCase] = [
        TypeCase(declared: "String", metatype: "String.self"),
        TypeCase(declared: "Double?", metatype: "Optional<Double>.self"),
        TypeCase(declared: "Int!", metatype: "Optional<Int>.self"),
        TypeCase(declared: "[Book]", metatype: "Array<Book>.self"),
        TypeCase(declared: "[String: Int]", metatype: "Dictionary<String, Int>.self"),
        TypeCase(declared: "[String: [Int?]]", metatype: "Dictionary<String, Array<Optional<Int>>>.self"),
        TypeCase(declared: "Outer.Inner", metatype: "Outer.Inner.self"),
        TypeCase(declared: "[Outer.Inner]?", metatype: "Optional<Array<Outer.Inner>>.self"),
        TypeCase(declared: "Set<Int?>", metatype: "Set<Optional<Int>>.self"),
        TypeCase(declared: "Box<[String]>.Item?", metatype: "Optional<Box<Array<String>>.Item>.self"),
        TypeCase(declared: "Swift.Optional<Date>", metatype: "Swift.Optional<Date>.self"),
        TypeCase(declared: "(Int)", metatype: "Int.self"),
        TypeCase(declared: "any Codable & Sendable", metatype: "(any Codable & Sendable).self"),
    ]

    @Test("the as: argument names the declared type as a valid expression", arguments: typeCases)
    func asArgumentSpellsTheDeclaredType(_ typeCase: TypeCase) {
        assertStrataExpansion(
            """
            @_PersistedProperty(ordinal: 2)
            var value: \(typeCase.declared)
            """,
            expandedSource: """
            var value: \(typeCase.declared) {
                @storageRestrictions(accesses: _$persistentBacking, initializes: _value)
                init(initialValue) {
                    ModelBacking.resolve(&_$persistentBacking, for: Self.self)
                        .setInitialValue(initialValue, at: 2, as: \(typeCase.metatype))
                    _value = PersistedPropertyStorage()
                }
                get {
                    persistentValue(at: 2, as: \(typeCase.metatype))
                }
                set {
                    setPersistentValue(newValue, at: 2, as: \(typeCase.metatype))
                }
            }

            private var _value: PersistedPropertyStorage
            """)
    }

    @Test func aTransformableAttributeReadsAndWritesThroughItsTransformer() {
        assertStrataExpansion(
            """
            @_PersistedProperty(ordinal: 1)
            @Attribute(.unique, .transformable(by: ColorTransformer.self))
            var accent: Color?
            """,
            expandedSource: """
            var accent: Color? {
                @storageRestrictions(accesses: _$persistentBacking, initializes: _accent)
                init(initialValue) {
                    ModelBacking.resolve(&_$persistentBacking, for: Self.self)
                        .setInitialValue(initialValue, at: 1, as: Optional<Color>.self, by: ColorTransformer.self)
                    _accent = PersistedPropertyStorage()
                }
                get {
                    persistentValue(at: 1, as: Optional<Color>.self, by: ColorTransformer.self)
                }
                set {
                    setPersistentValue(newValue, at: 1, as: Optional<Color>.self, by: ColorTransformer.self)
                }
            }

            private var _accent: PersistedPropertyStorage
            """)
    }

    @Test func computedPropertyIsLeftAlone() {
        assertStrataExpansion(
            """
            @_PersistedProperty(ordinal: 0)
            var twice: Int { 2 }
            """,
            expandedSource: """
            var twice: Int { 2 }
            """)
    }

    @Test func missingOrdinalLiteralIsAnError() {
        assertStrataExpansion(
            """
            @_PersistedProperty(ordinal: n)
            var name: String
            """,
            expandedSource: """
            var name: String
            """,
            diagnostics: [
                DiagnosticSpec(message: "@_PersistedProperty needs an integer literal ordinal", line: 1, column: 1),
                DiagnosticSpec(message: "@_PersistedProperty needs an integer literal ordinal", line: 1, column: 1),
            ])
    }

    @Test func propertyWithoutTypeIsAnError() {
        assertStrataExpansion(
            """
            @_PersistedProperty(ordinal: 0)
            var name = ""
            """,
            expandedSource: """
            var name = ""
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Model properties need an explicit type, e.g. `var year: Int = 0`", line: 2, column: 5),
                DiagnosticSpec(
                    message: "@Model properties need an explicit type, e.g. `var year: Int = 0`", line: 2, column: 5),
            ])
    }

    @Test func markerMacrosExpandToNothing() {
        assertStrataExpansion(
            #"""
            @Attribute(.unique) @Relationship(inverse: \A.b) @Transient
            var name: String = ""
            """#,
            expandedSource: """
            var name: String = ""
            """)
    }
}
