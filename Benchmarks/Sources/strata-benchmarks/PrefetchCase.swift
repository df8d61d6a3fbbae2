import Foundation
import GRDB
import StrataCore
import StrataSQLite

// Case 14, prefetch: 1,000 owners each with 10 members (a one-to-many),
// fetched with their members and read whole. Raw SQLite and GRDB run the join
// `SELECT … FROM owner JOIN member … ORDER BY owner, position` and group the
// rows into structs (an owner with an array of members); Strata fetches the owners with `relationshipKeyPathsForPrefetching`
// and reads each owner's `members` (two queries, whatever the owner count).

/// An owner of ordered members, written by hand as `@Model` would expand it.
final class BenchOwner: PersistentModel {
    static let schemaProperties: [PropertyMetadata] = [
        .property("name", \BenchOwner.name),
        .property("members", \BenchOwner.members, inverse: \BenchMember.owner),
    ]
    let persistentBacking: ModelBacking
    init(backing: ModelBacking) { persistentBacking = backing }
    init(name: String) {
        persistentBacking = ModelBacking(for: BenchOwner.self)
        persistentBacking.setInitialValue(name, at: 0, as: String.self)
        persistentBacking.setInitialValue([], at: 1, as: [BenchMember].self)
    }

    var name: String { persistentValue(at: 0, as: String.self) }
    var members: [BenchMember] {
        get { persistentValue(at: 1, as: [BenchMember].self) }
        set { setPersistentValue(newValue, at: 1, as: [BenchMember].self) }
    }
}

final class BenchMember: PersistentModel {
    static let schemaProperties: [PropertyMetadata] = [
        .property("value", \BenchMember.value),
        .property("owner", \BenchMember.owner),
    ]
    let persistentBacking: ModelBacking
    init(backing: ModelBacking) { persistentBacking = backing }
    init(value: Int) {
        persistentBacking = ModelBacking(for: BenchMember.self)
        persistentBacking.setInitialValue(value, at: 0, as: Int.self)
        persistentBacking.setInitialValue(nil, at: 1, as: BenchOwner?.self)
    }

    var value: Int { persistentValue(at: 0, as: Int.self) }
    var owner: BenchOwner? {
        get { persistentValue(at: 1, as: BenchOwner?.self) }
        set { setPersistentValue(newValue, at: 1, as: BenchOwner?.self) }
    }
}

/// An owner and its members as raw SQLite and GRDB read them: plain structs.
struct OwnerRow {
    let id: Int64
    let name: String
    var members: [MemberRow] = []

    static func checksum(_ owners: [OwnerRow]) -> Int {
        owners.reduce(0) { sum, owner in owner.members.reduce(sum &+ owner.name.utf8.count) { $0 &+ $1.value } }
    }
}

struct MemberRow {
    let value: Int
}

extension Runner {
    /// Libraries that read owners with their members.
    static var prefetchLibraries: [any BenchLibrary.Type] { [RawLibrary.self, GRDBRowLibrary.self, StrataLibrary.self] }

    private static let ownerSchema = Schema(BenchOwner.self, BenchMember.self)
    private static let joinSQL = """
        SELECT o.pk, o."name", m."value" FROM "BenchOwner" AS o JOIN "BenchMember" AS m ON m."owner" = o.pk \
        ORDER BY o.pk, m."_order_owner", m.pk
        """

    func prefetch() async throws {
        let owners = 1_000, membersPerOwner = 10
        // What every library must read: each owner's name length plus its members' values, in order.
        let expected = (0..<owners).reduce(0) { sum, owner in
            (0..<membersPerOwner).reduce(sum &+ "owner \(owner)".utf8.count) { $0 &+ (owner * membersPerOwner + $1) }
        }
        let directory = try ScratchDirectory("prefetch")
        defer { directory.remove() }
        let path = directory.file()
        do {
            let container = try PersistentContainer(name: "Bench", schema: Self.ownerSchema)
            container.storeDescriptions = [StoreDescription(url: URL(fileURLWithPath: path))]
            try await container.loadPersistentStores()
            try container.perform { context in
                for owner in 0..<owners {
                    let object = BenchOwner(name: "owner \(owner)")
                    context.insert(object)
                    object.members = (0..<membersPerOwner).map { BenchMember(value: owner * membersPerOwner + $0) }
                }
                try context.save()
            }
            try container.persistentStoreCoordinator.close()
        }
        for library in libraries where Self.prefetchLibraries.contains(where: { $0 == library }) {
            var runs: [[Double]] = []
            // Each library opens its database once for all its runs, as an app
            // would (raw SQLite keeps its prepared statement the same way).
            var pool: DatabasePool?
            var container: PersistentContainer?
            defer {
                try? pool?.close()
                try? container?.persistentStoreCoordinator.close()
            }
            func grdbPool(_ path: String) throws -> DatabasePool {
                if let pool { return pool }
                let opened = try DatabasePool(path: path)
                pool = opened
                return opened
            }
            func strataContainer(_ path: String) async throws -> PersistentContainer {
                if let container { return container }
                let opened = try PersistentContainer(name: "Bench", schema: Self.ownerSchema)
                opened.storeDescriptions = [StoreDescription(url: URL(fileURLWithPath: path))]
                try await opened.loadPersistentStores()
                container = opened
                return opened
            }
            for run in 0...workload.runs {
                var checksum = 0
                let elapsed: Duration
                switch library {
                case is RawLibrary.Type:
                    let connection = try RawConnection(path: path)
                    defer { connection.close() }
                    let statement = try connection.prepare(Self.joinSQL)
                    elapsed = try await measure {
                        var owners: [OwnerRow] = []
                        while try statement.step() {
                            let owner = statement.int64(0)
                            if owners.last?.id != owner {
                                owners.append(OwnerRow(id: owner, name: statement.string(1)))
                            }
                            owners[owners.count - 1].members.append(MemberRow(value: statement.int(2)))
                        }
                        statement.reset()
                        checksum = OwnerRow.checksum(owners)
                    }
                case is GRDBRowLibrary.Type:
                    let pool = try grdbPool(path)
                    elapsed = try await measure {
                        try pool.read { db in
                            var owners: [OwnerRow] = []
                            let rows = try Row.fetchCursor(db.cachedStatement(sql: Self.joinSQL))
                            while let row = try rows.next() {
                                let owner: Int64 = row[0]
                                if owners.last?.id != owner {
                                    owners.append(OwnerRow(id: owner, name: row[1]))
                                }
                                owners[owners.count - 1].members.append(MemberRow(value: row[2]))
                            }
                            checksum = OwnerRow.checksum(owners)
                        }
                    }
                default:
                    // A fresh context each run: every object is made again.
                    let context = try await strataContainer(path).newContext()
                    elapsed = try await measure {
                        var request = FetchRequest<BenchOwner>()
                        request.relationshipKeyPathsForPrefetching = [\.members]
                        for owner in try context.fetch(request) {
                            checksum &+= owner.name.utf8.count
                            for member in owner.members { checksum &+= member.value }
                        }
                    }
                }
                precondition(checksum == expected, "\(library.name) read \(checksum), expected \(expected)")
                if run > 0 { runs.append([elapsed.milliseconds]) }
            }
            record(.prefetch, library: library, runs: runs, note: "\(owners) owners × \(membersPerOwner) members")
        }
    }
}
