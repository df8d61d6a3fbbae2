import Foundation
import Strata
import Testing

/// A predicate's arithmetic means what it means in Swift, for unsaved objects
/// and stored rows alike, except that where Swift stops the program the fetch
/// fails with a `StrataError`.
@Suite("One meaning for arithmetic in predicates")
struct ArithmeticMeaningTests {
    /// Runs `predicate` on the objects `insert` makes, unsaved and then saved,
    /// and returns both outcomes.
    private func outcomes<T: PersistentModel>(
        _ kind: StoreKind, schema: Schema, insert: (ManagedObjectContext) -> Void, _ predicate: Predicate<T>
    ) async throws -> (unsaved: Result<Int, StrataError>, saved: Result<Int, StrataError>) {
        let stack = try await TestStack(kind, schema: schema)
        return try stack.container.perform { context throws in
            insert(context)
            let request = FetchRequest<T>(predicate: predicate)
            let unsaved = Self.count(request, in: context)
            try context.save()
            context.reset()
            return (unsaved, Self.count(request, in: context))
        }
    }

    private static func count<T: PersistentModel>(_ request: FetchRequest<T>, in context: ManagedObjectContext) -> Result<Int, StrataError> {
        do {
            return .success(try context.fetch(request).count)
        } catch let error as StrataError {
            return .failure(error)
        } catch {
            Issue.record("a fetch threw \(error), not a StrataError")
            return .success(-1)
        }
    }

    private func failure(_ result: Result<Int, StrataError>) -> String? {
        guard case .failure(let error) = result, error.code == .unsupportedPredicate else { return nil }
        return error.message
    }

    private func books(_ books: (title: String, year: Int)...) -> (ManagedObjectContext) -> Void {
        { context in for book in books { context.insert(Book(title: book.title, year: book.year)) } }
    }

