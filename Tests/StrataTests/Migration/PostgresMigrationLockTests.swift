import Foundation
import Synchronization
import Strata
import Testing
@testable import StrataPostgres

/// A migration waits a bounded time for tables other sessions are reading,
/// gives way and tries again, and fails cleanly when they never let go.
@Suite(.enabled(if: persistentStoreKinds.contains(.postgres), "needs a PostgreSQL server: set STRATA_POSTGRES_URL"))
struct PostgresMigrationLockTests {
    /// A store of version 1 with a few notes, and its server description.
    private func versionOneStore(_ directory: TemporaryDirectory) async throws -> PostgresStoreDescription {
        try await freshPostgresStore(at: directory.file("Notes.sqlite"), schema: Schema(versionedSchema: NotesV1.self)) { context in
            for index in 0..<20 { context.insert(NotesV1.Note(title: "note \(index)", body: "body \(index)")) }
        }
    }

    private func versionTwo(_ server: PostgresStoreDescription) throws -> PersistentContainer {
        let container = try PersistentContainer(name: "Notes", schema: Schema(versionedSchema: NotesV2.self), migrationPlan: NotesPlan.self)
        container.storeDescriptions = [.postgres(server)]
        return container
    }

    /// Another session reads the notes table in an open transaction until `release` is signalled.
    private final class Reader: Sendable {
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        /// Set once the reader's transaction has ended.
        let hasLetGo = Mutex(false)
        private let pool: PostgresConnectionPool

        init(_ server: PostgresStoreDescription) throws {
            pool = try PostgresConnectionPool(description: server)
            let table = "\"\(server.schemaName)\".\"Note\""
            Thread { [self] in
                _ = try? pool.withTransaction { session throws(StrataError) in
                    try session.execute("SELECT count(*) FROM \(table)")
                    holding.signal()
                    // Let go on its own in the end, so a migration that waits on regardless fails the test rather than hanging it.
                    _ = release.wait(timeout: .now() + 120)
                }
                hasLetGo.withLock { $0 = true }
                pool.close()
                finished.signal()
            }.start()
            holding.wait()
        }

        func stop() {
            release.signal()
            finished.wait()
        }
    }

    @Test func aMigrationThatNeverGetsItsLockFailsAndChangesNothing() async throws {
        let directory = TemporaryDirectory()
        var server = try await versionOneStore(directory)
        server.migrationLockTimeout = .milliseconds(100)
        server.migrationAttempts = 2
        let before = try storeContents(.postgres, directory.file("Notes.sqlite"))
        let reader = try Reader(server)
        let failure = await #expect(throws: StrataError.self) { try await versionTwo(server).loadPersistentStores() }
        #expect(failure?.code == .migrationFailed)
        #expect(failure?.message.contains("lock") == true)
        #expect(!reader.hasLetGo.withLock { $0 }, "the load gave up while the reader still held its lock")
        reader.stop()
        #expect(try storeContents(.postgres, directory.file("Notes.sqlite")) == before)

        // Once the reader is done, the same load migrates.
        let container = try versionTwo(server)
        try await container.loadPersistentStores()
        let notes = try container.perform { try $0.fetch(FetchRequest<NotesV2.Note>()).map(\.text) }
        #expect(notes.count == 20 && notes.contains("body 7"))
    }

    @Test func aMigrationGivesWayAndSucceedsWhenTheLockIsFreed() async throws {
        let directory = TemporaryDirectory()
        var server = try await versionOneStore(directory)
        server.migrationLockTimeout = .milliseconds(100)
        server.migrationAttempts = 20
        let reader = try Reader(server)
        // The reader finishes while the migration is retrying.
        let stopper = Thread { Thread.sleep(forTimeInterval: 0.5); reader.stop() }
        stopper.start()
        let container = try versionTwo(server)
        try await container.loadPersistentStores()
        let notes = try container.perform { try $0.fetch(FetchRequest<NotesV2.Note>()).map(\.text) }
        #expect(notes.count == 20 && notes.contains("body 7"))
    }
}
