import Strata

@Model final class Item {
    var name: String
    init(name: String) { self.name = name }
}

let container = try PersistentContainer(name: "LightApp", schema: Schema(Item.self))
container.storeDescriptions = [.inMemory()]
try await container.loadPersistentStores()
try container.perform { $0.insert(Item(name: "one")) }
print(try container.perform { try $0.count(for: FetchRequest<Item>()) })
