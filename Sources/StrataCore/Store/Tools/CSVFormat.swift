/// RFC 4180 CSV for the store tools, with one addition: an empty field is
/// NULL and `""` is the empty text, so optional text round-trips.
///
/// ```swift
/// CSVFormat.line([nil, "", "a,b"])           // ",\"\",\"a,b\""
/// try CSVFormat.records("1,,\"\"\n")         // [["1", nil, ""]]
/// ```
package enum CSVFormat {
    /// One record, without its line break.
    package static func line(_ fields: [String?]) -> String {
        fields.map { field in
            guard let field else { return "" }
            guard field.isEmpty || field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
                || field.first == " " || field.last == " " else { return field }
            return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",")
    }

    /// The records of a whole file. Throws `.importFailed` for a quote that is
    /// never closed or text after a closing quote.
    package static func records(_ text: String, fileName: String) throws(StrataError) -> [[String?]] {
        var records: [[String?]] = []
        var record: [String?] = []
        var field = ""
        var quoted = false, inQuotes = false, afterQuote = false
        var line = 1
        func endField() {
            record.append(quoted || !field.isEmpty ? field : nil)
            field = ""
            quoted = false
            afterQuote = false
        }
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        while let scalar = pending ?? scalars.next() {
            pending = nil
            if inQuotes {
                if scalar == "\"" {
                    let next = scalars.next()
                    if next == "\"" {
                        field.unicodeScalars.append("\"")
                    } else {
                        inQuotes = false
                        afterQuote = true
                        pending = next
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty && !quoted:
                quoted = true
                inQuotes = true
            case ",":
                endField()
            case "\r":
                continue
            case "\n":
                endField()
                records.append(record)
                record = []
                line += 1
            default:
                guard !afterQuote else {
                    throw StrataError(.importFailed, "\(fileName), line \(line): text after a closing quote")
                }
                field.unicodeScalars.append(scalar)
            }
        }
        guard !inQuotes else { throw StrataError(.importFailed, "\(fileName), line \(line): a quote is never closed") }
        if !field.isEmpty || quoted || !record.isEmpty {
            endField()
            records.append(record)
        }
        return records
    }
}
