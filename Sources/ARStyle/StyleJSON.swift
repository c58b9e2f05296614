/// A parsed JSON value that remembers where it was written (line and column, from 1), so style
/// errors can point at the exact place. Objects keep their keys in file order.
public indirect enum StyleJSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([Located])
    case object([(key: String, value: Located)])

    /// A value and the line/column where it starts.
    public struct Located: Equatable, Sendable {
        public var value: StyleJSON
        /// Line (from 1) and column (from 1, in characters) of the value's first character.
        public var line: Int
        public var column: Int
    }

    public static func == (a: StyleJSON, b: StyleJSON) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x.map(\.value) == y.map(\.value)
        case (.object(let x), .object(let y)):
            return x.map(\.key) == y.map(\.key) && x.map(\.value.value) == y.map(\.value.value)
        default: return false
        }
    }

    /// What kind of value this is, for messages (`object`, `string`, …).
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Parses `text` (UTF-8 JSON, RFC 8259). A syntax error names the line and column in `place`.
    /// Takes time linear in the text's size (one pass; columns and duplicate keys are tracked as it goes).
    public static func parse(_ text: String, file: String) throws -> Located {
        try parseCountingSteps(text, file: file).value
    }

    /// `parse`, and the parser's bookkeeping steps beyond its single pass over the bytes: bytes
    /// counted to find columns, plus one per key checked for duplicates. Linear parsing keeps
    /// it at most the text's size in bytes plus its number of keys.
    static func parseCountingSteps(_ text: String, file: String) throws -> (value: Located, steps: Int) {
        var parser = Parser(bytes: Array(text.utf8), file: file)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        if parser.index < parser.bytes.count { throw parser.error("unexpected text after the end of the JSON value") }
        return (value, parser.steps)
    }

    private struct Parser {
        let bytes: [UInt8]
        let file: String
        var index = 0
        var line = 1
        var lineStart = 0
        /// Where `trackedColumn()` counted up to, and the column there: it only moves forward, so
        /// the columns of all values cost one pass over the bytes in all (not one pass per value).
        var countedIndex = 0
        var countedColumn = 1
        /// Bookkeeping steps (see `parseCountingSteps`).
        var steps = 0

        init(bytes: [UInt8], file: String) {
            self.bytes = bytes
            self.file = file
        }

        /// Column of `index` in characters (UTF-8 continuation bytes not counted), counted from the
        /// line's start: for errors only (once per parse).
        var column: Int { bytes[lineStart..<min(index, bytes.count)].reduce(1) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) } }

        /// Column of `index`, counting on from where the last call stopped (`index` never moves back).
        mutating func trackedColumn() -> Int {
            if countedIndex < lineStart { countedIndex = lineStart; countedColumn = 1 }
            let end = min(index, bytes.count)
            while countedIndex < end {
                if bytes[countedIndex] & 0xC0 != 0x80 { countedColumn += 1 }
                countedIndex += 1
                steps += 1
            }
            return countedColumn
        }

        func error(_ reason: String) -> StyleError {
            StyleError(file: file, place: "line \(line), column \(column)", reason: "invalid JSON: \(reason)")
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0D: index += 1
                case 0x0A: index += 1; line += 1; lineStart = index
                default: return
                }
            }
        }

        mutating func expect(_ c: UInt8, _ what: String) throws {
            skipSpace()
            guard index < bytes.count, bytes[index] == c else { throw error("expected \(what)\(found)") }
            index += 1
        }

        var found: String {
            guard index < bytes.count else { return ", found the end of the file" }
            let s = String(decoding: bytes[index..<min(bytes.count, index + 12)], as: UTF8.self)
            return ", found '\(s.split(separator: "\n").first ?? "")'"
        }

        mutating func value(depth: Int) throws -> Located {
            skipSpace()
            guard depth < 256 else { throw error("nested too deeply") }
            let l = line, c = trackedColumn()
            guard index < bytes.count else { throw error("expected a value, found the end of the file") }
            func located(_ v: StyleJSON) -> Located { Located(value: v, line: l, column: c) }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(key: String, value: Located)] = []
                var keys: Set<String> = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return located(.object([])) }
                while true {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key in quotes\(found)") }
                    let keyLine = line, keyColumn = trackedColumn()
                    let key = try string()
                    steps += 1
                    guard keys.insert(key).inserted else {
                        throw StyleError(file: file, place: "line \(keyLine), column \(keyColumn)",
                                         reason: "duplicate key \(StyleError.quote(key))")
                    }
                    try expect(UInt8(ascii: ":"), "':' after the key")
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard index < bytes.count else { throw error("expected ',' or '}'\(found)") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "}") { index += 1; return located(.object(members)) }
                    throw error("expected ',' or '}'\(found)")
                }
            case UInt8(ascii: "["):
                index += 1
                var items: [Located] = []
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return located(.array([])) }
                while true {
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard index < bytes.count else { throw error("expected ',' or ']'\(found)") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "]") { index += 1; return located(.array(items)) }
                    throw error("expected ',' or ']'\(found)")
                }
            case UInt8(ascii: "\""):
                return located(.string(try string()))
            case UInt8(ascii: "t"): try literal("true"); return located(.bool(true))
            case UInt8(ascii: "f"): try literal("false"); return located(.bool(false))
            case UInt8(ascii: "n"): try literal("null"); return located(.null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return located(.number(try number()))
            default:
                throw error("expected a value\(found)")
            }
        }

        mutating func literal(_ word: String) throws {
            let w = Array(word.utf8)
            guard bytes.count - index >= w.count, Array(bytes[index..<index + w.count]) == w else { throw error("expected a value\(found)") }
            index += w.count
        }

        mutating func number() throws -> Double {
            let start = index
            func digits() { while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 } }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let intStart = index
            digits()
            guard index > intStart else { throw error("expected digits in a number") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                let f = index
                digits()
                guard index > f else { throw error("expected digits after '.'") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                let e = index
                digits()
                guard index > e else { throw error("expected digits in the exponent") }
            }
            guard let d = Double(String(decoding: bytes[start..<index], as: UTF8.self)), d.isFinite else {
                throw error("number out of range")
            }
            return d
        }

        mutating func string() throws -> String {
            index += 1  // opening quote
            var out: [UInt8] = []
            while true {
                guard index < bytes.count else { throw error("unterminated string") }
                let b = bytes[index]
                if b == UInt8(ascii: "\"") { index += 1; break }
                if b < 0x20 { throw error("control character in a string (write \\n, \\t)") }
                if b != UInt8(ascii: "\\") { out.append(b); index += 1; continue }
                index += 1
                guard index < bytes.count else { throw error("unterminated string") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired surrogate in \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    throw error("unknown escape '\\\(Character(Unicode.Scalar(e)))'")
                }
            }
            // The input was a Swift string and escapes produce whole scalars: always valid UTF-8.
            return String(decoding: out, as: UTF8.self)
        }

        mutating func hex4() throws -> UInt32 {
            guard bytes.count - index >= 4, let v = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
                throw error("expected 4 hex digits after \\u")
            }
            index += 4
            return v
        }
    }
}
