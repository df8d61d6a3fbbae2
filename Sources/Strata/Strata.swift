@_exported import StrataCore
@_exported import Foundation
#if SQLite
// SQLite is the default store: `PersistentContainer(name:schema:)` opens `<name>.sqlite`.
@_exported import StrataSQLite
#else
import Logging

extension PersistentContainer {
    /// A container for a schema, built without the SQLite store: it has no
    /// store until the app sets ``PersistentContainer/storeDescriptions``
    /// (`[.postgres(…)]` or `[.memory()]`). Throws as the SQLite module's does.
    ///
    /// ```swift
    /// let container = try PersistentContainer(name: "Library", schema: Schema(Book.self))
    /// container.storeDescriptions = [.memory()]
    /// ```
    public convenience init(
        name: String, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        logger: Logger = Logger(label: "strata")
    ) throws {
        try self.init(name: name, schema: schema, migrationPlan: migrationPlan, logger: logger, defaultStore: nil)
    }
}
#endif

/// Makes a class a persistent model: its stored properties become the attributes
/// and relationships of an entity, and the class adopts `PersistentModel`.
///
/// Every stored `var` with an explicit type is persistent. A property of a storable
/// type is an attribute: `Bool`, the integer types (`Int8` to `Int64`, `UInt8` to
/// `UInt32`), `Double`, `Float`, `String`, `Date`, `Data`, `UUID`, `URL` and `Decimal`,
/// their optionals, `RawRepresentable` values with one of these as raw value (stored as
/// the raw value), and any other `Codable` value (stored as JSON text). A property whose
/// type is an optional of another model is a to-one relationship, and one whose type is
/// an array of another model is a to-many relationship, whose order is kept. An optional
/// type makes a property optional; any other is required.
///
/// A declared initial value (`var year: Int = 0`) is what a new object starts with, and
/// what a migration gives rows stored before the property existed. Computed, `static`
/// and `lazy` properties are not persistent, nor are properties marked `@Transient`.
///
/// The entity is named after the class. The macro adds the storage behind the
/// persistent properties, the `schemaProperties` list that a `Schema` is built from, and
/// the `init(backing:)` initializer that fetched objects are made with; the class's own
/// initializers make new objects. Model objects are `Observable`, and equal only to
/// themselves. A model may implement the lifecycle hooks (`awakeFromInsert()`,
/// `awakeFromFetch()`, `willSave()`, `didSave()`, `prepareForDeletion()`) and validation
/// hooks (`validateForInsert()`, `validateForUpdate()`, `validateForDelete()`) of
/// `PersistentModel` as plain methods.
///
/// The macro reports at compile time its use on anything but a class, a persistent `let`
/// (with a fix-it that makes it a `var`), a persistent property without a type
/// annotation, several properties in one declaration (`var a, b: Int`), `willSet` and
/// `didSet` observers, and a `@Transient` property without an initial value.
///
/// ```swift
/// enum Genre: String, Codable { case fiction, poetry, essay }
///
/// @Model final class Book {
///     var title: String
///     var year: Int = 0
///     var rating: Double?                    // optional
///     var genre: Genre = .fiction            // stored as its raw value
///     var tags: [String] = []                // Codable: stored as JSON
///     var author: Author?                    // to-one
///     @Relationship(deleteRule: .cascade, inverse: \Review.book)
///     var reviews: [Review] = []             // to-many, in the order given
///     @Transient var isExpanded = false      // not stored
///
///     init(title: String) { self.title = title }
///
///     func willSave() { if rating == 0 { rating = nil } }
/// }
/// ```
@attached(member, names: named(persistentBacking), named(schemaProperties), named(init(backing:)), arbitrary)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel)
public macro Model() = #externalMacro(module: "StrataMacros", type: "ModelMacro")

