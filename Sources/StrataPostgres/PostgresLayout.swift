import StrataCore
import StrataSQL

/// Where a schema's rows live in PostgreSQL: one table per entity in the
/// store's schema (namespace), a join table per many-to-many or inverse-less
/// to-many relationship, and Strata's own tables beside them.
///
/// Columns are typed: integers and booleans `BIGINT`, `Double`, `Float` and
/// dates `DOUBLE PRECISION`, data `BYTEA`, everything else `TEXT` with the
/// `"C"` collation, so text sorts by code point as in every store. Each
/// `String` attribute has a hidden `_folded_…` column holding its folded form
/// (case and diacritics removed by Swift's own folding), written with the
/// row, because PostgreSQL cannot call Swift.
///
/// ```swift
/// let layout = PostgresLayout(schema: schema, namespace: "library")
/// layout.entities[0].table   // "library"."Author"
/// ```
struct PostgresLayout: Sendable {
    struct Entity: Sendable {
        let table: String
        /// Quoted column names, by column index.
        let columns: [String]
        /// The hidden folded column of each column holding a `String`, by column index.
        let foldedColumns: [String?]
        /// `t0.pk, t0._version, t0.<column>…`
        let selectList: String
        let propertyCount: Int
        let columnOrdinals: [Int]
    }

    struct JoinTable: Sendable {
        let table: String
        let owner: String
        let member: String
        let ownerPosition: String
        let memberPosition: String
    }

    enum ToMany: Sendable {
        /// Members point at their owner with a foreign key, ordered by a position column.
        case foreignKey(destinationIndex: Int, foreignKey: String, position: String)
        case joinTable(destinationIndex: Int, inverseOrdinal: Int, JoinTable)
    }

    let namespace: String
    let entities: [Entity]
    let toMany: [[ToMany?]]
    let metadataTable: String
    let sequenceTable: String
    let appMetadataTable: String
    let transactionTable: String
    let changeTable: String
    /// The `NOTIFY` channel of this store's commits.
    let channel: String
    /// Each entity's to-many position columns (unquoted), kept on the member's table.
    let positionColumns: [[String]]
    /// The columns of each ordered to-one's index (unquoted), by ordinal.
    let orderedIndexColumns: [[Int: [String]]]
    /// The join tables, each once (under its canonical side).
    let joinTables: [JoinTableDefinition]
    let schema: Schema


    init(schema: Schema, namespace: String) {
        self.schema = schema
        self.namespace = namespace
        let prefix = quote(namespace) + "."
        func qualified(_ name: String) -> String { prefix + quote(name) }
        metadataTable = qualified(StorageNaming.metadataTable)
        sequenceTable = qualified(StorageNaming.sequenceTable)
        appMetadataTable = qualified(StorageNaming.appMetadataTable)
        transactionTable = qualified(StorageNaming.historyTransactionTable)
        changeTable = qualified(StorageNaming.historyChangeTable)
        channel = Self.channel(namespace: namespace)
        entities = schema.entities.map { entity in
            let columns = entity.columnOrdinals.map { quote(entity.properties[$0].name) }
            let folded: [String?] = entity.columnOrdinals.map { ordinal in
                guard let attribute = entity.attribute(at: ordinal), attribute.type == .string else { return nil }
                return quote(StorageNaming.foldedColumn(attribute.name))
            }
            let selectList = (["t0.pk", "t0.\(StorageNaming.versionColumn)"] + columns.map { "t0.\($0)" }).joined(separator: ", ")
            return Entity(
                table: qualified(entity.name), columns: columns, foldedColumns: folded, selectList: selectList,
                propertyCount: entity.properties.count, columnOrdinals: entity.columnOrdinals)
        }
        var toMany = schema.entities.map { Array<ToMany?>(repeating: nil, count: $0.properties.count) }
        var positionColumns = schema.entities.map { _ in [String]() }
        var orderedIndexColumns = schema.entities.map { _ in [Int: [String]]() }
        var joinTables: [JoinTableDefinition] = []
        for entity in schema.entities {
            for (ordinal, property) in entity.properties.enumerated() {
                guard case .relationship(let relationship) = property, relationship.isToMany else { continue }
                let inverse = entity.inverseOrdinalByOrdinal[ordinal]
                let destinationIndex = entity.destinationIndexByOrdinal[ordinal]
                guard destinationIndex >= 0 else { continue }
                let destination = schema.entities[destinationIndex]
                if inverse >= 0, case .relationship(let back) = destination.properties[inverse], !back.isToMany {
                    let position = StorageNaming.positionColumn(forToOne: back.name)
                    positionColumns[destinationIndex].append(position)
                    orderedIndexColumns[destinationIndex][inverse] = [back.name, position]
                    toMany[entity.index][ordinal] = .foreignKey(
                        destinationIndex: destinationIndex, foreignKey: quote(back.name), position: quote(position))
                    continue
                }
                guard case .join(let key, let ownerIsSource, _)? = schema.toManyShape(entityIndex: entity.index, ordinal: ordinal)
                else { continue }
                let canonical = schema.entities[key.entityIndex]
                let name = Self.joinTableName(entity: canonical.name, relationship: canonical.properties[key.ordinal].name)
                let (owner, member) = ownerIsSource ? ("source", "target") : ("target", "source")
                let join = JoinTable(
                    table: qualified(name), owner: quote(owner), member: quote(member),
                    ownerPosition: quote(owner + "_position"), memberPosition: quote(member + "_position"))
                toMany[entity.index][ordinal] = .joinTable(destinationIndex: destinationIndex, inverseOrdinal: inverse, join)
                if ownerIsSource && key.entityIndex == entity.index && key.ordinal == ordinal {
                    joinTables.append(JoinTableDefinition(name: name, source: entity.name, target: destination.name))
                }
            }
        }
        self.toMany = toMany
        self.positionColumns = positionColumns
        self.orderedIndexColumns = orderedIndexColumns
        self.joinTables = joinTables
    }

