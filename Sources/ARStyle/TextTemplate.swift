import Foundation

/// Text with `{name}` placeholders: `{data}`, `{symbology}`, `{id}`, a named regex capture
/// (`{sku}`) or a lookup field (`{products.name}`). `{{` and `}}` stand for literal braces.
public struct TextTemplate: Hashable, Sendable {
    public enum Part: Hashable, Sendable {
        case literal(String)
        case field(String)
    }

    public var parts: [Part]

    /// The names the template uses, in order.
    public var fields: [String] { parts.compactMap { if case .field(let f) = $0 { return f } else { return nil } } }

    /// The template as written (braces in literal text doubled).
    public var source: String {
        parts.map {
            switch $0 {
            case .literal(let s): return s.replacingOccurrences(of: "{", with: "{{").replacingOccurrences(of: "}", with: "}}")
            case .field(let f): return "{\(f)}"
            }
        }.joined()
    }

    /// Whether the template has no placeholders.
    public var isConstant: Bool { fields.isEmpty }

    /// Parses `text`; `node` (when given) is where errors point.
    public init(_ text: String, node: StyleNode? = nil) throws {
        func fail(_ reason: String) -> Error {
            node?.error(reason) ?? StyleError(file: "<template>", place: text, reason: reason)
        }
        var parts: [Part] = []
        var literal = ""
        var i = text.startIndex
        while i < text.endIndex {
            let ch = text[i]
            let next = text.index(after: i)
            if ch == "{" {
                if next < text.endIndex, text[next] == "{" {
                    literal.append("{"); i = text.index(after: next); continue
                }
                guard let close = text[next...].firstIndex(of: "}") else { throw fail("unclosed '{' in \(StyleError.quote(text))") }
                let name = String(text[next..<close]).trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty, !name.contains("{") else { throw fail("empty or malformed placeholder in \(StyleError.quote(text))") }
                if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
                parts.append(.field(name))
                i = text.index(after: close)
            } else if ch == "}" {
                guard next < text.endIndex, text[next] == "}" else { throw fail("stray '}' in \(StyleError.quote(text)) (write '}}' for a brace)") }
                literal.append("}"); i = text.index(after: next)
            } else {
                literal.append(ch); i = next
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
    }

    /// The text with each placeholder replaced by `values[name]` (empty when missing).
    public func expand(_ values: [String: String]) -> String {
        var out = ""
        for p in parts {
            switch p {
            case .literal(let s): out += s
            case .field(let f): out += values[f] ?? ""
            }
        }
        return out
    }
}
