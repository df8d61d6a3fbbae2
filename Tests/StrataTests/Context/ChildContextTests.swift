import Strata
import Testing

@Suite("Child contexts")
struct ChildContextTests {
    @Test(arguments: testedStoreKinds)
    func aChildsSaveShowsInTheParentButNotInTheStoreUntilTheParentSaves(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let parent = stack.container.newContext()
        let book = Book(title: "Draft", year: 2000)
        parent.insert(book)
        try parent.save()

        let child = parent.newChildContext()
        let draft = try child.existingObject(with: book.objectID, as: Book.self)
        #expect(draft !== book)
        draft.title = "Edited"
        child.insert(Book(title: "New in child", year: 2001))
        #expect(book.title == "Draft", "the parent sees nothing before the child saves")
        try child.save()
        #expect(!child.hasChanges)
        #expect(book.title == "Edited")
        #expect(parent.hasChanges)
        let parentTitles = try parent.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])).map(\.title)
        #expect(parentTitles == ["Edited", "New in child"])

        let stored = try stack.container.perform { context in
            try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])).map(\.title)
        }
        #expect(stored == ["Draft"])
        try parent.save()
        let saved = try stack.container.perform { context in
            try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])).map(\.title)
        }
        #expect(saved == ["Edited", "New in child"])
        #expect(parent.objectGraphProblems().isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    func aChildSeesItsParentsUnsavedChanges(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let parent = stack.container.newContext()
        let author = Author(email: "a@example.com", name: "A")
        parent.insert(author)
        try parent.save()
        author.name = "Renamed, unsaved"
        let unsaved = Book(title: "Unsaved", year: 1999)
        unsaved.author = author

        let child = parent.newChildContext()
        let books = try child.fetch(FetchRequest<Book>())
        #expect(books.map(\.title) == ["Unsaved"])
        #expect(books.first?.objectID == unsaved.objectID)
        let childAuthor = try #require(books.first?.author)
        #expect(childAuthor.name == "Renamed, unsaved")
        #expect(childAuthor.books.map(\.title) == ["Unsaved"])
        #expect(try child.count(for: FetchRequest<Author>(predicate: #Predicate { $0.name == "Renamed, unsaved" })) == 1)
        #expect(child.objectGraphProblems().isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    func discardingAChildDiscardsItsEdits(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let parent = stack.container.newContext()
        let book = Book(title: "Kept", year: 1)
        parent.insert(book)
        try parent.save()
        do {
            let child = parent.newChildContext()
            try child.existingObject(with: book.objectID, as: Book.self).title = "Thrown away"
            child.delete(try child.existingObject(with: book.objectID, as: Book.self))
        }
        #expect(book.title == "Kept")
        #expect(!parent.hasChanges)
    }

    @Test(arguments: testedStoreKinds)
    func relationshipsAndDeletionsMadeInAChildReachTheParent(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let parent = stack.container.newContext()
        let author = Author(email: "a@example.com", name: "A")
        let doomed = Book(title: "Doomed", year: 1)
        parent.insert(author)
        parent.insert(doomed)
        try parent.save()

        let child = parent.newChildContext()
        let childAuthor = try child.existingObject(with: author.objectID, as: Author.self)
        let newBook = Book(title: "Linked", year: 2)
        newBook.author = childAuthor
        child.delete(try child.existingObject(with: doomed.objectID, as: Book.self))
        try child.save()

        #expect(author.books.map(\.title) == ["Linked"])
        #expect(doomed.isDeleted)
        #expect(parent.objectGraphProblems().isEmpty)
        try parent.save()
        let titles = try stack.container.perform { context in
            try context.fetch(FetchRequest<Book>()).map { "\($0.title) by \($0.author?.name ?? "nobody")" }
        }
        #expect(titles == ["Linked by A"])

        // The child keeps working after the parent saved.
        let linked = try #require(try child.fetch(FetchRequest<Book>()).first)
        linked.year = 3
        try child.save()
        #expect(author.books.first?.year == 3)
    }

    @Test(arguments: testedStoreKinds)
    func aGrandchildReadsEveryLevelsUnsavedStateAndSavesThroughIt(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let root = stack.container.newContext()
        root.insert(Book(title: "Saved", year: 1990))
        try root.save()
        root.insert(Book(title: "Unsaved in root", year: 2000))

        let child = root.newChildContext()
        child.insert(Book(title: "Pushed from child", year: 2010))
        try child.save()
        let grandchild = child.newChildContext()
        grandchild.insert(Book(title: "Only in grandchild", year: 2020))

        var request = FetchRequest<Book>(predicate: #Predicate { $0.year >= 2000 }, sortBy: [SortDescriptor(\.year)])
        #expect(try grandchild.fetch(request).map(\.title) == ["Unsaved in root", "Pushed from child", "Only in grandchild"])
        #expect(try grandchild.count(for: request) == 3)
        #expect(try grandchild.aggregate(.max(\.year), of: FetchRequest<Book>()) == 2020)
        request.includesPendingChanges = false
        #expect(try grandchild.fetch(request).map(\.title) == ["Unsaved in root", "Pushed from child"])
        #expect(try grandchild.fetchIdentifiers(request).count == 2)
        request.fetchOffset = 1
        #expect(try await grandchild.fetchAsync(request).map(\.title) == ["Pushed from child"])

        try grandchild.save()
        try child.save()
        try root.save()
        let stored = try stack.container.perform { context in
            try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])).map(\.title)
        }
        #expect(stored == ["Saved", "Unsaved in root", "Pushed from child", "Only in grandchild"])
    }
}