    /// The `NOTIFY` channel of a namespace: `strata_` and its name, or, where
    /// that would pass PostgreSQL's 63-byte limit on names, the name's start
    /// and a hash of all of it.
    static func channel(namespace: String) -> String {
        let name = "strata_" + namespace.lowercased()
        guard name.utf8.count > 63 else { return name }
        return "strata_" + String(namespace.lowercased().prefix(39)) + "_" + StableHash.hex(namespace)
    }


    /// The PostgreSQL type of an attribute's column.
    static func columnType(_ type: AttributeType) -> String {
        switch type {
        case .bool, .int, .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint, .uint64: "BIGINT"
        case .double, .float, .date: "DOUBLE PRECISION"
        case .data: "BYTEA"
        case .string, .url, .decimal, .codable, .uuid: "TEXT COLLATE \"C\""
        }
    }

    // MARK: Writing rows

    /// The columns an insert writes after `pk` and `_version`: each column,
    /// then its folded twin where it has one.
    func insertSQL(entityIndex: Int) -> String {
        let entity = entities[entityIndex]
        var names = ["pk", StorageNaming.versionColumn]
        for (column, name) in entity.columns.enumerated() {
            names.append(name)
            if let folded = entity.foldedColumns[column] { names.append(folded) }
        }
        let placeholders = (1...names.count).map { "$\($0)" }.joined(separator: ", ")
        return "INSERT INTO \(entity.table) (\(names.joined(separator: ", "))) VALUES (\(placeholders))"
    }

    /// The bound values of an insert: key, version 1, then the columns with their folded twins.
    func insertValues(entityIndex: Int, primaryKey: Int64, values: [StoredValue]) -> [StoredValue] {
        let entity = entities[entityIndex]
        var bound: [StoredValue] = [.integer(primaryKey), .integer(1)]
        bound.reserveCapacity(values.count * 2 + 2)
        for (column, value) in values.enumerated() {
            bound.append(value)
            if entity.foldedColumns[column] != nil { bound.append(Self.folded(value)) }
        }
        return bound
    }

    /// `UPDATE … SET _version = _version + 1, columns… WHERE pk = $1 RETURNING _version`,
    /// with `AND _version = $2` when a version is expected; values follow.
    func updateSQL(entityIndex: Int, columns: [Int], checkingVersion: Bool, alsoRequiring extra: String? = nil) -> String {
        let entity = entities[entityIndex]
        var assignments = ["\(StorageNaming.versionColumn) = \(StorageNaming.versionColumn) + 1"]
        var parameter = checkingVersion ? 3 : 2
        for column in columns {
            assignments.append("\(entity.columns[column]) = $\(parameter)")
            if let folded = entity.foldedColumns[column] {
                assignments.append("\(folded) = $\(parameter + 1)")
                parameter += 1
            }
            parameter += 1
        }
        var condition = checkingVersion ? "pk = $1 AND \(StorageNaming.versionColumn) = $2" : "pk = $1"
        if let extra { condition += " AND \(extra)" }
        return "UPDATE \(entity.table) SET \(assignments.joined(separator: ", ")) WHERE \(condition) RETURNING \(StorageNaming.versionColumn)"
    }

    /// The update of many rows at once: `source` gives `(pk, expected
    /// version, columns…)` rows (a `VALUES` list, or `unnest` of arrays);
    /// returns `pk, _version` when `returning`, else only the count.
    func updateSQL(entityIndex: Int, columns: [Int], checkingVersion: Bool, source: String, returning: Bool = true) -> String {
        let entity = entities[entityIndex]
        var names = ["pk", "expected"]
        var assignments = ["\(StorageNaming.versionColumn) = t.\(StorageNaming.versionColumn) + 1"]
        for column in columns {
            let name = "c\(names.count)"
            names.append(name)
            assignments.append("\(entity.columns[column]) = v.\(name)")
            if let folded = entity.foldedColumns[column] {
                let twin = "c\(names.count)"
                names.append(twin)
                assignments.append("\(folded) = v.\(twin)")
            }
        }
        let condition = "t.pk = v.pk" + (checkingVersion ? " AND t.\(StorageNaming.versionColumn) = v.expected" : "")
        return "UPDATE \(entity.table) AS t SET \(assignments.joined(separator: ", ")) FROM \(source) "
            + "AS v(\(names.joined(separator: ", "))) WHERE \(condition)"
            + (returning ? " RETURNING t.pk, t.\(StorageNaming.versionColumn)" : "")
    }

    /// The SQL type a value of an attribute is bound as.
    static func bindType(_ type: AttributeType) -> String {
        switch type {
        case .bool, .int, .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint, .uint64: "bigint"
        case .double, .float, .date: "double precision"
        case .data: "bytea"
        case .string, .url, .decimal, .codable, .uuid: "text"
        }
    }

    func updateValues(entityIndex: Int, columns: [Int], values: [StoredValue]) -> [StoredValue] {
        let entity = entities[entityIndex]
        var bound: [StoredValue] = []
        for (column, value) in zip(columns, values) {
            bound.append(value)
            if entity.foldedColumns[column] != nil { bound.append(Self.folded(value)) }
        }
        return bound
    }

    static func folded(_ value: StoredValue) -> StoredValue {
        guard case .text(let text) = value else { return .null }
        return .text(TextTransform.folded.apply(text))
    }
}
