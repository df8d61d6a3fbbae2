import Strata
import StrataPostgres

@Model final class Item {
    var name: String
    init(name: String) { self.name = name }
}

// Without the SQLite trait a container has no default store: the app names one.
let container = try PersistentContainer(name: "PostgresApp", schema: Schema(Item.self))
guard container.storeDescriptions.isEmpty else { fatalError("a default store without SQLite") }
container.storeDescriptions = [.memory()]
try await container.loadPersistentStores()
try container.perform { $0.insert(Item(name: "one")) }
print(try container.perform { try $0.count(for: FetchRequest<Item>()) })
