import ArgumentParser
import Foundation
import Strata

/// `strata fetch FILE ENTITY`: rows of one entity as a table.
struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Show rows of one entity as a table, filtered, sorted and limited.",
        discussion: """
            Conditions compare a stored attribute or to-one relationship (the related row's key) with a value: \
            =, !=, <, <=, >, >=, contains, beginswith, endswith; '= nil' finds rows without a value. \
            Dates read as ISO 8601. Example: strata fetch Library.sqlite Book --where 'year >= 1970' --sort 'year desc' --limit 10
            """)

    @OptionGroup var options: StoreFileOptions

    @Argument(help: "The entity whose rows to show.")
    var entity: String

    @Option(name: .customLong("where"), help: "A condition, as 'attribute = value' (repeatable; all must hold).")
    var conditions: [String] = []

    @Option(name: .long, help: "An attribute to sort by; 'name desc' (or --sort=-name) sorts descending (repeatable).")
    var sort: [String] = []

    @Option(name: .long, help: "At most this many rows.")
    var limit: Int?

    func run() throws {
        let rows = try options.read { url throws(StrataError) in
            try StoreRows(
                url: url, entity: entity,
                conditions: conditions.map { text throws(StrataError) in try StoreRows.Condition(parsing: text) },
                sort: sort.map { text throws(StrataError) in try StoreRows.SortKey(parsing: text) }, limit: limit)
        }
        if options.json {
            print(Self.json(rows))
        } else {
            print(Self.table(rows))
        }
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

    /// The rows as an aligned table, long values cut.
    static func table(_ rows: StoreRows) -> String {
        let cells = rows.rows.map { row in
            zip(rows.types, row).map { type, value in
                let text = StoreFileValueFormat.display(value, type: type).replacingOccurrences(of: "\n", with: " ")
                return text.count > 40 ? text.prefix(39) + "…" : text
            }
        }
        var widths = rows.columns.map(\.count)
        for row in cells {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ fields: [String]) -> String {
            zip(fields, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
                .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var lines = [line(rows.columns), line(widths.map { String(repeating: "-", count: $0) })]
        lines += cells.map(line)
        lines.append("\(rows.rows.count) \(rows.rows.count == 1 ? "row" : "rows") of \(rows.entityName)")
        return lines.joined(separator: "\n")
    }
}