/// Makes a struct a `ModelProjection` of a model: chosen properties read
/// straight from the store into a `Sendable` value, without objects.
///
/// Each stored property names the model's property it holds:
///
/// - an attribute, with the attribute's type (the compiler checks they agree);
/// - a to-one relationship, declared `ObjectID?` (or `ObjectID` when it is
///   always set): the ID of the object it points to;
/// - `id` or `objectID` of type `ObjectID`: the row's own ID.
///
/// A `let` with a value of its own is left alone. The conformance and its
/// initializer go in an extension, so the struct keeps its memberwise
/// initializer.
///
/// ```swift
/// @Projection(of: Book.self)
/// struct BookRow: Codable, Identifiable {
///     let id: ObjectID
///     let title: String
///     let year: Int
///     let author: ObjectID?
/// }
///
/// let rows = try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)]), as: BookRow.self)
/// ```
@attached(extension, conformances: ModelProjection, names: named(Model), named(projectedProperties), named(init(reading:)))
public macro Projection<M: PersistentModel>(of model: M.Type) =
    #externalMacro(module: "StrataMacros", type: "ProjectionMacro")

/// Routes one stored property of a `@Model` class through its backing storage.
/// `@Model` attaches it; do not write it yourself.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty(ordinal: Int) = #externalMacro(module: "StrataMacros", type: "PersistedPropertyMacro")

/// Gives a persistent attribute of a `@Model` class its options.
///
/// The unlabelled arguments are `AttributeOption` values:
///
/// - `.unique`: no two objects of the entity hold the same value. The store keeps a
///   unique index; a save checks the value among its own objects and against the store
///   before it writes, and `nil` never collides. A taken value is a uniqueness conflict,
///   settled by the context's merge policy: by default the save throws a `StrataError`
///   with the code `.uniquenessConflict` and writes nothing.
/// - `.preserveValueOnDeletion`: the value is kept in the tombstone that persistent
///   history records for a deleted object.
/// - `.externalStorage`: a hint that the value may be large, recorded in the schema; the
///   value is stored in its column.
///
/// `originalName` is the attribute's name in the previous version of the schema: a
/// migration keeps the stored values under the new name.
///
/// `@Model` reads these arguments when it writes the entity's schema; the macro itself
/// adds no code. For several attributes that are unique together, use `#Unique`.
///
/// ```swift
/// @Model final class Account {
///     @Attribute(.unique) var email: String
///     @Attribute(originalName: "name") var fullName: String
///     @Attribute(.unique, .preserveValueOnDeletion) var handle: String
///     @Attribute(.externalStorage) var avatar: Data?
///
///     init(email: String, fullName: String, handle: String) {
///         self.email = email
///         self.fullName = fullName
///         self.handle = handle
///     }
/// }
/// ```
@attached(peer)
public macro Attribute(_ options: AttributeOption..., originalName: String? = nil) =
    #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Gives a relationship of a `@Model` class its delete rule, inverse, counts and