@Suite("Child contexts and many-to-many")
struct ChildContextManyToManyTests {
    @Test(arguments: testedStoreKinds)
    func manyToManyEditsInAChildReachTheParentAndTheStore(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: articleSchema)
        let parent = stack.container.newContext()
        let swift = Tag(name: "swift")
        let linux = Tag(name: "linux")
        let article = Article(title: "Strata")
        parent.insert(article)
        parent.insert(swift)
        parent.insert(linux)
        article.tags = [swift]
        try parent.save()

        let child = parent.newChildContext()
        let draft = try child.existingObject(with: article.objectID, as: Article.self)
        #expect(draft.tags.map(\.name) == ["swift"])
        let childLinux = try child.existingObject(with: linux.objectID, as: Tag.self)
        draft.tags.insert(childLinux, at: 0)
        try child.save()
        #expect(article.tags.map(\.name) == ["linux", "swift"])
        #expect(linux.articles.map(\.title) == ["Strata"])
        #expect(parent.objectGraphProblems().isEmpty)
        try parent.save()
        let stored = try stack.container.perform { context in
            try context.existingObject(with: article.objectID, as: Article.self).tags.map(\.name)
        }
        #expect(stored == ["linux", "swift"])
    }

    @Test(arguments: testedStoreKinds)
    func aChildsManyToManyLoadsWithItsOwnEditsOfTheOtherSide(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: articleSchema)
        let parent = stack.container.newContext()
        let swift = Tag(name: "swift")
        let linux = Tag(name: "linux")
        let article = Article(title: "Strata")
        parent.insert(article)
        parent.insert(swift)
        parent.insert(linux)
        article.tags = [swift, linux]
        try parent.save()

        let child = parent.newChildContext()
        // The other side changes first, while the article's tags are not loaded in the child.
        try child.existingObject(with: linux.objectID, as: Tag.self).articles = []
        let draft = try child.existingObject(with: article.objectID, as: Article.self)
        #expect(draft.tags.map(\.name) == ["swift"])
        #expect(child.objectGraphProblems().isEmpty)
        try child.save()
        #expect(article.tags.map(\.name) == ["swift"])
    }

    @Test(arguments: testedStoreKinds)
    func aChildsSaveThatCannotReachTheParentChangesNothingThereAndKeepsItsChanges(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let parent = stack.container.newContext()
        let first = Book(title: "First", year: 1), second = Book(title: "Second", year: 2)
        parent.insert(first)
        parent.insert(second)
        try parent.save()

        let child = parent.newChildContext()
        try child.existingObject(with: first.objectID, as: Book.self).title = "First, edited"
        try child.existingObject(with: second.objectID, as: Book.self).title = "Second, edited"
        child.insert(Book(title: "New", year: 3))
        // Meanwhile the parent deletes one of the books the child edits.
        parent.delete(second)

        let error = #expect(throws: StrataError.self) { try child.save() }
        #expect(error?.code == .objectNotFound)
        #expect(first.title == "First", "the parent took none of the child's changes")
        #expect(parent.insertedObjects.isEmpty)
        #expect(parent.updatedObjects.isEmpty)
        #expect(child.hasChanges)
        #expect(child.insertedObjects.count == 1)

        // Once the child drops its edit of the deleted book, the save goes through, once.
        child.refresh(try child.existingObject(with: second.objectID, as: Book.self), mergeChanges: false)
        try child.save()
        #expect(first.title == "First, edited")
        #expect(parent.insertedObjects.count == 1)
        try parent.save()
        let titles = try stack.container.perform { context in
            try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year)])).map(\.title)
        }
        #expect(titles == ["First, edited", "New"])
    }

    @Test(arguments: testedStoreKinds)
    func aChildMayDeleteWhatItsParentDeletedToo(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let parent = stack.container.newContext()
        let book = Book(title: "Gone twice", year: 1)
        parent.insert(book)
        try parent.save()
        let child = parent.newChildContext()
        child.delete(try child.existingObject(with: book.objectID, as: Book.self))
        child.insert(Book(title: "Kept", year: 2))
        parent.delete(book)
        try child.save()
        try parent.save()
        let titles = try stack.container.perform { context in try context.fetch(FetchRequest<Book>()).map(\.title) }
        #expect(titles == ["Kept"])
    }
}
