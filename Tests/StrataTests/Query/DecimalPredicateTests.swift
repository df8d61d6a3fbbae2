import Foundation
import Strata
import Testing

/// `Decimal` attributes are stored as text but compare as numbers in predicates,
/// saved or not.
@Suite("Decimal predicates")
struct DecimalPredicateTests {
    private func decimals(_ context: ManagedObjectContext, _ predicate: Predicate<Sample>) throws -> [Decimal] {
        try context.fetch(FetchRequest<Sample>(predicate: predicate)).map(\.decimal).sorted()
    }

    @Test(arguments: testedStoreKinds)
    func decimalsCompareByValueSavedOrNot(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Schema(Sample.self))
        let values = ["9.5", "10", "100.25", "-5", "0.001"].map { Decimal(string: $0)! }
        let threshold = Decimal(string: "9.75")!, low = Decimal(string: "-1")!, high = Decimal(10)
        try stack.container.perform { context throws in
            for (seed, value) in values.enumerated() {
                let sample = Sample(seed: seed)
                sample.decimal = value
                context.insert(sample)
            }
            // Text would put "10" and "100.25" below "9.75", and "-5" above "0.001".
            let expectations: [(Predicate<Sample>, [String])] = [
                (#Predicate { $0.decimal > threshold }, ["10", "100.25"]),
                (#Predicate { $0.decimal <= threshold }, ["-5", "0.001", "9.5"]),
                (#Predicate { (low ... high).contains($0.decimal) }, ["0.001", "9.5", "10"]),
                (#Predicate { (low ..< high).contains($0.decimal) }, ["0.001", "9.5"]),
            ]
            for (predicate, expected) in expectations {
                let wanted = expected.map { Decimal(string: $0)! }.sorted()
                #expect(try decimals(context, predicate) == wanted)
            }
            try context.save()
            context.reset()
            for (predicate, expected) in expectations {
                let wanted = expected.map { Decimal(string: $0)! }.sorted()
                #expect(try decimals(context, predicate) == wanted)
            }
        }
    }
}