    @Test(arguments: testedStoreKinds)
    func integerOverflowFailsTheFetchSavedOrNot(_ kind: StoreKind) async throws {
        let insert = books(("late", Int.max - 1), ("early", 1))
        let sum = try await outcomes(kind, schema: librarySchema, insert: insert, #Predicate<Book> { $0.year + 10 > 0 })
        #expect(failure(sum.unsaved)?.contains("overflows") == true)
        #expect(failure(sum.saved)?.contains("overflows") == true)

        let product = try await outcomes(kind, schema: librarySchema, insert: insert, #Predicate<Book> { $0.year * 2 < 0 })
        #expect(failure(product.unsaved) != nil && failure(product.saved) != nil)

        // The same values where nothing overflows.
        let safe = try await outcomes(kind, schema: librarySchema, insert: insert, #Predicate<Book> { $0.year - 10 > 0 })
        #expect(try safe.unsaved.get() == 1 && safe.saved.get() == 1)

        let negated = try await outcomes(kind, schema: librarySchema, insert: books(("min", Int.min)), #Predicate<Book> { -$0.year > 0 })
        #expect(failure(negated.unsaved) != nil && failure(negated.saved) != nil)
    }

    @Test(arguments: testedStoreKinds)
    func integerDivisionByZeroFailsTheFetchUnlessAConditionGuardsIt(_ kind: StoreKind) async throws {
        let insert = books(("zero", 0), ("ten", 10))
        let divided = try await outcomes(kind, schema: librarySchema, insert: insert, #Predicate<Book> { 100 / $0.year > 1 })
        #expect(failure(divided.unsaved)?.contains("zero") == true)
        #expect(failure(divided.saved)?.contains("zero") == true)
        let remainder = try await outcomes(kind, schema: librarySchema, insert: insert, #Predicate<Book> { 100 % $0.year == 0 })
        #expect(failure(remainder.unsaved) != nil && failure(remainder.saved) != nil)

        // `&&` and `||` look at their left side first, in every store.
        let guarded = try await outcomes(kind, schema: librarySchema, insert: insert, #Predicate<Book> { $0.year != 0 && 100 / $0.year > 1 })
        #expect(try guarded.unsaved.get() == 1 && guarded.saved.get() == 1)
        let either = try await outcomes(kind, schema: librarySchema, insert: insert, #Predicate<Book> { $0.year == 0 || 100 / $0.year > 1 })
        #expect(try either.unsaved.get() == 2 && either.saved.get() == 2)
    }

    @Test(arguments: testedStoreKinds)
    func narrowIntegersOverflowAtTheirOwnWidth(_ kind: StoreKind) async throws {
        let insert: (ManagedObjectContext) -> Void = { $0.insert(Sample(seed: 1)) }
        let schema = Schema(Sample.self)
        // int16 is Int16.max and int32 is Int32.min: past them Swift traps, though Int64 would not.
        let int16 = try await outcomes(kind, schema: schema, insert: insert, #Predicate<Sample> { $0.int16 + 1 > 0 })
        #expect(failure(int16.unsaved) != nil && failure(int16.saved) != nil)
        let int32 = try await outcomes(kind, schema: schema, insert: insert, #Predicate<Sample> { $0.int32 - 1 < 0 })
        #expect(failure(int32.unsaved) != nil && failure(int32.saved) != nil)
        let uint8 = try await outcomes(kind, schema: schema, insert: insert, #Predicate<Sample> { $0.uint8 + 1 > 0 })
        #expect(failure(uint8.unsaved) != nil && failure(uint8.saved) != nil)
        let inside = try await outcomes(kind, schema: schema, insert: insert, #Predicate<Sample> { $0.int16 - 1 > 0 && $0.int32 + 1 < 0 })
        #expect(try inside.unsaved.get() == 1 && inside.saved.get() == 1)
    }

    @Test(arguments: testedStoreKinds)
    func realDivisionByZeroIsInfiniteAsInSwift(_ kind: StoreKind) async throws {
        let insert: (ManagedObjectContext) -> Void = { context in
            context.insert(Book(title: "rated", year: 1, rating: 4.5))
            context.insert(Book(title: "negative", year: 2, rating: -1))
        }
        let huge = try await outcomes(kind, schema: librarySchema, insert: insert, #Predicate<Book> { ($0.rating ?? 0) / 0.0 > 1e300 })
        #expect(try huge.unsaved.get() == 1 && huge.saved.get() == 1)
        let tiny = try await outcomes(kind, schema: librarySchema, insert: insert, #Predicate<Book> { ($0.rating ?? 0) / 0.0 < -1e300 })
        #expect(try tiny.unsaved.get() == 1 && tiny.saved.get() == 1)
    }

    @Test(arguments: testedStoreKinds)
    func aRangeWithReversedBoundsHoldsNothing(_ kind: StoreKind) async throws {
        // Swift traps building 20...10; stores find nothing in it, and so do unsaved objects.
        let range = try await outcomes(kind, schema: librarySchema, insert: books(("late", 20), ("early", 5)),
                                       #Predicate<Book> { ($0.year ... 10).contains(7) })
        #expect(try range.unsaved.get() == 1 && range.saved.get() == 1)
    }

    @Test(arguments: testedStoreKinds)
    func aPageFailsAsTheWholeResultWould(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        try stack.container.perform { context throws in
            context.insert(Book(title: "ten", year: 10))
            context.insert(Book(title: "zero", year: 0))
            try context.save()
            // The failing row is outside the page; SQLite's LIMIT alone would never reach it.
            var request = FetchRequest<Book>(predicate: #Predicate { 100 / $0.year > 1 })
            request.fetchLimit = 1
            for limit in [0, 1] {
                request.fetchLimit = limit
                let fetched = #expect(throws: StrataError.self) { _ = try context.fetch(request) }
                #expect(fetched?.code == .unsupportedPredicate)
                let counted = #expect(throws: StrataError.self) { _ = try context.count(for: request) }
                #expect(counted?.code == .unsupportedPredicate)
            }
        }
    }

    @Test(arguments: testedStoreKinds)
    func aRealResultThatIsNotANumberFailsTheFetchSavedOrNot(_ kind: StoreKind) async throws {
        let insert: (ManagedObjectContext) -> Void = { $0.insert(Book(title: "unrated", year: 1, rating: 0)) }
        let nan = try await outcomes(kind, schema: librarySchema, insert: insert, #Predicate<Book> { ($0.rating ?? 0) / 0.0 != 1 })
        #expect(failure(nan.unsaved)?.contains("NaN") == true)
        #expect(failure(nan.saved)?.contains("NaN") == true)
    }

    @Test(arguments: testedStoreKinds)
    func floatArithmeticRoundsAsSwiftsFloatDoes(_ kind: StoreKind) async throws {
        let insert: (ManagedObjectContext) -> Void = { $0.insert(Sample(seed: 1)) }
        // Sample.float is 1.5: 1.5 * 3e38 overflows Float to infinity, not Double.
        let huge: Float = 3e38, infinity = Float.infinity
        let overflow = try await outcomes(kind, schema: Schema(Sample.self), insert: insert,
                                          #Predicate<Sample> { $0.float * huge == infinity })
        #expect(try overflow.unsaved.get() == 1 && overflow.saved.get() == 1)
        // 1.5 + 1e-8 is 1.5 in Float, not in Double.
        let tiny: Float = 1e-8
        let rounded = try await outcomes(kind, schema: Schema(Sample.self), insert: insert,
                                         #Predicate<Sample> { $0.float + tiny == 1.5 })
        #expect(try rounded.unsaved.get() == 1 && rounded.saved.get() == 1)
    }

    @Test(arguments: testedStoreKinds)
    func aFailingLeftSideFailsTheFetchWhateverTheRightSideSays(_ kind: StoreKind) async throws {
        // Swift evaluates the division for every book before looking at the title;
        // SQLite, free to order the terms, could test the title first.
        let divided = try await outcomes(kind, schema: librarySchema, insert: books(("zero", 0), ("ten", 10)),
                                         #Predicate<Book> { 100 / $0.year > 1 && $0.title == "ten" })
        #expect(failure(divided.unsaved) != nil && failure(divided.saved) != nil)
    }

    @Test(arguments: testedStoreKinds)
    func manyFailingTermsStayOneQuery(_ kind: StoreKind) async throws {
        // Twenty terms that can each fail: the query grows with them, not exponentially.
        let offsets = Array(1...20)
        let any = try await outcomes(kind, schema: librarySchema, insert: books(("one", 1)),
                                     #Predicate<Book> { book in offsets.contains { book.year * $0 == 20 } })
        #expect(try any.unsaved.get() == 1 && any.saved.get() == 1)
    }

    @Test(arguments: testedStoreKinds)
    func arithmeticOnCapturedValuesFailsOnlyWhenARowIsEvaluated(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind)
        let ten = 10, zero = 0
        let request = FetchRequest<Book>(predicate: #Predicate { _ in ten / zero > 0 })
        try stack.container.perform { context throws in
            // No book: Swift never evaluates the predicate, and no store does either.
            #expect(try context.fetch(request).isEmpty)
            context.insert(Book(title: "one", year: 1))
            try context.save()
            let failed = #expect(throws: StrataError.self) { _ = try context.fetch(request) }
            #expect(failed?.code == .unsupportedPredicate)
        }
    }
}
