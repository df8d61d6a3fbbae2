import Foundation
import Synchronization
import Strata
import Testing

/// A value that is neither a `PersistentValue` nor `Codable`.
struct Color: Equatable, Sendable {
    var red: UInt8, green: UInt8, blue: UInt8
    static let red = Color(red: 255, green: 0, blue: 0)
    static let blue = Color(red: 0, green: 0, blue: 255)
    static let gray = Color(red: 128, green: 128, blue: 128)
}

/// Three bytes; any other length cannot be read.
struct ColorTransformer: AttributeTransformer {
    func transformedValue(_ color: Color) -> Data { Data([color.red, color.green, color.blue]) }
    func reverseTransformedValue(_ data: Data) -> Color? {
        let bytes = [UInt8](data)
        return bytes.count == 3 ? Color(red: bytes[0], green: bytes[1], blue: bytes[2]) : nil
    }
}

/// Text stored backwards: a stored form whose order is not the values'.
struct MirrorTransformer: AttributeTransformer {
    func transformedValue(_ text: String) -> String { String(text.reversed()) }
    func reverseTransformedValue(_ text: String) -> String? { String(text.reversed()) }
}

@Model final class Paint {
    var name: String
    /// The initial value is also what an unreadable stored form reads as in
    /// an accessor, which cannot throw (a schema requires one here).
    @Attribute(.transformable(by: ColorTransformer.self)) var color: Color = Color.gray
    @Attribute(.transformable(by: ColorTransformer.self)) var accent: Color?
    @Attribute(.transformable(by: MirrorTransformer.self)) var code: String = ""

    init(name: String, color: Color, code: String = "") {
        self.name = name
        self.color = color
        self.code = code
    }
}

/// A required color without an initial value: the transformer reads no
/// empty stored form, so nothing stands in for an unreadable one.
@Model final class Canvas {
    @Attribute(.transformable(by: ColorTransformer.self)) var ground: Color
    init(ground: Color) { self.ground = ground }
}

@Projection(of: Paint.self) struct PaintCode {
    var name: String
    var code: String
}

@Suite("Transformable attributes")
struct TransformableAttributeTests {
    @Test func aSchemaRefusesARequiredValueWithNothingToReadInPlaceOfAnUnreadableOne() throws {
        let error = #expect(throws: StrataError.self) { try Schema(Canvas.self).validate() }
        #expect(error?.code == .invalidSchema)
        #expect(error?.message.contains("Canvas.ground") == true && error?.message.contains("transformer") == true)
    }

    @Test func theSchemaRecordsTheStoredFormsTypeAndTheOption() throws {
        let entity = try Schema(Paint.self).entity(for: Paint.self)
        let color = try #require(entity.attribute(named: "color"))
        #expect(color.type == .data && !color.isOptional && color.options.contains(.transformable))
        #expect(entity.attribute(named: "accent")?.isOptional == true)
        #expect(entity.attribute(named: "code")?.type == .string)
    }

