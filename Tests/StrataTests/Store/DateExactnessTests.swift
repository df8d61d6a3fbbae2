import Foundation
import GRDB
import Strata
import Testing

@Model final class Reminder {
    @Attribute(.preserveValueOnDeletion) var due: Date
    var snoozedUntil: Date?
    init(due: Date) { self.due = due }
}

private let reminderSchema = Schema(Reminder.self)

/// Dates with every last bit in use: the ones a seconds-since-1970 form rounds.
private func awkwardDates() -> [Date] {
    var generator = SystemRandomNumberGenerator()
    let now = Date()
    return (0..<500).map { index in
        if index == 0 { return now }
        let seconds = Double.random(in: -3e9...3e9, using: &generator)
        return Date(timeIntervalSinceReferenceDate: seconds + Double(index) * 1e-6)
    }
}

@Suite("Dates are exact")
struct DateExactnessTests {
    @Test func aDateReadsBackAsTheMomentItWasSetBeforeAnySave() {
        for date in awkwardDates() {
            let reminder = Reminder(due: date)
            #expect(reminder.due == date)
            reminder.snoozedUntil = date
            #expect(reminder.snoozedUntil == date)
        }
    }

    @Test(arguments: testedStoreKinds)
    func datesSurviveTheStoreAPredicateAndASnapshotExactly(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: reminderSchema)
        let dates = awkwardDates()
        let ids = try stack.container.perform { context throws in
            let reminders = dates.map(Reminder.init(due:))
            for reminder in reminders { context.insert(reminder) }
            try context.save()
            return reminders.map(\.objectID)
        }
        try stack.container.perform { context throws in
            for (id, date) in zip(ids, dates) {
                let reminder = try context.existingObject(with: id, as: Reminder.self)
                #expect(reminder.due == date)
                #expect(reminder.snapshot().due == date)
            }
            let target = dates[0]
            let matches = try context.fetch(FetchRequest<Reminder>(predicate: #Predicate { $0.due == target }))
            #expect(matches.map(\.objectID) == [ids[0]], "equality in SQL finds the exact date")
        }
    }

    @Test(arguments: testedStoreKinds)
    func batchRequestsAndHistoryKeepDatesExact(_ kind: StoreKind) async throws {
        let stack = try await TestStack(history: kind, schema: reminderSchema, recordsValueChanges: true)
        let dates = awkwardDates().prefix(50)
        let inserted = try stack.container.execute(
            BatchInsertRequest<Reminder>(objects: dates.map { ["due": $0] }, resultType: .objectIDs))
        let later = Date(timeIntervalSinceReferenceDate: 123_456_789.000_000_1)
        var update = BatchUpdateRequest<Reminder>()
        update.set(\.snoozedUntil, to: later)
        try stack.container.execute(update)
        try stack.container.perform { context throws in
            for (id, date) in zip(inserted.objectIDs, dates) {
                let reminder = try context.existingObject(with: id, as: Reminder.self)
                #expect(reminder.due == date)
                #expect(reminder.snoozedUntil == later)
                context.delete(reminder)
            }
        }
        let history = try stack.container.fetchHistory(after: nil)
        let deletions = history.flatMap(\.changes).filter { $0.changeType == .delete }
        #expect(deletions.count == dates.count)
        for (deletion, date) in zip(deletions, dates) {
            #expect(deletion.tombstone?["due"].flatMap(Date.init(storedValue:)) == date)
        }
        let updates = history.flatMap(\.changes).filter { $0.changeType == .update }
        #expect(updates.allSatisfy { $0.newValues?["snoozedUntil"].flatMap(Date.init(storedValue:)) == later })
    }

    /// A store of format 2 (dates as seconds since 1970) opens, reads every
    /// date as that format did, and is converted once.
    @Test func aStoreWrittenWithSecondsSince1970OpensWithTheSameDates() async throws {
        let stack = try await TestStack(history: .file, schema: reminderSchema, recordsValueChanges: true)
        let since1970: [Double] = [1_700_000_000.123456, 0, -86_400.5, 978_307_200]
        let ids = try stack.container.perform { context throws in
            let reminders = since1970.map { _ in Reminder(due: Date()) }
            for reminder in reminders { context.insert(reminder) }
            try context.save()
            for reminder in reminders { context.delete(reminder) }
            let kept = since1970.map { _ in Reminder(due: Date()) }
            for reminder in kept { context.insert(reminder) }
            try context.save()
            return kept.map(\.objectID)
        }
        let historyBefore = try stack.container.fetchHistory(after: nil)
        try stack.container.persistentStoreCoordinator.close()

        // Rewrite the file as format 2 wrote it.
        let url = stack.container.storeDescriptions[0].url
        let queue = try DatabaseQueue(path: url.path)
        try await queue.write { db in
            for (id, seconds) in zip(ids, since1970) {
                try db.execute(sql: #"UPDATE "Reminder" SET due = ?, snoozedUntil = ? WHERE pk = ?"#,
                               arguments: [seconds, seconds, id.primaryKey!])
            }
            try db.execute(sql: "UPDATE _strata_history_transaction SET timestamp = timestamp + 978307200")
            let rows = try Row.fetchAll(db, sql: "SELECT id, tombstone FROM _strata_history_change WHERE tombstone IS NOT NULL")
            for row in rows {
                try db.execute(sql: "UPDATE _strata_history_change SET tombstone = ? WHERE id = ?",
                               arguments: [#"{"due":{"real":1700000000.123456}}"#, row["id"] as Int64])
            }
            try db.execute(sql: "UPDATE _strata_metadata SET value = '2' WHERE key = 'formatVersion'")
        }
        try queue.close()

        let reopened = try await stack.reopened(schema: reminderSchema)
        try reopened.perform { context throws in
            for (id, seconds) in zip(ids, since1970) {
                let reminder = try context.existingObject(with: id, as: Reminder.self)
                #expect(reminder.due == Date(timeIntervalSince1970: seconds))
                #expect(reminder.snoozedUntil == Date(timeIntervalSince1970: seconds))
            }
        }
        let historyAfter = try reopened.fetchHistory(after: nil)
        // The test shifted the timestamps forward by hand, so they come back within rounding.
        #expect(historyAfter.count == historyBefore.count)
        for (after, before) in zip(historyAfter, historyBefore) {
            #expect(abs(after.timestamp.timeIntervalSince(before.timestamp)) < 1e-6)
        }
        let tombstones = historyAfter.flatMap(\.changes).compactMap { $0.tombstone?["due"].flatMap(Date.init(storedValue:)) }
        #expect(tombstones == Array(repeating: Date(timeIntervalSince1970: 1_700_000_000.123456), count: since1970.count))
        try reopened.persistentStoreCoordinator.close()

        let format = try await DatabaseQueue(path: url.path).read { db in
            try String.fetchOne(db, sql: "SELECT value FROM _strata_metadata WHERE key = 'formatVersion'")
        }
        #expect(format == "3")
    }
}
