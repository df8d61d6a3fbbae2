import StrataMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@Model` with `@_PersistedProperty` left unexpanded, to look at what `@Model` itself writes.
private let modelOnly = strataMacros.filter { $0.key != "_PersistedProperty" }

@Suite("@Model expansion")
struct ModelExpansionTests {
    @Test func fullModelExpandsToAccessorsSchemaInitAndConformance() {
        assertStrataExpansion(
            #"""
            @Model final class Book {
                var title: String
                var year: Int = 0
                @Attribute(.unique, originalName: "code") var isbn: String
                var rating: Double?
                @Relationship(deleteRule: .cascade, inverse: \Author.books) var author: Author?
                var tags: [String] = []
                @Transient var isExpanded = false
                var doubled: Int { year * 2 }
                static var shared = 0
                #Unique<Book>([\.title, \.year])
                init(title: String, isbn: String) { self.title = title; self.isbn = isbn }
            }
            """#,
            expandedSource: #"""
            final class Book {
                var title: String {
                    @storageRestrictions(accesses: _$persistentBacking, initializes: _title)
                    init(initialValue) {
                        ModelBacking.resolve(&_$persistentBacking, for: Self.self)
                            .setInitialValue(initialValue, at: 0, as: String.self)
                        _title = PersistedPropertyStorage()
                    }
                    get {
                        persistentValue(at: 0, as: String.self)
                    }
                    set {
                        setPersistentValue(newValue, at: 0, as: String.self)
                    }
                }

                private var _title: PersistedPropertyStorage
                var year: Int {
                    @storageRestrictions(accesses: _$persistentBacking, initializes: _year)
                    init(initialValue) {
                        ModelBacking.resolve(&_$persistentBacking, for: Self.self)
                            .setInitialValue(initialValue, at: 1, as: Int.self)
                        _year = PersistedPropertyStorage()
                    }
                    get {
                        persistentValue(at: 1, as: Int.self)
                    }
                    set {
                        setPersistentValue(newValue, at: 1, as: Int.self)
                    }
                }

                private var _year: PersistedPropertyStorage
                var isbn: String {
                    @storageRestrictions(accesses: _$persistentBacking, initializes: _isbn)
                    init(initialValue) {
                        ModelBacking.resolve(&_$persistentBacking, for: Self.self)
                            .setInitialValue(initialValue, at: 2, as: String.self)
                        _isbn = PersistedPropertyStorage()
                    }
                    get {
                        persistentValue(at: 2, as: String.self)
                    }
                    set {
                        setPersistentValue(newValue, at: 2, as: String.self)
                    }
                }

                private var _isbn: PersistedPropertyStorage
                var rating: Double? {
                    @storageRestrictions(accesses: _$persistentBacking, initializes: _rating)
                    init(initialValue) {
                        ModelBacking.resolve(&_$persistentBacking, for: Self.self)
                            .setInitialValue(initialValue, at: 3, as: Optional<Double>.self)
                        _rating = PersistedPropertyStorage()
                    }
                    get {
                        persistentValue(at: 3, as: Optional<Double>.self)
                    }
                    set {
                        setPersistentValue(newValue, at: 3, as: Optional<Double>.self)
                    }
                }

                private var _rating: PersistedPropertyStorage
                var author: Author? {
                    @storageRestrictions(accesses: _$persistentBacking, initializes: _author)
                    init(initialValue) {
                        ModelBacking.resolve(&_$persistentBacking, for: Self.self)
                            .setInitialValue(initialValue, at: 4, as: Optional<Author>.self)
                        _author = PersistedPropertyStorage()
                    }
                    get {
                        persistentValue(at: 4, as: Optional<Author>.self)
                    }
                    set {
                        setPersistentValue(newValue, at: 4, as: Optional<Author>.self)
                    }
                }

                private var _author: PersistedPropertyStorage
                var tags: [String] {
                    @storageRestrictions(accesses: _$persistentBacking, initializes: _tags)
                    init(initialValue) {
                        ModelBacking.resolve(&_$persistentBacking, for: Self.self)
                            .setInitialValue(initialValue, at: 5, as: Array<String>.self)
                        _tags = PersistedPropertyStorage()
                    }
                    get {
                        persistentValue(at: 5, as: Array<String>.self)
                    }
                    set {
                        setPersistentValue(newValue, at: 5, as: Array<String>.self)
                    }
                }

                private var _tags: PersistedPropertyStorage
                var isExpanded = false
                var doubled: Int { year * 2 }
                static var shared = 0
                public static var uniquenessConstraints: [[String]] {
                    [["title", "year"]]
                }
                init(title: String, isbn: String) { self.title = title; self.isbn = isbn }

                private var _$persistentBacking: ModelBacking? = nil

                public var persistentBacking: ModelBacking {
                    if let backing = _$persistentBacking {
                        return backing
                    }
                    return ModelBacking.resolve(&_$persistentBacking, for: Book.self)
                }

                public static let schemaProperties: [PropertyMetadata] = [
                    .property("title", \Book.title),
                    .property("year", \Book.year, defaultValue: 0),
                    .property("isbn", \Book.isbn, options: [.unique], originalName: "code"),
                    .property("rating", \Book.rating),
                    .property("author", \Book.author, deleteRule: .cascade, inverse: \Author.books),
                    .property("tags", \Book.tags, defaultValue: []),
                ]

                public required init(backing: ModelBacking) {
                    self._title = PersistedPropertyStorage()
                    self._year = PersistedPropertyStorage()
                    self._isbn = PersistedPropertyStorage()
                    self._rating = PersistedPropertyStorage()
                    self._author = PersistedPropertyStorage()
                    self._tags = PersistedPropertyStorage()
                    self._$persistentBacking = backing
                }
            }

            extension Book: PersistentModel {
            }
            """#)
    }

    @Test func transientComputedStaticLazyAndClassMembersAreNotPersisted() {
        assertStrataExpansion(
            """
            @Model final class Note {
                @Transient var isSelected = false
                @Transient var draft: String?
                var length: Int { body.count }
                var shout: String {
                    get { body.uppercased() }
                    set { body = newValue.lowercased() }
                }
                static var count = 0
                class var kind: String { "note" }
                lazy var cache: [Int] = []
                var body: String = ""
                func clear() {}
            }
            """,
            expandedSource: #"""
            final class Note {
                var isSelected = false
                var draft: String?
                var length: Int { body.count }
                var shout: String {
                    get { body.uppercased() }
                    set { body = newValue.lowercased() }
                }
                static var count = 0
                class var kind: String { "note" }
                lazy var cache: [Int] = []
                @_PersistedProperty(ordinal: 0)
                var body: String = ""
                func clear() {}

                private var _$persistentBacking: ModelBacking? = nil

                public var persistentBacking: ModelBacking {
                    if let backing = _$persistentBacking {
                        return backing
                    }
                    return ModelBacking.resolve(&_$persistentBacking, for: Note.self)
                }

                public static let schemaProperties: [PropertyMetadata] = [
                    .property("body", \Note.body, defaultValue: ""),
                ]

                public required init(backing: ModelBacking) {
                    self._body = PersistedPropertyStorage()
                    self._$persistentBacking = backing
                }
            }

            extension Note: PersistentModel {
            }
            """#,
            macros: modelOnly)
    }

    @Test func ordinalsNumberOnlyPersistentPropertiesInDeclarationOrder() {
        assertStrataExpansion(
            """
            @Model final class Row {
                var a: Int = 0
                @Transient var skipped = 1
                var b: Int = 0
                var computed: Int { a + b }
                var c: Int = 0
            }
            """,
            expandedSource: #"""
            final class Row {
                @_PersistedProperty(ordinal: 0)
                var a: Int = 0
                var skipped = 1
                @_PersistedProperty(ordinal: 1)
                var b: Int = 0
                var computed: Int { a + b }
                @_PersistedProperty(ordinal: 2)
                var c: Int = 0

                private var _$persistentBacking: ModelBacking? = nil

                public var persistentBacking: ModelBacking {
                    if let backing = _$persistentBacking {
                        return backing
                    }
                    return ModelBacking.resolve(&_$persistentBacking, for: Row.self)
                }

                public static let schemaProperties: [PropertyMetadata] = [
                    .property("a", \Row.a, defaultValue: 0),
                    .property("b", \Row.b, defaultValue: 0),
                    .property("c", \Row.c, defaultValue: 0),
                ]

                public required init(backing: ModelBacking) {
                    self._a = PersistedPropertyStorage()
                    self._b = PersistedPropertyStorage()
                    self._c = PersistedPropertyStorage()
                    self._$persistentBacking = backing
                }
            }

            extension Row: PersistentModel {
            }
            """#,
            macros: modelOnly)
    }

    @Test func aTransformableAttributeNamesItsTransformerInTheSchema() {
        assertStrataExpansion(
            """
            @Model final class Paint {
                @Attribute(.transformable(by: ColorTransformer.self)) var color: Color
            }
            """,
            expandedSource: #"""
            final class Paint {
                @_PersistedProperty(ordinal: 0) var color: Color

                private var _$persistentBacking: ModelBacking? = nil

                public var persistentBacking: ModelBacking {
                    if let backing = _$persistentBacking {
                        return backing
                    }
                    return ModelBacking.resolve(&_$persistentBacking, for: Paint.self)
                }

                public static let schemaProperties: [PropertyMetadata] = [
                    .property("color", \Paint.color, transformer: ColorTransformer.self, options: [.transformable(by: ColorTransformer.self)]),
                ]

                public required init(backing: ModelBacking) {
                    self._color = PersistedPropertyStorage()
                    self._$persistentBacking = backing
                }
            }

            extension Paint: PersistentModel {
            }
            """#,
            macros: modelOnly)
    }

    /// `@Strata.Attribute` is read like `@Attribute`; the test harness does not resolve
    /// module-qualified macro names, so that attribute stays in the expanded source here.
    @Test func attributeOptionsAndOriginalNameArePassedThrough() {
        assertStrataExpansion(
            """
            @Model final class User {
                @Attribute(.unique, .externalStorage) var email: String
                @Attribute(originalName: "name") var fullName: String
                @Attribute(.preserveValueOnDeletion, originalName: "pic") var avatar: Data?
                @Strata.Attribute(.unique) var handle: String
                @Attribute() var plain: Int = 0
            }
            """,
            expandedSource: #"""
            final class User {
                @_PersistedProperty(ordinal: 0) var email: String
                @_PersistedProperty(ordinal: 1) var fullName: String
                @_PersistedProperty(ordinal: 2) var avatar: Data?
                @Strata.Attribute(.unique)
                @_PersistedProperty(ordinal: 3) var handle: String
                @_PersistedProperty(ordinal: 4) var plain: Int = 0

                private var _$persistentBacking: ModelBacking? = nil

                public var persistentBacking: ModelBacking {
                    if let backing = _$persistentBacking {
                        return backing
                    }
                    return ModelBacking.resolve(&_$persistentBacking, for: User.self)
                }

                public static let schemaProperties: [PropertyMetadata] = [
                    .property("email", \User.email, options: [.unique, .externalStorage]),
                    .property("fullName", \User.fullName, originalName: "name"),
                    .property("avatar", \User.avatar, options: [.preserveValueOnDeletion], originalName: "pic"),
                    .property("handle", \User.handle, options: [.unique]),
                    .property("plain", \User.plain, defaultValue: 0),
                ]

                public required init(backing: ModelBacking) {
                    self._email = PersistedPropertyStorage()
                    self._fullName = PersistedPropertyStorage()
                    self._avatar = PersistedPropertyStorage()
                    self._handle = PersistedPropertyStorage()
                    self._plain = PersistedPropertyStorage()
                    self._$persistentBacking = backing
                }
            }

            extension User: PersistentModel {
            }
            """#,
            macros: modelOnly)
    }

    @Test func relationshipArgumentsArePassedThroughInParameterOrder() {
        assertStrataExpansion(
            #"""
            @Model final class Shelf {
                @Relationship(deleteRule: .deny, inverse: \Book.shelf, minimumModelCount: 1, maximumModelCount: 5, originalName: "items")
                var books: [Book] = []
                @Relationship(inverse: \Library.shelves) var library: Library?
                @Relationship var owner: Person?
            }
            """#,
            expandedSource: #"""
            final class Shelf {
                @_PersistedProperty(ordinal: 0)
                var books: [Book] = []
                @_PersistedProperty(ordinal: 1) var library: Library?
                @_PersistedProperty(ordinal: 2) var owner: Person?

                private var _$persistentBacking: ModelBacking? = nil

                public var persistentBacking: ModelBacking {
                    if let backing = _$persistentBacking {
                        return backing
                    }
                    return ModelBacking.resolve(&_$persistentBacking, for: Shelf.self)
                }

                public static let schemaProperties: [PropertyMetadata] = [
                    .property("books", \Shelf.books, deleteRule: .deny, inverse: \Book.shelf, minimumModelCount: 1, maximumModelCount: 5, originalName: "items", defaultValue: []),
                    .property("library", \Shelf.library, inverse: \Library.shelves),
                    .property("owner", \Shelf.owner),
                ]

                public required init(backing: ModelBacking) {
                    self._books = PersistedPropertyStorage()
                    self._library = PersistedPropertyStorage()
                    self._owner = PersistedPropertyStorage()
                    self._$persistentBacking = backing
                }
            }

            extension Shelf: PersistentModel {
            }
            """#,
            macros: modelOnly)
    }

    @Test func modelThatAlreadyAdoptsPersistentModelGetsNoExtension() {
        assertStrataExpansion(
            """
            @Model public final class Tag: Strata.PersistentModel {
            }
            """,
            expandedSource: """
            public final class Tag: Strata.PersistentModel {

                private var _$persistentBacking: ModelBacking? = nil

                public var persistentBacking: ModelBacking {
                    if let backing = _$persistentBacking {
                        return backing
                    }
                    return ModelBacking.resolve(&_$persistentBacking, for: Tag.self)
                }

                public static let schemaProperties: [PropertyMetadata] = []

                public required init(backing: ModelBacking) {
                    self._$persistentBacking = backing
                }
            }
            """,
            macros: modelOnly)
    }

    @Test func backtickedPropertyNameIsUnescapedInSchemaAndStorage() {
        assertStrataExpansion(
            """
            @Model final class Setting {
                var `default`: Bool = false
            }
            """,
            expandedSource: #"""
            final class Setting {
                var `default`: Bool {
                    @storageRestrictions(accesses: _$persistentBacking, initializes: _default)
                    init(initialValue) {
                        ModelBacking.resolve(&_$persistentBacking, for: Self.self)
                            .setInitialValue(initialValue, at: 0, as: Bool.self)
                        _default = PersistedPropertyStorage()
                    }
                    get {
                        persistentValue(at: 0, as: Bool.self)
                    }
                    set {
                        setPersistentValue(newValue, at: 0, as: Bool.self)
                    }
                }

                private var _default: PersistedPropertyStorage

                private var _$persistentBacking: ModelBacking? = nil

                public var persistentBacking: ModelBacking {
                    if let backing = _$persistentBacking {
                        return backing
                    }
                    return ModelBacking.resolve(&_$persistentBacking, for: Setting.self)
                }

                public static let schemaProperties: [PropertyMetadata] = [
                    .property("default", \Setting.`default`, defaultValue: false),
                ]

                public required init(backing: ModelBacking) {
                    self._default = PersistedPropertyStorage()
                    self._$persistentBacking = backing
                }
            }

            extension Setting: PersistentModel {
            }
            """#)
    }
}