    @Test(arguments: testedStoreKinds)
    func valuesGoThroughTheirTransformerAndBack(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Paint.self))
        let id = try stack.container.perform { context throws in
            let paint = Paint(name: "brick", color: .red, code: "abc")
            context.insert(paint)
            #expect(paint.color == .red && paint.accent == nil)
            try context.save()
            return paint.objectID
        }
        try stack.container.perform { context throws in
            let paint = try context.existingObject(with: id, as: Paint.self)
            #expect(paint.color == .red && paint.accent == nil && paint.code == "abc")
            let snapshot = paint.snapshot()
            #expect(snapshot.color == .red && snapshot.accent == nil && snapshot.code == "abc")
            paint.accent = .gray
            paint.color = .blue
            #expect(paint.isUpdated)
            try context.save()
        }
        try stack.container.perform { context throws in
            let paint = try context.existingObject(with: id, as: Paint.self)
            #expect(paint.color == .blue && paint.accent == .gray)
            paint.color = .blue
            #expect(!paint.hasChanges, "the same value transforms to the same stored form")
        }
    }

    @Test(arguments: testedStoreKinds)
    func predicatesCompareWithConstantsInTheirStoredFormAndRefuseOrder(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Paint.self))
        try stack.container.perform { context throws in
            context.insert(Paint(name: "brick", color: .red, code: "abc"))
            context.insert(Paint(name: "sea", color: .blue, code: "xyz"))
            let gray = Paint(name: "ash", color: .gray)
            gray.accent = .red
            context.insert(gray)
            try context.save()
        }
        try stack.container.perform { context throws in
            // Foundation's predicates capture only `Codable` values, so a
            // `Color` compares with nil; text stored backwards compares with text.
            let code = "xyz"
            let sorted = [SortDescriptor(\Paint.name)]
            #expect(try context.fetch(FetchRequest<Paint>(predicate: #Predicate { $0.accent != nil })).map(\.name) == ["ash"])
            #expect(try context.fetch(FetchRequest<Paint>(predicate: #Predicate { $0.accent == nil }, sortBy: sorted)).map(\.name) == ["brick", "sea"])
            #expect(try context.fetch(FetchRequest<Paint>(predicate: #Predicate { $0.code == code })).map(\.name) == ["sea"])
            #expect(try context.fetch(FetchRequest<Paint>(predicate: #Predicate { $0.code != code }, sortBy: sorted)).map(\.name) == ["ash", "brick"])
            let codes = ["abc", "xyz"]
            #expect(try context.fetch(FetchRequest<Paint>(predicate: #Predicate { codes.contains($0.code) }, sortBy: sorted)).map(\.name) == ["brick", "sea"])

            // The stored form's order and text are not the values'.
            let m = "m"
            let ordered = #expect(throws: StrataError.self) {
                try context.fetch(FetchRequest<Paint>(predicate: #Predicate { $0.code < m }))
            }
            #expect(ordered?.code == .unsupportedPredicate && ordered?.message.contains("Paint.code") == true)
            #expect(throws: StrataError.self) {
                try context.fetch(FetchRequest<Paint>(predicate: #Predicate { $0.code.contains(m) }))
            }
            #expect(throws: StrataError.self) {
                try context.fetch(FetchRequest<Paint>(predicate: #Predicate { $0.code == $0.name }))
            }
            let sort = #expect(throws: StrataError.self) {
                try context.fetch(FetchRequest<Paint>(sortBy: [SortDescriptor(\.code)]))
            }
            #expect(sort?.code == .unsupportedPredicate)
            // A projection would read the stored form.
            let projection = #expect(throws: StrataError.self) { try context.fetch(FetchRequest<Paint>(), as: PaintCode.self) }
            #expect(projection?.code == .unsupportedPredicate && projection?.message.contains("transformer") == true)
        }
    }

    @Test(arguments: testedStoreKinds)
    func batchRowsStoreTransformedValues(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Paint.self))
        _ = try stack.container.execute(BatchInsertRequest<Paint>(objects: [
            ["name": "by name", "color": Color.gray, "code": "qrs"],
        ]))
        var sent = false
        _ = try stack.container.execute(BatchInsertRequest<Paint> { row in
            guard !sent else { return true }
            sent = true
            row[\.name] = "by key path"
            row[\.color] = Color.blue
            row[\.accent] = Color.red
            row[\.code] = "tuv"
            return false
        })
        let wrong = #expect(throws: StrataError.self) {
            try stack.container.execute(BatchInsertRequest<Paint>(objects: [["name": "wrong", "color": "red"]]))
        }
        #expect(wrong?.code == .validation)
        try stack.container.perform { context throws in
            let paints = try context.fetch(FetchRequest<Paint>(sortBy: [SortDescriptor(\.name)]))
            #expect(paints.map(\.name) == ["by key path", "by name"])
            #expect(paints.map(\.color) == [.blue, .gray])
            #expect(paints.map(\.accent) == [.red, nil])
            #expect(paints.map(\.code) == ["tuv", "qrs"])
            let code = "tuv"
            #expect(try context.count(for: FetchRequest<Paint>(predicate: #Predicate { $0.code == code })) == 1)
        }
    }
}

/// The same entity without transformers, to see and write stored forms.
enum PlainPaint {
    @Model final class Paint {
        var name: String
        var color: Data
        var accent: Data?
        var code: String = ""
        init(name: String, color: Data) {
            self.name = name
            self.color = color
        }
    }
}

@Suite("Transformable attributes as stored")
struct TransformableStorageTests {
    private func load(_ url: URL, _ kind: StoreKind, _ model: any PersistentModel.Type) async throws -> PersistentContainer {
        try await loadedContainer(at: url, kind, model, name: "Paints")
    }

    @Test(arguments: persistentStoreKinds)
    func theStoreHoldsTheTransformedFormAndAFormTheTransformerCannotReadIsReportedWhenRead(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Paints.sqlite")
        let transformed = try await load(url, kind, Paint.self)
        try transformed.perform { context throws in
            context.insert(Paint(name: "brick", color: .red, code: "abc"))
            try context.save()
        }
        try transformed.persistentStoreCoordinator.close()

        let plain = try await load(url, kind, PlainPaint.Paint.self)
        try plain.perform { context throws in
            let paint = try #require(try context.fetch(FetchRequest<PlainPaint.Paint>()).first)
            #expect(paint.color == Data([255, 0, 0]) && paint.accent == nil && paint.code == "cba")
            paint.color = Data([1, 2])
            try context.save()
        }
        try plain.persistentStoreCoordinator.close()

        let again = try await load(url, kind, Paint.self)
        let reported = Mutex<[StrataError]>([])
        again.logError = { error in
            if let error = error as? StrataError { reported.withLock { $0.append(error) } }
        }
        try again.perform { context throws in
            // The transformer runs when the value is read: the fetch succeeds,
            // and the accessor reports the form and reads the initial value.
            let paint = try #require(try context.fetch(FetchRequest<Paint>()).first)
            #expect(reported.withLock { $0.isEmpty })
            #expect(paint.name == "brick" && paint.color == .gray)
            #expect(!paint.hasChanges)
        }
        #expect(reported.withLock { $0.contains { $0.code == .valueConversion && $0.propertyName == "color" } })
    }
}
