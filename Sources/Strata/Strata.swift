@_exported import StrataCore
@_exported import Foundation

/// Makes a final class a persistent model: its stored properties become
/// attributes and relationships of an entity, and it adopts `PersistentModel`.
///
/// ```swift
/// @Model final class Book {
///     var title: String
///     var year: Int = 0
///     var author: Author?
///     @Transient var isExpanded = false
///     init(title: String) { self.title = title }
/// }
/// ```
@attached(member, names: named(persistentBacking), named(schemaProperties), named(init(backing:)), arbitrary)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel)
public macro Model() = #externalMacro(module: "StrataMacros", type: "ModelMacro")

/// Routes one stored property of a `@Model` class through its backing storage.
/// `@Model` attaches it; do not write it yourself.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty(ordinal: Int) = #externalMacro(module: "StrataMacros", type: "PersistedPropertyMacro")

/// Options for a persistent attribute.
///
/// ```swift
/// @Attribute(.unique) var email: String
/// @Attribute(originalName: "name") var fullName: String
/// ```
@attached(peer)
public macro Attribute(_ options: AttributeOption..., originalName: String? = nil) =
    #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Options for a relationship.
///
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \Book.author) var books: [Book] = []
/// ```
@attached(peer)
public macro Relationship(
    deleteRule: DeleteRule = .nullify, inverse: AnyKeyPath? = nil,
    minimumModelCount: Int? = nil, maximumModelCount: Int? = nil, originalName: String? = nil
) = #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Keeps a stored property out of the store.
///
/// ```swift
/// @Transient var isSelected = false
/// ```
@attached(peer)
public macro Transient() = #externalMacro(module: "StrataMacros", type: "MarkerMacro")

/// Declares compound uniqueness constraints inside a `@Model` class.
///
/// ```swift
/// #Unique<Person>([\.givenName, \.familyName])
/// ```
@freestanding(declaration, names: named(uniquenessConstraints))
public macro Unique<Model>(_ constraints: [PartialKeyPath<Model>]...) =
    #externalMacro(module: "StrataMacros", type: "UniqueMacro")

/// Declares extra indexes inside a `@Model` class. A string attribute's
/// folded form (`\.title.folded`) can be indexed too, for matching and sorting
/// regardless of case and diacritics.
///
/// ```swift
/// #Index<Book>([\.year], [\.title, \.year], [\.title.folded])
/// ```
@freestanding(declaration, names: named(indexes))
public macro Index<Model>(_ indexes: [PartialKeyPath<Model>]...) =
    #externalMacro(module: "StrataMacros", type: "IndexMacro")
