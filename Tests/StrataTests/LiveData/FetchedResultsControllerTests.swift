import Foundation
import Observation
import Strata
import Testing

/// A results controller stays current through its context's own changes, its
/// saves, merges of other contexts' saves and batch operations, and reports
/// each change as one difference.
@MainActor
@Suite("Fetched results controller")
struct FetchedResultsControllerTests {
    private static let byYearThenTitle = FetchRequest<Book>(sortBy: [SortDescriptor(\.year), SortDescriptor(\.title)])

    /// Books of 1990 ("A", "C") and 2000 ("B"), saved.
    private func shelf(_ stack: TestStack) throws {
        let context = stack.container.newContext()
        for (title, year) in [("A", 1990), ("C", 1990), ("B", 2000)] { context.insert(Book(title: title, year: year)) }
        try context.save()
    }

    private func titles(_ controller: FetchedResultsController<Book>) -> [String] { controller.fetchedObjects.map(\.title) }

    private func sections(_ controller: FetchedResultsController<Book>) -> [String] {
        controller.sections.map { "\($0.name): \($0.objects.map(\.title).joined(separator: " "))" }
    }

    @Test(arguments: testedStoreKinds)
    func backgroundSavesArriveAsOneDifferenceEach(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try shelf(stack)
        let view = stack.container.viewContext
        let controller = FetchedResultsController(fetchRequest: Self.byYearThenTitle, context: view, sectionBy: \.year)
        try controller.performFetch()
        #expect(sections(controller) == ["1990: A C", "2000: B"])
        var changes: [FetchedResultsChange] = []
        controller.onChange = { changes.append($0) }

        // A new book.
        let background = stack.container.newContext()
        background.insert(Book(title: "B2", year: 1990))
        try background.save()
        view.mergePendingChanges()
        #expect(titles(controller) == ["A", "B2", "C", "B"])
        #expect(changes.count == 1)
        let inserted = try #require(controller.fetchedObjects.first { $0.title == "B2" }).objectID
        #expect(changes.last?.difference.map { "\($0)" } == ["\(CollectionDifference<ObjectID>.Change.insert(offset: 1, element: inserted, associatedWith: nil))"])

        // A changed title moves the book within its section.
        let a = try background.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title == "A" }))[0]
        a.title = "D"
        try background.save()
        view.mergePendingChanges()
        #expect(sections(controller) == ["1990: B2 C D", "2000: B"])
        #expect(changes.count == 2)
        let moved = try #require(changes.last).difference.inferringMoves()
        #expect(moved.count == 2)
        #expect(moved.removals.first.map { if case .remove(let offset, _, let to) = $0 { offset == 0 && to == 2 } else { false } } == true)

        // A deletion.
        background.delete(try background.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title == "B" }))[0])
        try background.save()
        view.mergePendingChanges()
        #expect(sections(controller) == ["1990: B2 C D"])
        #expect(changes.count == 3)
        #expect(changes.last?.difference.removals.count == 1)
        #expect(changes.last?.difference.insertions.isEmpty == true)
    }

    @Test(arguments: testedStoreKinds)
    func aChangedSectionKeyMovesTheObjectBetweenSections(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try shelf(stack)
        let context = stack.container.newContext()
        let controller = FetchedResultsController(fetchRequest: Self.byYearThenTitle, context: context, sectionBy: \.year)
        try controller.performFetch()
        var changes: [FetchedResultsChange] = []
        controller.onChange = { changes.append($0) }
        let c = controller.fetchedObjects[1]
        c.year = 2000
        // Unsaved changes count once the context tells them, as in Core Data.
        context.processPendingChanges()
        #expect(sections(controller) == ["1990: A", "2000: B C"])
        #expect(changes.count == 1)
        try context.save()
        #expect(sections(controller) == ["1990: A", "2000: B C"])
        #expect(changes.count == 1)
    }

    @Test(arguments: testedStoreKinds)
    func unsavedInsertsAndDeletionsAndInPlaceUpdates(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try shelf(stack)
        let context = stack.container.newContext()
        let modern = FetchRequest<Book>(predicate: #Predicate { $0.year >= 1995 }, sortBy: [SortDescriptor(\.title)])
        let controller = FetchedResultsController(fetchRequest: modern, context: context)
        try controller.performFetch()
        var changes: [FetchedResultsChange] = []
        controller.onChange = { changes.append($0) }

        context.insert(Book(title: "Z", year: 2010))
        context.insert(Book(title: "Old", year: 1900))    // does not match
        context.processPendingChanges()
        #expect(titles(controller) == ["B", "Z"])

        // A property the request does not sort by: in place.
        let b = controller.fetchedObjects[0]
        b.rating = 5
        context.processPendingChanges()
        #expect(changes.count == 2)
        #expect(changes.last?.difference.isEmpty == true)
        #expect(changes.last?.updatedObjectIDs == [b.objectID])

        // No longer matching leaves; deleting leaves.
        b.year = 1980
        context.delete(controller.fetchedObjects[1])
        context.processPendingChanges()
        #expect(titles(controller).isEmpty)
        #expect(changes.last?.difference.removals.count == 2)
    }

    @Test(arguments: testedStoreKinds)
    func aBatchDeleteLeavesTheResults(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try shelf(stack)
        let view = stack.container.viewContext
        let controller = FetchedResultsController(fetchRequest: Self.byYearThenTitle, context: view)
        try controller.performFetch()
        var changes: [FetchedResultsChange] = []
        controller.onChange = { changes.append($0) }
        _ = try stack.container.execute(BatchDeleteRequest<Book>(predicate: #Predicate { $0.year == 1990 }))
        view.mergePendingChanges()
        #expect(titles(controller) == ["B"])
        #expect(changes.count == 1)
        #expect(changes.last?.difference.removals.count == 2)
    }

    @Test(arguments: testedStoreKinds)
    func aPagedRequestFetchesAgainAfterAChange(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try shelf(stack)
        let context = stack.container.newContext()
        var firstTwo = FetchRequest<Book>(sortBy: [SortDescriptor(\.title)])
        firstTwo.fetchLimit = 2
        let controller = FetchedResultsController(fetchRequest: firstTwo, context: context)
        try controller.performFetch()
        #expect(titles(controller) == ["A", "B"])
        context.insert(Book(title: "0", year: 2020))
        context.processPendingChanges()
        #expect(titles(controller) == ["0", "A"])
    }

    @Test
    func theControllerIsObservable() async throws {
        let stack = try await TestStack(.inMemory)
        try shelf(stack)
        let context = stack.container.newContext()
        let controller = FetchedResultsController(fetchRequest: Self.byYearThenTitle, context: context)
        try controller.performFetch()
        let fired = Locked(false)
        withObservationTracking { _ = controller.fetchedObjects } onChange: { fired.withLock { $0 = true } }
        context.insert(Book(title: "New", year: 1800))
        context.processPendingChanges()
        #expect(fired.value)
    }

    @Test(arguments: testedStoreKinds)
    func neighboursThatMoveTogetherEndInTheOrderAFreshFetchGives(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        for (title, year) in [("A", 2001), ("B", 2002), ("C", 2003)] { context.insert(Book(title: title, year: year)) }
        try context.save()
        let request = FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])
        let controller = FetchedResultsController(fetchRequest: request, context: context)
        try controller.performFetch()
        var changes: [FetchedResultsChange] = []
        controller.onChange = { changes.append($0) }

        // Two neighbours change together, each judged against the other's old place.
        for book in controller.fetchedObjects where book.year < 2003 { book.year = 2010 }
        context.processPendingChanges()
        #expect(titles(controller) == (try context.fetch(request)).map(\.title))
        #expect(titles(controller) == ["C", "A", "B"])
        #expect(changes.count == 1)

        // One object moving past a neighbour that leaves the results.
        let filtered = FetchRequest<Book>(predicate: #Predicate { $0.year < 3000 }, sortBy: [SortDescriptor(\.year)])
        let narrow = FetchedResultsController(fetchRequest: filtered, context: context)
        try narrow.performFetch()
        #expect(titles(narrow) == ["C", "A", "B"])
        let (c, a) = (narrow.fetchedObjects[0], narrow.fetchedObjects[1])
        a.year = 3001       // leaves
        c.year = 2020       // moves past where A was, and past B
        context.processPendingChanges()
        #expect(titles(narrow) == (try context.fetch(filtered)).map(\.title))
        #expect(titles(narrow) == ["B", "C"])
    }

    @Test(arguments: testedStoreKinds)
    func anObjectThatKeepsItsPlaceButChangesItsSectionValueMovesSection(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let context = stack.container.newContext()
        for (title, year) in [("A", 1990), ("B", 1995), ("C", 2000)] { context.insert(Book(title: title, year: year)) }
        try context.save()
        let controller = FetchedResultsController(fetchRequest: Self.byYearThenTitle, context: context, sectionBy: \.year)
        try controller.performFetch()
        #expect(sections(controller) == ["1990: A", "1995: B", "2000: C"])
        controller.fetchedObjects[1].year = 1996
        context.processPendingChanges()
        #expect(sections(controller) == ["1990: A", "1996: B", "2000: C"])
    }

    @Test(arguments: testedStoreKinds)
    func anObjectLeavesWhenTheMembersItsPredicateNeedsAreBatchDeleted(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context in
            for (email, titles) in [("x@example.com", ["X1", "X2"]), ("y@example.com", ["Y1"])] {
                let author = Author(email: email, name: email)
                context.insert(author)
                author.books = titles.map { Book(title: $0, year: 2000) }
            }
            try context.save()
        }
        let view = stack.container.viewContext
        let request = FetchRequest<Author>(predicate: #Predicate { !$0.books.isEmpty }, sortBy: [SortDescriptor(\.email)])
        let controller = FetchedResultsController(fetchRequest: request, context: view)
        try controller.performFetch()
        #expect(controller.fetchedObjects.map(\.email) == ["x@example.com", "y@example.com"])
        _ = try stack.container.execute(BatchDeleteRequest<Book>(predicate: #Predicate { $0.title.starts(with: "X") }))
        view.mergePendingChanges()
        #expect(controller.fetchedObjects.map(\.email) == (try view.fetch(request)).map(\.email))
        #expect(controller.fetchedObjects.map(\.email) == ["y@example.com"])
    }

    @Test(arguments: testedStoreKinds)
    func aLimitedRequestReportsObjectsUpdatedInPlace(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try shelf(stack)
        let view = stack.container.viewContext
        var request = Self.byYearThenTitle
        request.fetchLimit = 2
        let controller = FetchedResultsController(fetchRequest: request, context: view)
        try controller.performFetch()
        #expect(titles(controller) == ["A", "C"])
        var changes: [FetchedResultsChange] = []
        controller.onChange = { changes.append($0) }

        let background = stack.container.newContext()
        let c = try #require(try background.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title == "C" })).first)
        c.rating = 4.5   // not a sort property: C stays where it is
        let events = view.events
        try background.save()
        #expect(try await events.first(within: .seconds(5)) { $0.isMerge } != nil)
        #expect(changes.count == 1)
        #expect(changes.first?.difference.isEmpty == true)
        #expect(changes.first?.updatedObjectIDs == [c.objectID])

        // Refreshing every object may have changed any of them: all are reported updated.
        changes = []
        view.refreshAllObjects()
        view.processPendingChanges()
        #expect(changes.count == 1)
        #expect(changes.first?.difference.isEmpty == true)
        #expect(changes.first.map { Set($0.updatedObjectIDs) } == Set(controller.fetchedObjects.map(\.objectID)))
    }
}
