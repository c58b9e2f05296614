import Foundation

/// A table of product content (or anything) keyed by a code's payload or a named capture, read
/// from a JSON or CSV file. Template fields `{table.column}` read the row of the current code.
public struct LookupTable: Hashable, Sendable {
    /// The table's name in the style (`products` in `{products.name}`).
    public var name: String
    /// Column holding the key (CSV, JSON array of objects); also the named capture whose value is
    /// looked up, or the whole payload when the rule has no capture of that name.
    public var key: String
    /// Known columns (every row's fields).
    public var columns: Set<String>
    /// Rows by key: column → text.
    public var rows: [String: [String: String]]

    public init(name: String, key: String, columns: Set<String>, rows: [String: [String: String]]) {
        self.name = name
        self.key = key
        self.columns = columns
        self.rows = rows
    }

    /// Loads `path` (`.csv`: a header row then one row per entry; otherwise JSON: an object of
    /// objects keyed by the key, or an array of objects with a `key` field). `node` is where the
    /// style names the table, for errors.
    public static func load(name: String, path: String, key: String, node: StyleNode) throws -> LookupTable {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw node.error("lookup file '\(path)' not found or unreadable")
        }
        let text = String(decoding: data, as: UTF8.self)
        if path.lowercased().hasSuffix(".csv") {
            return try csv(name: name, text: text, key: key, file: path)
        }
        let root = StyleNode(try StyleJSON.parse(text, file: path), file: path)
        var rows: [String: [String: String]] = [:]
        var columns: Set<String> = []
        func fields(_ n: StyleNode) throws -> [String: String] {
            var out: [String: String] = [:]
            for (k, v) in try n.members() { out[k] = try scalarText(v); columns.insert(k) }
            return out
        }
        switch root.value {
        case .object:
            for (k, v) in try root.members() {
                var row = try fields(v)
                row[key] = row[key] ?? k
                rows[k] = row
            }
            columns.insert(key)
        case .array:
            for item in try root.array() {
                let f = try fields(item)
                guard let k = f[key] else { throw item.error("row has no key field '\(key)'") }
                rows[k] = f
            }
        default:
            throw root.error("expected an object of rows or an array of rows, found \(root.value.kindName)")
        }
        return LookupTable(name: name, key: key, columns: columns, rows: rows)
    }

    private static func scalarText(_ n: StyleNode) throws -> String {
        switch n.value {
        case .string(let s): return s
        case .number(let d): return StyleNode.format(d)
        case .bool(let b): return b ? "true" : "false"
        case .null: return ""
        default: throw n.error("expected text or a number, found \(n.value.kindName)")
        }
    }

    /// Parses CSV (RFC 4180: commas, double-quoted fields with `""` escapes, CRLF or LF).
    static func csv(name: String, text: String, key: String, file: String) throws -> LookupTable {
        var records: [(line: Int, fields: [String])] = []
        var field = "", fields: [String] = [], quoted = false, line = 1, recordLine = 1, wasQuoted = false
        var chars = Array(text.unicodeScalars)
        if chars.first == "\u{FEFF}" { chars.removeFirst() }
        var i = 0
        func endRecord() {
            fields.append(field)
            if !(fields.count == 1 && fields[0].isEmpty && !wasQuoted) { records.append((recordLine, fields)) }
            field = ""; fields = []; wasQuoted = false; recordLine = line
        }
        while i < chars.count {
            let c = chars[i]
            if quoted {
                if c == "\"" {
                    if i + 1 < chars.count, chars[i + 1] == "\"" { field.unicodeScalars.append("\""); i += 1 } else { quoted = false }
                } else {
                    if c == "\n" { line += 1 }
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" && field.isEmpty {
                quoted = true; wasQuoted = true
            } else if c == "," {
                fields.append(field); field = ""
            } else if c == "\r" {
                // CRLF: the LF ends the record.
            } else if c == "\n" {
                line += 1
                endRecord()
            } else {
                field.unicodeScalars.append(c)
            }
            i += 1
        }
        if quoted { throw StyleError(file: file, place: "line \(recordLine)", reason: "unterminated quoted field") }
        if !field.isEmpty || !fields.isEmpty || wasQuoted { endRecord() }
        guard let header = records.first else { throw StyleError(file: file, place: "line 1", reason: "empty CSV file (expected a header row)") }
        guard let keyIndex = header.fields.firstIndex(of: key) else {
            throw StyleError(file: file, place: "line \(header.line)",
                             reason: "no column '\(key)' in the header (columns: \(header.fields.joined(separator: ", ")))")
        }
        var rows: [String: [String: String]] = [:]
        for r in records.dropFirst() {
            guard r.fields.count == header.fields.count else {
                throw StyleError(file: file, place: "line \(r.line)",
                                 reason: "\(r.fields.count) fields, the header has \(header.fields.count)")
            }
            rows[r.fields[keyIndex]] = Dictionary(zip(header.fields, r.fields), uniquingKeysWith: { a, _ in a })
        }
        return LookupTable(name: name, key: key, columns: Set(header.fields), rows: rows)
    }
}
