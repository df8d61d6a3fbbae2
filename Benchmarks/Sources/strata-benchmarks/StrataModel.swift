import StrataCore

/// The benchmark entity as a Strata model, written by hand the way the `@Model`
/// macro would expand it (the macro would pull a release build of swift-syntax).
final class StrataItem: PersistentModel {
    static let schemaProperties: [PropertyMetadata] = [
        .property("i0", \StrataItem.i0),
        .property("i1", \StrataItem.i1),
        .property("i2", \StrataItem.i2),
        .property("i3", \StrataItem.i3),
        .property("i4", \StrataItem.i4),
        .property("i5", \StrataItem.i5),
        .property("i6", \StrataItem.i6),
        .property("i7", \StrataItem.i7),
        .property("i8", \StrataItem.i8),
        .property("i9", \StrataItem.i9),
        .property("score", \StrataItem.score),
        .property("name", \StrataItem.name),
    ]
    /// The `#Index([\.score])` equivalent.
    static var indexes: [[String]] { [["score"]] }
    var persistentBacking: ModelBacking

    var i0: Int {
        get { persistentValue(at: 0, as: Int.self) }
        set { setPersistentValue(newValue, at: 0, as: Int.self) }
    }

    var i1: Int {
        get { persistentValue(at: 1, as: Int.self) }
        set { setPersistentValue(newValue, at: 1, as: Int.self) }
    }

    var i2: Int {
        get { persistentValue(at: 2, as: Int.self) }
        set { setPersistentValue(newValue, at: 2, as: Int.self) }
    }

    var i3: Int {
        get { persistentValue(at: 3, as: Int.self) }
        set { setPersistentValue(newValue, at: 3, as: Int.self) }
    }

    var i4: Int {
        get { persistentValue(at: 4, as: Int.self) }
        set { setPersistentValue(newValue, at: 4, as: Int.self) }
    }

    var i5: Int {
        get { persistentValue(at: 5, as: Int.self) }
        set { setPersistentValue(newValue, at: 5, as: Int.self) }
    }

    var i6: Int {
        get { persistentValue(at: 6, as: Int.self) }
        set { setPersistentValue(newValue, at: 6, as: Int.self) }
    }

    var i7: Int {
        get { persistentValue(at: 7, as: Int.self) }
        set { setPersistentValue(newValue, at: 7, as: Int.self) }
    }

    var i8: Int {
        get { persistentValue(at: 8, as: Int.self) }
        set { setPersistentValue(newValue, at: 8, as: Int.self) }
    }

    var i9: Int {
        get { persistentValue(at: 9, as: Int.self) }
        set { setPersistentValue(newValue, at: 9, as: Int.self) }
    }

    var score: Double {
        get { persistentValue(at: 10, as: Double.self) }
        set { setPersistentValue(newValue, at: 10, as: Double.self) }
    }

    var name: String {
        get { persistentValue(at: 11, as: String.self) }
        set { setPersistentValue(newValue, at: 11, as: String.self) }
    }

    init(_ row: ItemRow) {
        persistentBacking = ModelBacking(for: StrataItem.self)
        persistentBacking.setInitialValue(row.i0, at: 0, as: Int.self)
        persistentBacking.setInitialValue(row.i1, at: 1, as: Int.self)
        persistentBacking.setInitialValue(row.i2, at: 2, as: Int.self)
        persistentBacking.setInitialValue(row.i3, at: 3, as: Int.self)
        persistentBacking.setInitialValue(row.i4, at: 4, as: Int.self)
        persistentBacking.setInitialValue(row.i5, at: 5, as: Int.self)
        persistentBacking.setInitialValue(row.i6, at: 6, as: Int.self)
        persistentBacking.setInitialValue(row.i7, at: 7, as: Int.self)
        persistentBacking.setInitialValue(row.i8, at: 8, as: Int.self)
        persistentBacking.setInitialValue(row.i9, at: 9, as: Int.self)
        persistentBacking.setInitialValue(row.score, at: 10, as: Double.self)
        persistentBacking.setInitialValue(row.name, at: 11, as: String.self)
    }

    init(backing: ModelBacking) {
        persistentBacking = backing
    }

    /// Reads every attribute once.
    var checksum: Int {
        i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 &+ Int(score) &+ name.utf8.count
    }
}
