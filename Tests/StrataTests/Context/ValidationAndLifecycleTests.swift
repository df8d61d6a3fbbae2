import Strata
import Testing

/// Rejects empty names and records its lifecycle.
@Model final class Member {
    var name: String
    var age: Int = 0
    @Transient var events: [String] = []

    init(name: String) { self.name = name }

    func awakeFromInsert() { events.append("awakeFromInsert") }
    func awakeFromFetch() { events.append("awakeFromFetch") }
    func willSave() { events.append("willSave") }
    func didSave() { events.append("didSave") }
    func prepareForDeletion() { events.append("prepareForDeletion") }

    func validateForInsert() throws { try check() }
    func validateForUpdate() throws { try check() }
    func validateForDelete() throws {
        if age > 100 { throw StrataError(.validation, "members over 100 stay", propertyName: "age") }
    }

    private func check() throws {
        if name.isEmpty { throw StrataError(.validation, "a member needs a name", propertyName: "name") }
        if age < 0 { throw StrataError(.validation, "age cannot be negative", propertyName: "age") }
    }
}

@Suite("Validation and lifecycle")
struct ValidationAndLifecycleTests {
    static let schema = Schema(Member.self)

    @Test(arguments: testedStoreKinds)
    func everyFailureOfOneSaveIsReportedTogetherAndNothingIsWritten(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Self.schema)
        let context = stack.container.newContext()
        let good = Member(name: "Ok")
        let nameless = Member(name: "")
        let negative = Member(name: "Neg")
        negative.age = -1
        for member in [good, nameless, negative] { context.insert(member) }
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .validation)
        #expect(error?.detailedErrors.count == 2)
        #expect(Set(error?.objectIDs ?? []) == [nameless.objectID, negative.objectID])
        #expect(Set(error?.detailedErrors.compactMap(\.propertyName) ?? []) == ["name", "age"])
        #expect(try stack.container.perform { try $0.count(for: FetchRequest<Member>()) } == 0)
        #expect(context.insertedObjects.count == 3)

        nameless.name = "Named"
        negative.age = 1
        try context.save()
        good.age = 101
        try context.save()
        context.delete(good)
        let deleteError = #expect(throws: StrataError.self) { try context.save() }
        #expect(deleteError?.objectIDs == [good.objectID])
        #expect(context.objectGraphProblems().isEmpty)
    }

    @Test(arguments: testedStoreKinds)
    func lifecycleHooksRunInOrder(_ kind: StoreKind) async throws {
        let stack = try await TestStack(kind, schema: Self.schema)
        let context = stack.container.newContext()
        let member = Member(name: "M")
        context.insert(member)
        try context.save()
        member.age = 2
        try context.save()
        context.delete(member)
        try context.save()
        #expect(member.events == [
            "awakeFromInsert", "willSave", "didSave", "willSave", "didSave", "prepareForDeletion", "willSave", "didSave",
        ])

        try stack.container.perform { context in
            context.insert(Member(name: "Fetched"))
        }
        try stack.container.perform { context in
            let fetched = try context.fetch(FetchRequest<Member>())
            #expect(fetched.map(\.events) == [["awakeFromFetch"]])
        }
    }
}
