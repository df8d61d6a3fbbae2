import Foundation
import GRDB
import StrataCore
import StrataSQLite

// Case 20, relate: N new members attached to one new owner through their
// to-one (`member.owner = owner`, which keeps `owner.members` in step) and
// saved, in one transaction. Raw SQLite and GRDB insert the owner and the N
// member rows with the owner's key and a position. Its growth runs at the
// growth sizes: the time per member must stay flat.

extension Runner {
    /// Libraries that relate members to an owner.
    static var relateLibraries: [any BenchLibrary.Type] { [RawLibrary.self, GRDBRowLibrary.self, StrataLibrary.self] }

    private static let relateSchema = Schema(BenchOwner.self, BenchMember.self)
    private static let createTables = [
        "CREATE TABLE owner (pk INTEGER PRIMARY KEY, name TEXT NOT NULL)",
        "CREATE TABLE member (pk INTEGER PRIMARY KEY, value INTEGER NOT NULL, owner INTEGER REFERENCES owner(pk), position INTEGER)",
        "CREATE INDEX member_owner ON member (owner)",
    ]
    private static let insertOwner = "INSERT INTO owner (name) VALUES (?)"
    private static let insertMember = "INSERT INTO member (value, owner, position) VALUES (?, ?, ?)"

    func relate() async throws {
        var sizes = [workload.rows]
        for size in workload.growthRows where !sizes.contains(size) { sizes.append(size) }
        for size in sizes {
            for library in libraries where Self.relateLibraries.contains(where: { $0 == library }) {
                let directory = try ScratchDirectory("relate-\(library.name)")
                defer { directory.remove() }
                var runs: [[Double]] = []
                let count = size > workload.rows ? min(workload.runs, workload.largeRuns) : workload.runs
                for run in 0...count {
                    let path = directory.file("run\(run).sqlite")
                    let elapsed: Duration = switch library {
                    case is RawLibrary.Type: try Self.relateRaw(size, at: path)
                    case is GRDBRowLibrary.Type: try Self.relateGRDB(size, at: path)
                    default: try await Self.relateStrata(size, at: path)
                    }
                    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                    if run > 0 { runs.append([elapsed.milliseconds]) }
                }
                if size == workload.rows { record(.relate, library: library, runs: runs, note: "\(size) members, one owner") }
                if workload.growthRows.contains(size) {
                    record(.relate, library: library, runs: runs, name: "relate-per-member@\(size)", scale: 1 / Double(size))
                }
            }
        }
    }

    private static func relateRaw(_ members: Int, at path: String) throws -> Duration {
        let connection = try RawConnection(path: path)
        defer { connection.close() }
        for statement in createTables { try connection.execute(statement) }
        let owner = try connection.prepare(insertOwner)
        let member = try connection.prepare(insertMember)
        return try timed {
            try connection.transaction {
                owner.bind("owner", at: 1)
                _ = try owner.step()
                owner.reset()
                let key = try connection.lastInsertedKey()
                for index in 0..<members {
                    member.bind(index, at: 1)
                    member.bind(key, at: 2)
                    member.bind(index, at: 3)
                    _ = try member.step()
                    member.reset()
                }
            }
        }
    }

    private static func relateGRDB(_ members: Int, at path: String) throws -> Duration {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.write { db in for statement in createTables { try db.execute(sql: statement) } }
        return try timed {
            try queue.write { db in
                try db.execute(sql: insertOwner, arguments: ["owner"])
                let key = db.lastInsertedRowID
                let member = try db.cachedStatement(sql: insertMember)
                for index in 0..<members {
                    try member.execute(arguments: [index, key, index])
                }
            }
        }
    }

    private static func timed(_ body: () throws -> Void) throws -> Duration {
        let start = ContinuousClock.now
        try body()
        return ContinuousClock.now - start
    }

    private static func relateStrata(_ members: Int, at path: String) async throws -> Duration {
        let container = try PersistentContainer(name: "Bench", schema: relateSchema)
        container.storeDescriptions = [StoreDescription(url: URL(fileURLWithPath: path))]
        try await container.loadPersistentStores()
        defer { try? container.persistentStoreCoordinator.close() }
        let context = container.newContext()
        let elapsed = try await measure {
            let owner = BenchOwner(name: "owner")
            context.insert(owner)
            for index in 0..<members {
                let member = BenchMember(value: index)
                context.insert(member)
                member.owner = owner
            }
            try context.save()
        }
        let saved = try context.count(for: FetchRequest<BenchMember>())
        precondition(saved == members, "Strata saved \(saved) members of \(members)")
        return elapsed
    }
}
