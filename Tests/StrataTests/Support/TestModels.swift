@_exported import Strata
@_exported import StrataTestModels

enum Genre: String, Codable, Sendable {
    case fiction, poetry, essay
}

enum Priority: Int {
    case low = 1, high = 2
}

struct Dimensions: Codable, Hashable, Sendable {
    var width: Double
    var height: Double
    var labels: [String]
}

/// One attribute of every supported type.
@Model final class Sample {
    var flag: Bool
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var double: Double
    var float: Float
    var string: String
    var date: Date
    var data: Data
    var uuid: UUID
    var url: URL
    var decimal: Decimal
    var genre: Genre
    var priority: Priority
    var dimensions: Dimensions
    var optionalString: String?
    var optionalInt: Int?
    var optionalDate: Date?
    var optionalGenre: Genre?
    var optionalPriority: Priority?
    var optionalDimensions: Dimensions?
    var defaulted: String = "default"
    @Transient var scratch: Int = 0
    var computed: Int { int * 2 }

    init(seed: Int) {
        flag = seed % 2 == 0
        int = Int.max - seed
        int8 = Int8.min
        int16 = Int16.max
        int32 = Int32.min
        int64 = Int64.min + Int64(seed)
        uint8 = UInt8.max
        uint16 = UInt16.max
        uint32 = UInt32.max
        double = 0.1 + Double(seed)
        float = 1.5
        string = "héllo, wörld \u{1F600} \(seed)"
        date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        data = Data([0, 1, 2, 255, UInt8(seed % 256)])
        uuid = UUID()
        url = URL(string: "https://example.com/a?b=c&d=\(seed)")!
        decimal = Decimal(string: "12345678901234567890.123456789")!
        genre = .poetry
        priority = .high
        dimensions = Dimensions(width: 1.25, height: 2, labels: ["a", "b"])
        optionalString = seed % 2 == 0 ? nil : "present"
        optionalInt = seed % 2 == 0 ? nil : 7
        optionalDate = nil
        optionalGenre = seed % 2 == 0 ? nil : .essay
        optionalPriority = seed % 2 == 0 ? nil : .low
        optionalDimensions = seed % 2 == 0 ? nil : Dimensions(width: 0, height: 0, labels: [])
    }
}

/// A model written by hand, without the macro.
final class Note: PersistentModel {
    static let schemaProperties: [PropertyMetadata] = [
        .property("text", \Note.text),
        .property("pinned", \Note.pinned),
    ]
    var persistentBacking: ModelBacking

    var text: String {
        get { persistentValue(at: 0, as: String.self) }
        set { setPersistentValue(newValue, at: 0, as: String.self) }
    }

    var pinned: Bool {
        get { persistentValue(at: 1, as: Bool.self) }
        set { setPersistentValue(newValue, at: 1, as: Bool.self) }
    }

    init(text: String, pinned: Bool = false) {
        persistentBacking = ModelBacking(for: Note.self)
        persistentBacking.setInitialValue(text, at: 0, as: String.self)
        persistentBacking.setInitialValue(pinned, at: 1, as: Bool.self)
    }

    init(backing: ModelBacking) {
        persistentBacking = backing
    }
}

