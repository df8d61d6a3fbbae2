import PostgresNIO
import StrataCore

/// A pooled connection and the statements it has prepared.
///
/// ```swift
/// let pooled = PooledConnection(connection: try pool.connect())
/// ```
final class PooledConnection: Sendable {
    let connection: PostgresConnection
    let preparedStatements = PreparedStatements()

    init(connection: PostgresConnection) {
        self.connection = connection
    }
}

/// The statements one connection has prepared, by their text and the
/// kinds of their values.
///
/// Parsing and planning a statement is most of PostgreSQL's work for a
/// one-row save: 0.06 of its 0.08 ms in the server's log, where a prepared
/// statement with its plan cached costs about what a plain one-row `UPDATE`
/// does. Each text is prepared once per connection (one round trip more),
/// then only bound and run.
///
/// ```swift
/// let rows = try session.preparedValues("UPDATE t SET n = $2 WHERE pk = $1 RETURNING _version", [.integer(1), .integer(7)])
/// ```
final class PreparedStatements: @unchecked Sendable {
    // @unchecked: only the session that leased the connection touches it; the pool's lock hands it on.

    /// Prepared statements, by statement text and value kinds.
    fileprivate var statements: [String: PreparedQuery] = [:]
    /// Set when the server forgot a statement this connection prepared (a
    /// pooler between them hands statements to other server connections):
    /// the connection then prepares nothing more.
    fileprivate var isDisabled = false

    /// The most statements one connection keeps prepared; later ones run unprepared.
    static let limit = 128

    /// The underlying error of a statement that named a prepared statement the server does not have.
    struct Missing: Error, Sendable {}
}

extension PostgresSession {
    /// The rows of `sql` (whose `$` outside quotes are its parameters), run as a
    /// statement this connection prepared. Each parameter is written with
    /// the type of its value (`$1::int8`) so the server reads the bound bytes
    /// as they are sent, and a NULL as a literal `NULL`, which takes its
    /// column's type. Without a cache, past its limit, or on a connection
    /// whose server lost a prepared statement, `sql` runs as it is.
    ///
    /// Rows come back as values. postgres-nio asks for binary results of a
    /// prepared statement but labels its cells with the text format the
    /// statement's description gave, so they are read here as the binary
    /// form of their types; columns of types Strata's tables do not use read
    /// as NULL.
    ///
    /// Only for statements outside a transaction: a lost statement fails its
    /// run, which is then made again unprepared, and a failure would end an
    /// open transaction.
    func preparedValues(_ sql: String, _ values: [StoredValue]) throws(StrataError) -> [[StoredValue]] {
        guard let cache = preparedStatements, !cache.isDisabled else { return try Self.values(rows(sql, values)) }
        for value in values { try Self.checkSize(of: value) }
        let (typed, bound) = Self.typedStatement(sql, values)
        let prepared: PreparedQuery
        if let known = cache.statements[typed] {
            prepared = known
        } else {
            guard cache.statements.count < PreparedStatements.limit else { return try Self.values(rows(sql, values)) }
            prepared = try answer(to: connection.prepare(query: typed), doing: "preparing \(typed.prefix(300))")
            cache.statements[typed] = prepared
        }
        let rows: [PostgresRow]
        do {
            rows = try traced(typed) { () throws(StrataError) in
                try answer(to: prepared.execute(bound), doing: "running \(typed.prefix(300))")
            }
        } catch where error.underlyingError is PreparedStatements.Missing {
            cache.isDisabled = true
            return try Self.values(self.rows(sql, values))
        }
        return rows.map { row in
            row.map { cell in cell.bytes.flatMap { Self.binaryValue($0, type: cell.dataType.rawValue) } ?? .null }
        }
    }

    private static func values(_ rows: [PostgresRow]) throws(StrataError) -> [[StoredValue]] {
        var values: [[StoredValue]] = []
        for row in rows {
            var cells: [StoredValue] = []
            for cell in row { cells.append(try value(cell)) }
            values.append(cells)
        }
        return values
    }

    /// `sql` with each `$n` outside quotes written as `$m::type` (numbered
    /// among the values that are not NULL) or `NULL`, and the values to bind.
    /// Quoted names and literals are copied as they are.
    static func typedStatement(_ sql: String, _ values: [StoredValue]) -> (sql: String, bound: [PostgresData]) {
        var numbers = [Int](repeating: 0, count: values.count)
        var bound: [PostgresData] = []
        for (index, value) in values.enumerated() {
            guard let data = Self.data(value) else { continue }
            bound.append(data)
            numbers[index] = bound.count
        }
        var typed = ""
        typed.reserveCapacity(sql.utf8.count + 8 * values.count)
        var scalars = sql.unicodeScalars[...]
        while let special = scalars.firstIndex(where: { $0 == "$" || $0 == "\"" || $0 == "'" }) {
            typed.unicodeScalars.append(contentsOf: scalars[..<special])
            let mark = scalars[special]
            guard mark == "$" else {
                // To the closing quote; a doubled quote inside reads as a close and a reopen.
                let rest = scalars[scalars.index(after: special)...]
                let end = rest.firstIndex(of: mark).map { scalars.index(after: $0) } ?? scalars.endIndex
                typed.unicodeScalars.append(contentsOf: scalars[special..<end])
                scalars = scalars[end...]
                continue
            }
            let dollar = special
            let digits = scalars[scalars.index(after: dollar)...].prefix { ("0"..."9").contains($0) }
            scalars = scalars[digits.endIndex...]
            guard let number = Int(String(digits)), number >= 1, number <= values.count else {
                typed += "$" + String(digits)
                continue
            }
            let value = values[number - 1]
            typed += value.isNull ? "NULL" : "$\(numbers[number - 1])::\(Self.typeName(value))"
        }
        typed.unicodeScalars.append(contentsOf: scalars)
        return (typed, bound)
    }

    private static func typeName(_ value: StoredValue) -> String {
        switch value {
        case .null: "unknown"
        case .integer: "int8"
        case .real: "float8"
        case .text: "text"
        case .blob: "bytea"
        }
    }

    private static func data(_ value: StoredValue) -> PostgresData? {
        switch value {
        case .null: nil
        case .integer(let number): PostgresData(int64: number)
        case .real(let number): PostgresData(double: number)
        case .text(let text): PostgresData(string: text)
        case .blob(let data): PostgresData(bytes: data)
        }
    }
}
