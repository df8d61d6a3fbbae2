import Foundation
import Strata
import Testing

@Suite("Attribute values")
struct AttributeRoundTripTests {
    /// Every stored attribute of a sample, for comparison.
    struct Values: Equatable {
        let flag: Bool, int: Int, int8: Int8, int16: Int16, int32: Int32, int64: Int64
        let uint8: UInt8, uint16: UInt16, uint32: UInt32, double: Double, float: Float
        let string: String, date: Date, data: Data, uuid: UUID, url: URL, decimal: Decimal
        let genre: Genre, priority: Priority, dimensions: Dimensions
        let optionalString: String?, optionalInt: Int?, optionalDate: Date?, optionalGenre: Genre?
        let optionalPriority: Priority?, optionalDimensions: Dimensions?, defaulted: String

        init(_ s: Sample) {
            flag = s.flag; int = s.int; int8 = s.int8; int16 = s.int16; int32 = s.int32; int64 = s.int64
            uint8 = s.uint8; uint16 = s.uint16; uint32 = s.uint32; double = s.double; float = s.float
            string = s.string; date = s.date; data = s.data; uuid = s.uuid; url = s.url; decimal = s.decimal
            genre = s.genre; priority = s.priority; dimensions = s.dimensions
            optionalString = s.optionalString; optionalInt = s.optionalInt; optionalDate = s.optionalDate
            optionalGenre = s.optionalGenre; optionalPriority = s.optionalPriority
            optionalDimensions = s.optionalDimensions; defaulted = s.defaulted
        }
    }

    @Test func valuesOfEveryTypeSurviveAReopenExactly() async throws {
        let stack = try await TestStack(.file, schema: Schema(Sample.self))
        let expected = try stack.container.perform { context throws in
            let samples = [Sample(seed: 1), Sample(seed: 2)]
            for sample in samples { context.insert(sample) }
            try context.save()
            return samples.map { ($0.objectID, Values($0)) }
        }
        try stack.container.persistentStoreCoordinator.close()

        let reopened = try await stack.reopened(schema: Schema(Sample.self))
        try reopened.perform { context throws in
            for (id, values) in expected {
                let sample = try context.existingObject(with: id, as: Sample.self)
                #expect(Values(sample) == values)
            }
        }
    }

    @Test(arguments: testedStoreKinds)
    func changedValuesOfEveryTypeAreSavedAndFetched(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Sample.self))
        let id = try stack.container.perform { context throws in
            let sample = Sample(seed: 2)
            context.insert(sample)
            try context.save()
            sample.optionalString = "now set"
            sample.optionalGenre = .fiction
            sample.optionalDimensions = Dimensions(width: 3, height: 4, labels: ["x"])
            sample.dimensions.labels.append("c")
            sample.genre = .essay
            sample.priority = .low
            sample.scratch = 99
            #expect(sample.isUpdated)
            try context.save()
            return sample.objectID
        }
        try stack.container.perform { context throws in
            let sample = try context.existingObject(with: id, as: Sample.self)
            #expect(sample.optionalString == "now set")
            #expect(sample.optionalGenre == .fiction)
            #expect(sample.optionalDimensions == Dimensions(width: 3, height: 4, labels: ["x"]))
            #expect(sample.dimensions.labels == ["a", "b", "c"])
            #expect(sample.genre == .essay)
            #expect(sample.priority == .low)
            #expect(sample.scratch == 0, "transient values are not stored")
        }
    }

    @Test(arguments: testedStoreKinds)
    func codableValuesHoldingInfinitiesAndNaNRoundTrip(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Sample.self))
        try stack.container.perform { context throws in
            let sample = Sample(seed: 1)
            // JSON has no number for these; they must not stop the program.
            sample.dimensions = Dimensions(width: .nan, height: -.infinity, labels: ["∞"])
            context.insert(sample)
            try context.save()
            context.reset()
            let stored = try #require(try context.fetch(FetchRequest<Sample>()).first)
            #expect(stored.dimensions.width.isNaN)
            #expect(stored.dimensions.height == -.infinity)
            #expect(stored.dimensions.labels == ["∞"])
        }
    }
}
