import Foundation
import Strata
import Testing

/// Apple's Earthquakes sample keys quakes by their feed code.
@Model final class Quake {
    @Attribute(.unique) var code: String
    var magnitude: Double
    var place: String
    var time: Date
    var depth: Double?
    init(code: String, magnitude: Double, place: String, time: Date) {
        self.code = code
        self.magnitude = magnitude
        self.place = place
        self.time = time
    }
}

/// A compound key: one reading per station and day.
@Model final class Reading {
    #Unique<Reading>([\.station, \.day])
    var station: String
    var day: Int
    var value: Double
    init(station: String, day: Int, value: Double) {
        self.station = station
        self.day = day
        self.value = value
    }
}

/// Two unique keys, one of them optional.
@Model final class Badge {
    @Attribute(.unique) var email: String?
    @Attribute(.unique) var code: String
    var label: String
    var note: String?
    init(code: String, label: String) {
        self.code = code
        self.label = label
    }
}

private let quakeSchema = Schema(Quake.self, Reading.self)
private let start = Date(timeIntervalSinceReferenceDate: 800_000_000)

private func feed(_ codes: ClosedRange<Int>, magnitude: Double) -> [[String: any Sendable]] {
    codes.map { ["code": "q\($0)", "magnitude": magnitude, "place": "place \($0)", "time": start + Double($0)] }
}

@Suite("Batch inserts over unique keys")
struct BatchUpsertTests {
    @Test(arguments: testedStoreKinds)
    @MainActor
    func aSecondDownloadUpdatesStoredQuakesAndInsertsNewOnes(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind, schema: quakeSchema, recordsValueChanges: true)
        let view = stack.container.viewContext
        try stack.container.execute(BatchInsertRequest<Quake>(objects: feed(1...4, magnitude: 2)))
        let q1 = try #require(try view.fetch(FetchRequest<Quake>(predicate: #Predicate { $0.code == "q1" })).first)
        let before = try stack.container.fetchHistory(after: nil).last?.token

        let refresh = BatchInsertRequest<Quake>(objects: feed(3...6, magnitude: 5), resultType: .objectIDs)
        let result = try stack.container.execute(refresh, author: "refresh", mergePolicy: .mergeByPropertyObjectTrump)
        #expect(result.count == 4)
        #expect(result.insertedObjectIDs.count == 2)
        #expect(result.updatedObjectIDs.count == 2)

        let quakes = try view.fetch(FetchRequest<Quake>(sortBy: [SortDescriptor(\.code, comparator: .lexical)]))
        #expect(quakes.map(\.code) == ["q1", "q2", "q3", "q4", "q5", "q6"])
        #expect(quakes.map(\.magnitude) == [2, 2, 5, 5, 5, 5])
        #expect(q1.magnitude == 2)

