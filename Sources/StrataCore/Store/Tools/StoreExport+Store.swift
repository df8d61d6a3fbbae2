import Foundation

extension StoreExport {
    /// Exports an open store of any kind, read through its own queries, in
    /// the format `export(storeAt:as:to:progress:)` writes for a file:
    /// what `strata export` writes of a PostgreSQL store. `sequences` are the
    /// highest keys each entity has given, which only the store kind can read.
    ///
    /// ```swift
    /// try StoreExport.export(store: store, name: "app|library", sequences: ["Book": 1200], as: .json, to: destination)
    /// ```
    @discardableResult
    package static func export(
        store: any PersistentStore, name: String, sequences: [String: Int64], as format: Format, to destination: URL,
        progress: ((Int, Int) -> Void)? = nil
    ) throws(StrataError) -> Summary {
        let schema = store.schema
        var contents = Contents(fingerprint: schema.fingerprint, schema: schema.summary)
        contents.sequences = sequences
        for entity in schema.entities {
            contents.rowCounts[entity.name] = try store.count(FetchPlan(entityIndex: entity.index))
        }
        try write(contents, as: format, to: destination, progress: progress) { layout, body throws(StrataError) in
            guard let entity = schema.entity(named: layout.name) else { return }
            try forEachRecord(of: entity, layout: layout, in: store, body)
        }
        return Summary(fileName: name, format: format, rowCounts: contents.rowCounts)
    }

    /// Reads each row of `entity` in key order, with its to-many members in their order.
    private static func forEachRecord(
        of entity: EntityDescription, layout: RecordedStoreLayout.Entity, in store: any PersistentStore,
        _ body: (Record) throws(StrataError) -> Void
    ) throws(StrataError) {
        let ordinals = layout.columns.map { column in entity.properties.firstIndex { $0.name == column.name } }
        let keys = try store.fetchKeys(FetchPlan(
            entityIndex: entity.index, sort: [SortTerm(.key(.row(0, entity: entity.index)), ascending: true)]))
        var membersByOwner: [[Int64: [Int64]]] = []
        for toMany in layout.toMany {
            guard let ordinal = entity.properties.firstIndex(where: { $0.name == toMany.name }) else {
                membersByOwner.append([:])
                continue
            }
            membersByOwner.append(try members(of: entity, ordinal: ordinal, owners: keys, in: store))
        }
        guard let first = keys.first, let last = keys.last else { return }
        // The body's failure is the export's: the store passes it on as it came.
        var failure: StrataError?
        do {
            try store.fetchRows(entityIndex: entity.index, keyRange: first...last) { row in
                let values = row.decodeValues()
                do throws(StrataError) {
                    try body(Record(
                        key: row.primaryKey, version: row.version,
                        values: ordinals.map { $0.map { values[$0] } ?? .null },
                        members: membersByOwner.map { $0[row.primaryKey] ?? [] }))
                } catch {
                    failure = error
                    throw error
                }
            }
        } catch {
            throw failure ?? error
        }
    }

    /// Every owner's members of one to-many relationship, in their order.
    private static func members(
        of entity: EntityDescription, ordinal: Int, owners: [Int64], in store: any PersistentStore
    ) throws(StrataError) -> [Int64: [Int64]] {
        guard !owners.isEmpty else { return [:] }
        var positioned: [Int64: [(position: Int64, key: Int64)]] = [:]
        var arrival: Int64 = 0
        try store.fetchMembers(entityIndex: entity.index, ordinal: ordinal, owners: owners, everyOwner: true) {
            owner, position, row in
            arrival += 1
            // Rows that come in order keep it; stored positions are sorted by, ties by arrival.
            let place = if case .stored(let stored) = position { stored } else { arrival }
            positioned[owner, default: []].append((place, row.primaryKey))
        }
        return positioned.mapValues { members in
            members.enumerated().sorted { ($0.element.position, $0.offset) < ($1.element.position, $1.offset) }.map(\.element.key)
        }
    }
}