/// original name.
///
/// A property whose type is an optional model (to-one) or an array of models (to-many)
/// is a relationship without this macro; write it to change the defaults:
///
/// - `deleteRule`: what deleting the object does to the objects the relationship holds.
///   `.nullify` (the default) takes the deleted object out of their relationships,
///   `.cascade` deletes them too, `.deny` fails the save while the relationship holds
///   objects that are not deleted, and `.noAction` leaves them as they are.
/// - `inverse`: the destination's relationship that points back, as a key path
///   (`\Book.author`). Write it on one side only: naming each other from both sides is a
///   circular reference the compiler reports. Without it, two relationships are paired
///   when each is the only one between their entities pointing the other way. Setting
///   either side of a pair updates the other at once.
/// - `minimumModelCount`, `maximumModelCount`: how many objects a to-many relationship
///   may hold when it is saved. A save that breaks them fails with a `StrataError` whose
///   code is `.validation`, naming the entity and relationship. A maximum of 0 means no
///   limit.
/// - `originalName`: the relationship's name in the previous version of the schema, for
///   migration.
///
/// `@Model` reads these arguments when it writes the entity's schema; the macro itself
/// adds no code.
///
/// ```swift
/// @Model final class Team {
///     var name: String
///     @Relationship(deleteRule: .cascade, inverse: \Player.team, minimumModelCount: 1, maximumModelCount: 11)
///     var players: [Player] = []
///     init(name: String) { self.name = name }
/// }
///
/// @Model final class Player {
///     var name: String
///     var team: Team?          // the inverse of Team.players; deleting a player nullifies
///     init(name: String) { self.name = name }
/// }
/// ```
@attached(peer)
public macro Relationship(
    deleteRule: DeleteRule = .nullify, inverse: AnyKeyPath? = nil,
    minimumModelCount: Int? = nil, maximumModelCount: Int? = nil, originalName: String? = nil
) = #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Keeps a stored property of a `@Model` class out of the entity and the store.
///
/// A transient property is an ordinary stored property: it is not saved, and setting it
/// is not a change of the object. An object made for a fetched row starts with the
/// property's initial value, so a transient property needs one (an optional `var` may
/// start as `nil`); `@Model` reports one without. Computed properties need no
/// `@Transient`: they are never persistent.
///
/// ```swift
/// @Model final class Note {
///     var text: String
///     @Transient var isSelected = false
///     @Transient var wordCount: Int?
///
///     init(text: String) { self.text = text }
///
///     func awakeFromFetch() { wordCount = text.split(separator: " ").count }
/// }
/// ```
@attached(peer)
public macro Transient() = #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Declares uniqueness constraints over several properties of a `@Model` class.
///
/// Write it inside the class, once, with the class as its generic argument and one array
/// of key paths per constraint: no two objects of the entity may hold the same
/// combination of values. The key paths name stored attributes of the class. A single
/// unique attribute can say so with `@Attribute(.unique)` instead.
///
/// Each constraint is a unique index in the store. A save checks the constraints among
/// its own objects and against the store before it writes; a combination that holds a
/// `nil` never collides. A taken combination is a uniqueness conflict, settled by the
/// context's merge policy: by default the save throws a `StrataError` with the code
/// `.uniquenessConflict` and writes nothing, while `.mergeByPropertyObjectTrump` turns
/// the inserted object into an update of the stored one.
///
/// ```swift
/// @Model final class Reading {
///     #Unique<Reading>([\.station, \.day], [\.serial])
///     var station: String
///     var day: Int
///     var serial: UUID
///     var value: Double
///
///     init(station: String, day: Int, serial: UUID, value: Double) {
///         self.station = station
///         self.day = day
///         self.serial = serial
///         self.value = value
///     }
/// }
/// ```
@freestanding(declaration, names: named(uniquenessConstraints))
public macro Unique<Model>(_ constraints: [PartialKeyPath<Model>]...) =
    #externalMacro(module: "StrataMacros", type: "UniqueMacro")

/// Declares extra indexes of a `@Model` class.
///
/// Write it inside the class, once, with the class as its generic argument and one array
/// of key paths per index; several key paths in one array make a compound index, in that
/// order. The key paths name stored attributes. A string attribute's folded form
/// (`\.title.folded`) can be indexed too, for matching and sorting regardless of case and
/// diacritics: equality and prefix tests on `$0.title.folded`, and
/// `SortDescriptor(\.title.folded)`, then read the index instead of folding every row.
/// Unique attributes and to-one relationships are indexed without it.
///
/// ```swift
/// @Model final class Book {
///     #Index<Book>([\.year], [\.title, \.year], [\.title.folded])
///     var title: String
///     var year: Int
///
///     init(title: String, year: Int) {
///         self.title = title
///         self.year = year
///     }
/// }
/// ```
@freestanding(declaration, names: named(indexes))
public macro Index<Model>(_ indexes: [PartialKeyPath<Model>]...) =
    #externalMacro(module: "StrataMacros", type: "IndexMacro")
