import Foundation
import Strata
import Testing

@Suite("Batch delete")
struct BatchDeleteTests {
    /// Two publishers: the first with a series of two volumes, an editor and
    /// (when asked) a contract; the second with one series.
    struct Catalogue {
        var first, second, series, otherSeries, volumeA, volumeB, editor: ObjectID
        var contract: ObjectID?

        init(_ container: PersistentContainer, withContract: Bool = false) throws {
            let ids = try container.perform { context in
                let first = Publisher(name: "First")
                let second = Publisher(name: "Second")
                let series = Series(name: "Saga")
                let otherSeries = Series(name: "Other")
                let volumes = [Volume(isbn: "111"), Volume(isbn: "222")]
                let editor = Editor(name: "Ed")
                context.insert(first)
                context.insert(second)
                context.insert(series)
                context.insert(otherSeries)
                context.insert(editor)
                series.publisher = first
                otherSeries.publisher = second
                for volume in volumes { context.insert(volume); volume.series = series }
                editor.publisher = first
                var contract: Contract?
                if withContract {
                    contract = Contract(number: 7)
                    context.insert(contract!)
                    contract!.publisher = first
                }
                try context.save()
                return [first, second].map(\.objectID) + [series.objectID, otherSeries.objectID]
                    + volumes.map(\.objectID) + [editor.objectID, contract?.objectID].compactMap { $0 }
            }
            (first, second, series, otherSeries, volumeA, volumeB, editor) = (ids[0], ids[1], ids[2], ids[3], ids[4], ids[5], ids[6])
            contract = ids.count > 7 ? ids[7] : nil
        }
    }

    @Test(arguments: testedStoreKinds)
    @MainActor
    func aDeleteByPredicateReportsCascadesAndClearedRelationshipsAndReachesTheViewContext(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: publishingSchema)
        let catalogue = try Catalogue(stack.container)
        let view = stack.container.viewContext
        let editor = try view.existingObject(with: catalogue.editor, as: Editor.self)
        let first = try view.existingObject(with: catalogue.first, as: Publisher.self)
        #expect(editor.publisher === first)
        #expect(first.series.flatMap(\.volumes).count == 2)

