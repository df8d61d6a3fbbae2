import Strata
import Testing

@Suite("Schema")
struct SchemaTests {
    @Test func macroModelsBecomeEntitiesWithAttributesAndRelationships() throws {
        let schema = Schema(Author.self, Book.self)
        try schema.validate()
        let book = try schema.entity(for: Book.self)
        #expect(book.attributes.map(\.name) == ["title", "year", "rating"])
        #expect(book.attribute(named: "rating")?.isOptional == true)
        #expect(book.attribute(named: "year")?.type == .int)
        let author = try #require(book.relationship(named: "author"))
        #expect(author.isToMany == false)
        #expect(author.inverseName == "books")
        let books = try #require(schema.entity(named: "Author")?.relationship(named: "books"))
        #expect(books.isToMany)
        #expect(books.deleteRule == .cascade)
        #expect(books.inverseName == "author")
        #expect(schema.entity(named: "Author")?.attribute(named: "email")?.isUnique == true)
    }

    @Test func transientAndComputedPropertiesAreNotStored() throws {
        let entity = try Schema(Sample.self).entity(for: Sample.self)
        let names = entity.properties.map(\.name)
        #expect(!names.contains("scratch"))
        #expect(!names.contains("computed"))
        #expect(names.contains("defaulted"))
    }

    @Test func everyAttributeTypeMapsToItsStoredType() throws {
        let entity = try Schema(Sample.self).entity(for: Sample.self)
        let expected: [String: AttributeType] = [
            "flag": .bool, "int": .int, "int8": .int8, "int16": .int16, "int32": .int32, "int64": .int64,
            "uint8": .uint8, "uint16": .uint16, "uint32": .uint32, "double": .double, "float": .float,
            "string": .string, "date": .date, "data": .data, "uuid": .uuid, "url": .url, "decimal": .decimal,
            "genre": .string, "priority": .int, "dimensions": .codable, "optionalGenre": .string,
            "optionalPriority": .int, "optionalDimensions": .codable,
        ]
        for (name, type) in expected {
            #expect(entity.attribute(named: name)?.type == type, "\(name)")
        }
        #expect(entity.attribute(named: "optionalDimensions")?.isOptional == true)
        #expect(entity.attribute(named: "dimensions")?.isOptional == false)
    }

    @Test func handWrittenModelsWorkWithoutTheMacro() throws {
        let schema = Schema(Note.self)
        try schema.validate()
        #expect(try schema.entity(for: Note.self).attributes.map(\.name) == ["text", "pinned"])
    }

    @Test func fingerprintIsStableAndChangesWithTheSchema() {
        #expect(Schema(Author.self, Book.self).fingerprint == Schema(Author.self, Book.self).fingerprint)
        #expect(Schema(Note.self).fingerprint != Schema(Author.self, Book.self).fingerprint)
    }

    @Test func containerRefusesASchemaMissingARelatedEntity() {
        let error = #expect(throws: StrataError.self) {
            _ = try PersistentContainer(name: "Broken", schema: Schema(Book.self))
        }
        #expect(error?.code == .invalidSchema)
        #expect(error?.entityName == "Book")
        #expect(error?.propertyName == "author")
    }

    @Test func reservedAndDuplicateNamesAreRejectedNamingEntityAndProperty() throws {
        let reserved = Schema(ReservedName.self)
        let problem = try #require(reserved.problems.first)
        #expect(problem.code == .invalidSchema)
        #expect(problem.entityName == "ReservedName")
        #expect(problem.propertyName == "pk")

        let twice = Schema(Note.self, Note.self)
        #expect(twice.problems.contains { $0.message.contains("Note") })
        #expect(throws: StrataError.self) { try twice.validate() }
    }

    @Test func anInverseThatDoesNotPointBackIsRejected() {
        let schema = Schema(Owner.self, Pet.self)
        #expect(schema.problems.contains { $0.entityName == "Owner" && $0.propertyName == "pets" })
    }

    @Test func aToManyWithoutInverseIsAValidUnidirectionalRelationship() throws {
        let schema = Schema(Shelf.self, Note.self)
        #expect(schema.problems.isEmpty)
        let notes = try #require(try schema.entity(for: Shelf.self).relationship(named: "notes"))
        #expect(notes.isToMany)
        #expect(notes.inverseName == nil)
    }
}

/// Uses the reserved property name `pk`.
@Model final class ReservedName {
    var pk: Int = 0
    init() {}
}

/// `pets` names an inverse that points to another entity.
@Model final class Owner {
    @Relationship(inverse: \Pet.vet) var pets: [Pet] = []
    var name: String = ""
    init() {}
}

@Model final class Pet {
    var owner: Owner?
    var vet: Vet?
    init() {}
}

@Model final class Vet {
    var name: String = ""
    init() {}
}

/// A to-many without a to-one inverse.
@Model final class Shelf {
    var notes: [Note] = []
    init() {}
}

@Suite("Stored column types")
struct StoredColumnTypeTests {
    @Test func optionalValuesAreStoredInTheirOwnTypeNotAsJSON() throws {
        let entity = try Schema(Sample.self).entity(for: Sample.self)
        #expect(entity.attribute(named: "optionalString")?.type == .string)
        #expect(entity.attribute(named: "optionalInt")?.type == .int)
        #expect(entity.attribute(named: "optionalDate")?.type == .date)
        let book = try librarySchema.entity(for: Book.self)
        #expect(book.attribute(named: "rating")?.type == .double)
        #expect(book.attribute(named: "rating")?.isOptional == true)
    }
}

/// The hand-written model of `PersistentModel`'s documentation, word for word
/// but for its name (`Tag` is taken by the many-to-many tests).
final class Label: PersistentModel {
    static let schemaProperties: [PropertyMetadata] = [.property("label", \Label.label)]
    let persistentBacking: ModelBacking
    var label: String {
        get { persistentValue(at: 0, as: String.self) }
        set { setPersistentValue(newValue, at: 0, as: String.self) }
    }
    init(label: String) {
        persistentBacking = ModelBacking(for: Label.self)
        persistentBacking.setInitialValue(label, at: 0, as: String.self)
    }
    init(backing: ModelBacking) { persistentBacking = backing }
}

@Suite("Models written by hand")
struct HandWrittenModelTests {
    @Test(arguments: testedStoreKinds)
    func theDocumentedHandWrittenModelSavesChangesAndFetches(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Label.self))
        let id = try stack.container.perform { context in
            let tag = Label(label: "swift")
            context.insert(tag)
            try context.save()
            tag.label = "linux"
            #expect(tag.isUpdated)
            return tag.objectID
        }
        let label = try stack.container.perform { context in try context.existingObject(with: id, as: Label.self).label }
        #expect(label == "linux")
    }
}
