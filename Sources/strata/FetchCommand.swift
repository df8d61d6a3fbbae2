import ArgumentParser
import Foundation
import Strata

/// `strata fetch STORE ENTITY`: rows of one entity as a table.
struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Show rows of one entity as a table, filtered, sorted and limited.",
        discussion: """
            Conditions compare a stored attribute or to-one relationship (the related row's key) with a value: \
            =, !=, <, <=, >, >=, contains, beginswith, endswith; '= nil' finds rows without a value. Join \
            conditions with 'and', or repeat --where. Dates read as ISO 8601: 2026-01-01, 2026-01-01T09:30 (UTC) \
            or 2026-01-01T09:30:00+02:00. \
            Example: strata fetch Library.sqlite Book --where 'year >= 1970 and year < 2000' --sort 'year desc' --limit 10
            """)

    @OptionGroup var options: StoreFileOptions

    @Argument(help: "The entity whose rows to show.")
    var entity: String

    @Option(name: .customLong("where"), help: "A condition, as 'year >= 1970'; join several with 'and' (repeatable; all must hold).")
    var conditions: [String] = []

    @Option(
        name: .long, parsing: .unconditionalSingleValue,
        help: "An attribute to sort by: 'year', or 'year desc' or '-year' for descending (repeatable).")
    var sort: [String] = []

    @Option(name: .long, parsing: .unconditional, help: "At most this many rows.")
    var limit: Int?

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit takes a number of rows, 0 or more, not \(limit)") }
    }

    func run() throws {
        let conditions = try conditions.flatMap { text throws(StrataError) in try StoreRows.Condition.all(parsing: text) }
        let sort = try sort.map { text throws(StrataError) in try StoreRows.SortKey(parsing: text) }
        if options.json {
            let rows = try StoreBrowser.rows(
                at: options.file, entity: entity, conditions: conditions, sort: sort, limit: limit)
            print(Self.json(rows))
            return
        }
        // The table streams: widths come from the first rows, later rows are cut to them.
        var table: TableWriter?
        var count = 0
        let header = try StoreBrowser.rows(
            at: options.file, entity: entity, conditions: conditions, sort: sort, limit: limit
        ) { header, row in
            if table == nil { table = TableWriter(columns: header.columns, types: header.types) }
            table?.add(row)
            count += 1
        }
        var writer = table ?? TableWriter(columns: header.columns, types: header.types)
        writer.finish()
        print("\(CommandOutput.count(count, "row")) of \(header.entityName)")
    }

    /// The rows as a JSON array of objects, values in their exact forms.
    static func json(_ rows: StoreRows) -> String {
        let objects = rows.rows.map { row in
            "  {" + zip(zip(rows.columns, rows.types), row).map { column, value in
                StoreFileValueFormat.jsonString(column.0) + ": " + StoreFileValueFormat.json(value, type: column.1)
            }.joined(separator: ", ") + "}"
        }
        return objects.isEmpty ? "[]" : "[\n" + objects.joined(separator: ",\n") + "\n]"
    }
}

/// Prints rows as an aligned table as they come: the first rows are held
/// until the column widths are known, then every row is printed at once.
/// Values longer than ``widest`` characters are cut, with `…`.
struct TableWriter {
    /// How many rows set the widths.
    static let sample = 500
    /// The widest a cell is shown; longer values are cut.
    static let widest = 40

    let columns: [String]
    let types: [AttributeType?]
    private var held: [[String]] = []
    private var widths: [Int]?

    init(columns: [String], types: [AttributeType?]) {
        self.columns = columns
        self.types = types
    }

    mutating func add(_ row: [StoredValue]) {
        let cells = zip(types, row).map { type, value in
            Self.cut(StoreFileValueFormat.display(value, type: type).replacingOccurrences(of: "\n", with: " "), to: Self.widest)
        }
        if let widths {
            print(Self.line(cells, widths))
            return
        }
        held.append(cells)
        if held.count == Self.sample { flush() }
    }

    mutating func finish() {
        if widths == nil { flush() }
    }

    private mutating func flush() {
        var widths = columns.map(\.count)
        for row in held {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        self.widths = widths
        print(Self.line(columns, widths))
        print(Self.line(widths.map { String(repeating: "-", count: $0) }, widths))
        for row in held { print(Self.line(row, widths)) }
        held = []
    }

    private static func cut(_ text: String, to width: Int) -> String {
        text.count > width ? text.prefix(width - 1) + "…" : text
    }

    /// Cells padded to their widths, without trailing spaces. A later row's
    /// wider cell (a longer key, say) is shown whole and pushes the rest of its line.
    private static func line(_ cells: [String], _ widths: [Int]) -> String {
        var line = ""
        for (index, (cell, width)) in zip(cells, widths).enumerated() {
            line += cell
            if index < widths.count - 1 { line += String(repeating: " ", count: max(0, width - cell.count) + 2) }
        }
        while line.last == " " { line.removeLast() }
        return line
    }
}