        let result = try stack.container.execute(
            BatchDeleteRequest<Publisher>(predicate: #Predicate { $0.name == "First" }, resultType: .objectIDs))
        #expect(result.count == 1)
        #expect(result.objectIDs == [catalogue.first])
        #expect(Set(result.deletedObjectIDs) == [catalogue.first, catalogue.series, catalogue.volumeA, catalogue.volumeB])
        #expect(result.updatedObjectIDs == [catalogue.editor])
        let cleared = try #require(result.changes.updated.first)
        #expect(cleared.values == [.null])
        #expect(cleared.version == 2)

        #expect(await eventually { editor.publisher == nil })
        #expect(view.registeredObject(for: catalogue.first) == nil)
        #expect(view.registeredObject(for: catalogue.volumeA) == nil)
        #expect(view.objectGraphProblems().isEmpty)
        // The store agrees.
        let fresh = stack.container.newContext()
        #expect(try fresh.fetch(FetchRequest<Series>()).map(\.name) == ["Other"])
        #expect(try fresh.count(for: FetchRequest<Volume>()) == 0)
        #expect(try fresh.existingObject(with: catalogue.editor, as: Editor.self).publisher == nil)
        // The cleared editor's version moved, so the view context's next change saves cleanly.
        editor.name = "Edwina"
        try view.save()
    }

    @Test(arguments: testedStoreKinds)
    func aDeleteByIDsReachesAPlainContextAfterMergingTheResult(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: publishingSchema)
        let catalogue = try Catalogue(stack.container)
        let context = stack.container.newContext()
        let series = try context.existingObject(with: catalogue.series, as: Series.self)
        let volumes = series.volumes
        let editor = try context.existingObject(with: catalogue.editor, as: Editor.self)
        #expect(volumes.count == 2 && editor.publisher != nil)

        let result = try stack.container.execute(BatchDeleteRequest<Series>(objectIDs: [catalogue.series, catalogue.series]))
        #expect(result.count == 1)
        #expect(result.objectIDs.isEmpty)
        #expect(Set(result.deletedObjectIDs) == [catalogue.series, catalogue.volumeA, catalogue.volumeB])
        #expect(result.updatedObjectIDs.isEmpty)
        // The publisher stays and loses a series.
        #expect(result.changes.toManyChanges.map(\.objectID) == [catalogue.first])

        context.merge(result.changes)
        #expect(context.registeredObject(for: catalogue.series) == nil)
        #expect(volumes.allSatisfy { $0.context == nil || $0.isDeleted || context.registeredObject(for: $0.objectID) == nil })
        let publisher = try context.existingObject(with: catalogue.first, as: Publisher.self)
        #expect(publisher.series.isEmpty)
        #expect(context.objectGraphProblems().isEmpty)

        // Deleting again finds nothing.
        let again = try stack.container.execute(BatchDeleteRequest<Series>(objectIDs: [catalogue.series]))
        #expect(again.count == 0 && again.changes.isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    func aCascadeDeclaredOnTheToManySideDeletesMembersInTheLibrary(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let (authorID, bookIDs) = try stack.container.perform { context in
            let author = Author(email: "a@example.com", name: "A")
            context.insert(author)
            let books = [Book(title: "One", year: 1), Book(title: "Two", year: 2)]
            for book in books { context.insert(book); book.author = author }
            context.insert(Book(title: "Alone", year: 3))
            try context.save()
            return (author.objectID, books.map(\.objectID))
        }
        let context = stack.container.newContext()
        let result = try context.execute(BatchDeleteRequest<Author>(objectIDs: [authorID]))
        #expect(Set(result.deletedObjectIDs) == Set([authorID] + bookIDs))
        #expect(try context.fetch(FetchRequest<Book>()).map(\.title) == ["Alone"])
    }

    @Test(arguments: testedStoreKinds)
    func aDenyRuleBlocksTheDeleteAndNothingIsWritten(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: publishingSchema)
        let catalogue = try Catalogue(stack.container, withContract: true)
        let log = ErrorLog()
        stack.container.logError = log.record
        let error = try #require(throws: StrataError.self) {
            try stack.container.execute(BatchDeleteRequest<Publisher>())
        }
        #expect(error.code == .validation)
        #expect(error.entityName == "Publisher")
        #expect(error.propertyName == "contracts")
        #expect(error.objectIDs == [catalogue.contract])
        #expect(log.count == 1)
        let context = stack.container.newContext()
        #expect(try context.count(for: FetchRequest<Publisher>()) == 2)
        #expect(try context.count(for: FetchRequest<Volume>()) == 2)
        #expect(try context.existingObject(with: catalogue.editor, as: Editor.self).publisher != nil)

        // Deleting the contract first lets the publisher go.
        try stack.container.execute(BatchDeleteRequest<Contract>())
        let result = try stack.container.execute(BatchDeleteRequest<Publisher>())
        #expect(result.count == 2)
    }

    /// Three drawers, each inside the one before; returns their IDs, outermost first.
    private func nestedDrawers(_ container: PersistentContainer) throws -> [ObjectID] {
        try container.perform { context in
            let drawers = ["root", "middle", "leaf"].map(Drawer.init(name:))
            for drawer in drawers { context.insert(drawer) }
            drawers[1].parent = drawers[0]
            drawers[2].parent = drawers[1]
            try context.save()
            return drawers.map(\.objectID)
        }
    }

    @Test(arguments: testedStoreKinds)
    func rowsThatADenyRuleRelatesGoTogetherWhenAllAreDeleted(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Drawer.self))
        let drawers = try nestedDrawers(stack.container)

        // The outer drawers still hold one that stays: refused, nothing written.
        let error = try #require(throws: StrataError.self) {
            try stack.container.execute(BatchDeleteRequest<Drawer>(objectIDs: Array(drawers.prefix(2))))
        }
        #expect(error.code == .validation)
        #expect(error.objectIDs == [drawers[2]])
        #expect(try stack.container.newContext().count(for: FetchRequest<Drawer>()) == 3)

        // With the drawer they hold, all three go, whatever order their keys are in.
        let result = try stack.container.execute(BatchDeleteRequest<Drawer>(resultType: .objectIDs))
        #expect(Set(result.objectIDs) == Set(drawers))
        #expect(try stack.container.newContext().count(for: FetchRequest<Drawer>()) == 0)
    }

    @Test(arguments: testedStoreKinds)
    func aContextDeletesDrawersWithTheDrawersTheyHold(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Drawer.self))
        let drawers = try nestedDrawers(stack.container)
        try stack.container.perform { context throws in
            for id in drawers { context.delete(try context.existingObject(with: id, as: Drawer.self)) }
            try context.save()
        }
        #expect(try stack.container.newContext().count(for: FetchRequest<Drawer>()) == 0)
    }

    @Test(arguments: testedStoreKinds)
    func aContextDeletesAPublisherWithTheContractsThatWouldDenyIt(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: publishingSchema)
        let catalogue = try Catalogue(stack.container, withContract: true)
        try stack.container.perform { context throws in
            context.delete(try context.existingObject(with: catalogue.first, as: Publisher.self))
            context.delete(try context.existingObject(with: #require(catalogue.contract), as: Contract.self))
            try context.save()
        }
        let context = stack.container.newContext()
        #expect(try context.count(for: FetchRequest<Publisher>()) == 1)
        #expect(try context.count(for: FetchRequest<Contract>()) == 0)
    }

    @Test(arguments: testedStoreKinds)
    func anIDOfAnotherEntityIsRejected(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: publishingSchema)
        let catalogue = try Catalogue(stack.container)
        let error = try #require(throws: StrataError.self) {
            try stack.container.execute(BatchDeleteRequest<Series>(objectIDs: [catalogue.series, catalogue.editor]))
        }
        #expect(error.code == .validation)
        #expect(try stack.container.newContext().count(for: FetchRequest<Series>()) == 2)
    }

    @Test(arguments: testedStoreKinds)
    @MainActor
    func removingManyToManyMembersReachesLoadedRelationships(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: articleSchema)
        let view = stack.container.viewContext
        let article = Article(title: "A")
        view.insert(article)
        article.tags = [Tag(name: "x"), Tag(name: "y")]
        try view.save()
        #expect(article.tags.map(\.name) == ["x", "y"])
        let result = try stack.container.execute(BatchDeleteRequest<Tag>(predicate: #Predicate { $0.name == "x" }))
        #expect(result.count == 1)
        #expect(result.changes.toManyChanges.map(\.objectID) == [article.objectID])
        #expect(await eventually { article.tags.map(\.name) == ["y"] })
        #expect(view.objectGraphProblems().isEmpty)
    }
}
