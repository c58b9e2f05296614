/// A JSON value being validated, with its key path (`rules[0].overlays[1].anchor`) so every
/// error names the file, the key path and the line.
public struct StyleNode {
    public let json: StyleJSON.Located
    /// Key path from the root, e.g. `rules[0].overlays[1]`; empty for the root.
    public let path: String
    public let file: String

    public init(_ json: StyleJSON.Located, path: String = "", file: String) {
        self.json = json
        self.path = path
        self.file = file
    }

    public var value: StyleJSON { json.value }

    /// An error about this value: place is `<key path> (line L)`.
    public func error(_ reason: String) -> StyleError {
        StyleError(file: file, place: "\(path.isEmpty ? "top level" : path) (line \(json.line))", reason: reason)
    }

    /// The members of an object, refusing keys not in `allowed`.
    public func object(allowed: [String]) throws -> [String: StyleNode] {
        guard case .object(let members) = value else { throw error("expected an object, found \(value.kindName)") }
        var out: [String: StyleNode] = [:]
        for m in members {
            let child = StyleNode(m.value, path: childPath(m.key), file: file)
            guard allowed.contains(m.key) else {
                throw child.error("unknown key \(StyleError.quote(m.key)) (known: \(allowed.joined(separator: ", ")))")
            }
            out[m.key] = child
        }
        return out
    }

    /// The members of an object with any keys, in file order.
    public func members() throws -> [(key: String, node: StyleNode)] {
        guard case .object(let members) = value else { throw error("expected an object, found \(value.kindName)") }
        return members.map { ($0.key, StyleNode($0.value, path: childPath($0.key), file: file)) }
    }

    /// The key path of member `key`, the key cut to `StyleError.quotedCharacters` characters.
    private func childPath(_ key: String) -> String {
        let k = StyleError.cut(key, StyleError.quotedCharacters)
        return path.isEmpty ? k : "\(path).\(k)"
    }

    public func array() throws -> [StyleNode] {
        guard case .array(let items) = value else { throw error("expected an array, found \(value.kindName)") }
        return items.enumerated().map { StyleNode($0.element, path: "\(path)[\($0.offset)]", file: file) }
    }

    public func string() throws -> String {
        guard case .string(let s) = value else { throw error("expected a string, found \(value.kindName)") }
        return s
    }

    public func number(in range: ClosedRange<Double>? = nil) throws -> Double {
        guard case .number(let d) = value else { throw error("expected a number, found \(value.kindName)") }
        if let range, !range.contains(d) {
            throw error("\(StyleNode.format(d)) is out of range \(StyleNode.format(range.lowerBound))…\(StyleNode.format(range.upperBound))")
        }
        return d
    }

    public func bool() throws -> Bool {
        guard case .bool(let b) = value else { throw error("expected true or false, found \(value.kindName)") }
        return b
    }

    /// A string naming one of `E`'s raw values.
    public func choice<E: RawRepresentable & CaseIterable>(_ what: String, _ type: E.Type) throws -> E where E.RawValue == String {
        let s = try string()
        guard let e = E(rawValue: s) else {
            throw error("unknown \(what) \(StyleError.quote(s)) (known: \(E.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return e
    }

    public func color() throws -> Color {
        let s = try string()
        guard let c = Color(hex: s) else { throw error("invalid colour \(StyleError.quote(s)) (expected #rrggbb or #rrggbbaa)") }
        return c
    }

    /// A number without a needless `.0`.
    static func format(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }
}
