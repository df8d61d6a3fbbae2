import Foundation

/// One row of the benchmark entity as plain data: ten `Int` attributes, an
/// indexed `Double` and a `String`. Every library stores the same rows.
struct ItemRow: Sendable, Equatable {
    var id: Int64
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int
    var score: Double
    var name: String

    /// The deterministic row number `seq` (1-based): the same for every library.
    init(seq: Int) {
        id = Int64(seq)
        i0 = seq
        i1 = seq &* 3 % 1_000
        i2 = seq % 7
        i3 = seq &* 31 % 65_536
        i4 = -seq
        i5 = seq / 10
        i6 = seq % 2
        i7 = seq &* 7 % 100_000
        i8 = 42
        i9 = seq &* 13 % 9_973
        // Spread over [0, 1000) and unrelated to insertion order, so an index matters.
        score = Double(seq &* 7_919 % 100_003) / 100.003
        name = "item \(seq)"
    }

    init(id: Int64, i0: Int, i1: Int, i2: Int, i3: Int, i4: Int, i5: Int, i6: Int, i7: Int, i8: Int, i9: Int,
         score: Double, name: String) {
        self.id = id
        self.i0 = i0; self.i1 = i1; self.i2 = i2; self.i3 = i3; self.i4 = i4
        self.i5 = i5; self.i6 = i6; self.i7 = i7; self.i8 = i8; self.i9 = i9
        self.score = score
        self.name = name
    }

    /// Rows 1...count.
    static func make(_ count: Int, startingAt first: Int = 1) -> [ItemRow] {
        (first..<(first + count)).map(ItemRow.init(seq:))
    }

    /// A value that depends on every attribute, so reads cannot be optimised away.
    var checksum: Int {
        i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 &+ Int(score) &+ name.utf8.count
    }
}

/// The shared SQL schema of the non-Strata libraries (Strata creates its own
/// table, with the same columns plus its row version).
enum ItemSchema {
    static let table = "item"
    static let create = """
        CREATE TABLE item (
            id INTEGER PRIMARY KEY,
            i0 INTEGER NOT NULL, i1 INTEGER NOT NULL, i2 INTEGER NOT NULL, i3 INTEGER NOT NULL,
            i4 INTEGER NOT NULL, i5 INTEGER NOT NULL, i6 INTEGER NOT NULL, i7 INTEGER NOT NULL,
            i8 INTEGER NOT NULL, i9 INTEGER NOT NULL,
            score REAL NOT NULL, name TEXT NOT NULL);
        CREATE INDEX item_score ON item(score);
        """
    static let columns = "id, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, score, name"
    static let insert = "INSERT INTO item (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    static let selectAll = "SELECT \(columns) FROM item"
    static let query = "SELECT \(columns) FROM item WHERE score >= ? ORDER BY score LIMIT ?"
}

/// Keeps results alive so the optimiser cannot drop the work that made them.
enum Sink {
    nonisolated(unsafe) static var value = 0
    static func consume(_ x: Int) { value &+= x }
}

/// A scratch directory for one case and library, removed afterwards.
struct ScratchDirectory {
    let url: URL
    private static let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("strata-benchmarks-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)

    init(_ name: String) throws {
        url = Self.root.appendingPathComponent(name + "-" + UUID().uuidString.prefix(8), isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A database path in this directory.
    func file(_ name: String = "bench.sqlite") -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }

    static func removeAll() { try? FileManager.default.removeItem(at: root) }
}
