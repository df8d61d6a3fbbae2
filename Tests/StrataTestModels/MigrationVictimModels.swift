import Strata

// Two versions of one entity, for killing a process in the middle of the
// migration between them. `number` widens to `Double`, so the table is
// copied row by row rather than changed in place.

public enum VictimV1: VersionedSchema {
    public static let versionIdentifier = Schema.Version(1, 0, 0)
    public static var models: [any PersistentModel.Type] { [Entry.self] }

    @Model public final class Entry {
        public var name: String
        public var number: Int
        public init(name: String, number: Int) {
            self.name = name
            self.number = number
        }
    }
}

public enum VictimV2: VersionedSchema {
    public static let versionIdentifier = Schema.Version(2, 0, 0)
    public static var models: [any PersistentModel.Type] { [Entry.self] }

    @Model public final class Entry {
        @Attribute(originalName: "name") public var title: String
        public var number: Double
        public var note: String = "migrated"
        public init(title: String, number: Double) {
            self.title = title
            self.number = number
        }
    }
}