        let transaction = try #require(try stack.container.fetchHistory(after: before).first)
        #expect(transaction.author == "refresh")
        let updates = transaction.changes.filter { $0.changeType == .update }
        #expect(updates.count == 2)
        #expect(updates.allSatisfy { $0.updatedProperties == ["code", "magnitude", "place", "time"] },
                "depth was not in the feed, so it was not written")
        #expect(updates.allSatisfy { $0.oldValues?["magnitude"] == .real(2) && $0.newValues?["magnitude"] == .real(5) })
        #expect(transaction.changes.filter { $0.changeType == .insert }.count == 2)
        // The stored quakes kept their keys: the view context's objects are the same rows.
        #expect(Set(result.updatedObjectIDs) == Set(quakes[2...3].map(\.objectID)))
    }

    @Test(arguments: testedStoreKinds)
    @MainActor
    func updatedRowsReachMergingContexts(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: quakeSchema)
        let view = stack.container.viewContext
        try stack.container.execute(BatchInsertRequest<Quake>(objects: feed(1...2, magnitude: 2)))
        let held = try view.fetch(FetchRequest<Quake>(sortBy: [SortDescriptor(\.code, comparator: .lexical)]))
        try stack.container.execute(BatchInsertRequest<Quake>(objects: feed(1...1, magnitude: 7)), mergePolicy: .overwrite)
        #expect(await eventually { held[0].magnitude == 7 })
        #expect(held[1].magnitude == 2)
    }

    @Test(arguments: testedStoreKinds)
    func storeTrumpKeepsStoredRowsAndErrorFailsTheWholeBatch(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: quakeSchema)
        try stack.container.execute(BatchInsertRequest<Quake>(objects: feed(1...2, magnitude: 2)))

        let kept = try stack.container.execute(
            BatchInsertRequest<Quake>(objects: feed(2...3, magnitude: 9)), mergePolicy: .mergeByPropertyStoreTrump)
        #expect(kept.insertedObjectIDs.count == 1)
        #expect(kept.updatedObjectIDs.isEmpty)

        let error = #expect(throws: StrataError.self) {
            try stack.container.execute(BatchInsertRequest<Quake>(objects: feed(3...4, magnitude: 9)))
        }
        #expect(error?.code == .uniquenessConflict)
        let magnitudes = try stack.container.perform { context in
            try context.fetch(FetchRequest<Quake>(sortBy: [SortDescriptor(\.code, comparator: .lexical)])).map(\.magnitude)
        }
        #expect(magnitudes == [2, 2, 9], "store trump kept q2; the failed batch wrote nothing")
    }

    @Test(arguments: testedStoreKinds)
    func anUpdateLeavesOptionalPropertiesTheRowDoesNotSet(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: quakeSchema)
        var first = feed(1...2, magnitude: 2)
        first[0]["depth"] = 10.0
        first[1]["depth"] = 20.0
        try stack.container.execute(BatchInsertRequest<Quake>(objects: first))
        let context = stack.container.newContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        var second = feed(1...2, magnitude: 3.5)
        second[1].updateValue(Double?.none as any Sendable, forKey: "depth")   // set, to nothing
        let result = try context.execute(BatchInsertRequest<Quake>(objects: second, resultType: .objectIDs))
        #expect(result.updatedObjectIDs.count == 2)
        #expect(result.changes.updated.map { $0.propertyNames.sorted() }
                == [["code", "magnitude", "place", "time"], ["code", "depth", "magnitude", "place", "time"]])
        let quakes = try context.fetch(FetchRequest<Quake>(sortBy: [SortDescriptor(\.code, comparator: .lexical)]))
        #expect(quakes.map(\.magnitude) == [3.5, 3.5])
        #expect(quakes.map(\.depth) == [10, nil])
    }

    @Test(arguments: testedStoreKinds)
    func rowsSharingAKeyInOneRequestCountOnce(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: quakeSchema)
        let rows = feed(1...1, magnitude: 1) + feed(1...1, magnitude: 2)
        let latest = try stack.container.execute(BatchInsertRequest<Quake>(objects: rows), mergePolicy: .overwrite)
        #expect(latest.count == 1)
        let first = try stack.container.execute(
            BatchInsertRequest<Quake>(objects: feed(2...2, magnitude: 1) + feed(2...2, magnitude: 2)), mergePolicy: .rollback)
        #expect(first.count == 1)
        let magnitudes = try stack.container.perform { context in
            try context.fetch(FetchRequest<Quake>(sortBy: [SortDescriptor(\.code, comparator: .lexical)])).map(\.magnitude)
        }
        #expect(magnitudes == [2, 1])
    }

    @Test(arguments: testedStoreKinds)
    func compoundKeysUpsertToo(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: quakeSchema)
        let rows: [[String: any Sendable]] = [
            ["station": "a", "day": 1, "value": 1.0], ["station": "a", "day": 2, "value": 2.0],
        ]
        try stack.container.execute(BatchInsertRequest<Reading>(objects: rows))
        let again: [[String: any Sendable]] = [
            ["station": "a", "day": 2, "value": 20.0], ["station": "b", "day": 2, "value": 3.0],
        ]
        let result = try stack.container.execute(BatchInsertRequest<Reading>(objects: again), mergePolicy: .mergeByPropertyObjectTrump)
        #expect(result.insertedObjectIDs.count == 1)
        #expect(result.updatedObjectIDs.count == 1)
        let values = try stack.container.perform { context in
            try context.fetch(FetchRequest<Reading>(sortBy: [SortDescriptor(\.station, comparator: .lexical), SortDescriptor(\.day)]))
                .map(\.value)
        }
        #expect(values == [1, 20, 3])
    }

    @Test func aCustomPolicyInsertsNewKeysAndFailsOnATakenOne() async throws {
        let stack = try await TestStack(.inMemory, schema: quakeSchema)
        let context = stack.container.newContext()
        context.mergePolicy = .custom { _ in [:] }
        try context.execute(BatchInsertRequest<Quake>(objects: feed(1...1, magnitude: 1)))
        let error = #expect(throws: StrataError.self) {
            try context.execute(BatchInsertRequest<Quake>(objects: feed(1...2, magnitude: 1)))
        }
        #expect(error?.code == .uniquenessConflict)
        #expect(try context.count(for: FetchRequest<Quake>()) == 1)
    }

    @Test(arguments: testedStoreKinds)
    func overwriteWritesEveryPropertyAndObjectTrumpOnlyThoseGiven(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: quakeSchema)
        var first = feed(1...2, magnitude: 2)
        first[0]["depth"] = 10.0
        first[1]["depth"] = 20.0
        try stack.container.execute(BatchInsertRequest<Quake>(objects: first))
        try stack.container.execute(BatchInsertRequest<Quake>(objects: feed(1...1, magnitude: 3)), mergePolicy: .mergeByPropertyObjectTrump)
        try stack.container.execute(BatchInsertRequest<Quake>(objects: feed(2...2, magnitude: 3)), mergePolicy: .overwrite)
        let depths = try stack.container.perform { context in
            try context.fetch(FetchRequest<Quake>(sortBy: [SortDescriptor(\.code, comparator: .lexical)])).map(\.depth)
        }
        #expect(depths == [10, nil])
    }

    /// One stored row reached by two request rows through different keys is one change.
    @Test(arguments: testedStoreKinds)
    func aStoredRowReachedThroughTwoKeysIsOneUpdate(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind, schema: Schema(Badge.self), recordsValueChanges: true)
        try stack.container.execute(BatchInsertRequest<Badge>(objects: [["code": "c1", "email": "a", "label": "old"]]))
        let rows: [[String: any Sendable]] = [
            ["code": "c1", "label": "from code"],
            ["email": "a", "code": "c1", "label": "from both", "note": "set"],
        ]
        let result = try stack.container.execute(BatchInsertRequest<Badge>(objects: rows), mergePolicy: .mergeByPropertyObjectTrump)
        #expect(result.count == 1)
        #expect(result.updatedObjectIDs.count == 1)
        let badge = try stack.container.perform { context in try context.fetch(FetchRequest<Badge>()).map { ($0.label, $0.note) } }
        #expect(badge.count == 1)
        #expect(badge.first?.0 == "from both")
    }

    /// Rows are settled in order: an update that moves a unique value away
    /// frees it for a later row, which is then inserted.
    @Test(arguments: testedStoreKinds)
    func anUpdateThatMovesAUniqueValueFreesItForALaterRow(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Badge.self))
        try stack.container.execute(BatchInsertRequest<Badge>(objects: [["code": "c1", "email": "a", "label": "old"]]))
        let rows: [[String: any Sendable]] = [
            ["code": "c1", "email": "b", "label": "moved"],
            ["code": "c2", "email": "a", "label": "new"],
        ]
        let result = try stack.container.execute(BatchInsertRequest<Badge>(objects: rows), mergePolicy: .mergeByPropertyObjectTrump)
        #expect(result.updatedObjectIDs.count == 1)
        #expect(result.insertedObjectIDs.count == 1)
        let badges = try stack.container.perform { context in
            try context.fetch(FetchRequest<Badge>(sortBy: [SortDescriptor(\.code, comparator: .lexical)]))
                .map { "\($0.code) \($0.email ?? "-") \($0.label)" }
        }
        #expect(badges == ["c1 b moved", "c2 a new"])
    }

    /// Many rows at once: those holding a stored key by their second
    /// constraint (the first left empty) update, the rest insert.
    @Test(arguments: testedStoreKinds)
    func manyRowsFindTheirStoredRowsThroughAnyConstraint(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind, schema: Schema(Badge.self), recordsValueChanges: true)
        let stored: [[String: any Sendable]] = (1...50).map { ["code": "c\($0)", "email": "e\($0)", "label": "old \($0)"] }
        try stack.container.execute(BatchInsertRequest<Badge>(objects: stored))
        let before = try #require(try stack.container.currentHistoryToken())
        let rows: [[String: any Sendable]] = (26...100).map { ["code": "c\($0)", "label": "new \($0)", "note": "n\($0)"] }
        let result = try stack.container.execute(BatchInsertRequest<Badge>(objects: rows), mergePolicy: .mergeByPropertyObjectTrump)
        #expect(result.updatedObjectIDs.count == 25)
        #expect(result.insertedObjectIDs.count == 50)
        let badges = try stack.container.perform { context in
            try context.fetch(FetchRequest<Badge>()).map { ($0.code, $0.email, $0.label, $0.note) }
        }
        #expect(badges.count == 100)
        for (code, email, label, note) in badges {
            let number = try #require(Int(code.dropFirst()))
            #expect(label == (number < 26 ? "old \(number)" : "new \(number)"))
            #expect(email == (number <= 50 ? "e\(number)" : nil), "an update keeps the value its row does not set")
            #expect(note == (number < 26 ? nil : "n\(number)"))
        }
        // History records the old label of each updated row.
        let changes = try #require(try stack.container.fetchHistory(after: before).last).changes
        let updated = changes.filter { $0.changeType == .update }
        #expect(updated.count == 25)
        #expect(updated.allSatisfy { change in
            guard case .text(let label)? = change.oldValues?["label"] else { return false }
            return label.hasPrefix("old ")
        })
    }

    @Test(arguments: testedStoreKinds)
    func anOverwritingUpsertKeepsOneToOneLinksItCannotSet(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Pilot.self, Licence.self))
        try stack.container.perform { context in
            let pilot = Pilot(name: "P")
            context.insert(pilot)
            pilot.licence = Licence(number: "L")
            try context.save()
        }
        try stack.container.execute(BatchInsertRequest<Pilot>(objects: [["name": "P", "rank": 2]]), mergePolicy: .overwrite)
        let (rank, licence, holder) = try stack.container.perform { context in
            let pilot = try #require(try context.fetch(FetchRequest<Pilot>()).first)
            let licence = try #require(try context.fetch(FetchRequest<Licence>()).first)
            return (pilot.rank, pilot.licence?.number, licence.holder?.name)
        }
        #expect(rank == 2)
        #expect(licence == "L", "the upsert left the pilot's side of the one-to-one alone")
        #expect(holder == "P")
    }
}
