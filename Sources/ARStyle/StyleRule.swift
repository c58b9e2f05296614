import Foundation

/// One rule of a style: which codes it matches and the overlays drawn for them.
public struct StyleRule: @unchecked Sendable {
    /// Symbology name to match (case-insensitive, e.g. `QR-Code`); nil for any.
    public var symbology: String?
    /// Regular expression the payload text must match (searched, so anchor it with `^…$`); nil for any.
    public var data: NSRegularExpression?
    /// Names of the expression's named captures (`(?<sku>…)`).
    public var captures: [String]
    public var overlays: [OverlaySpec]

    public init(symbology: String? = nil, data: NSRegularExpression? = nil, overlays: [OverlaySpec]) {
        self.symbology = symbology
        self.data = data
        self.captures = data.map { StyleRule.captureNames(in: $0.pattern) } ?? []
        self.overlays = overlays
    }

    /// The named captures when `symbology` and `text` match this rule, nil otherwise.
    public func match(symbology s: String, text: String) -> [String: String]? {
        if let symbology, symbology.caseInsensitiveCompare(s) != .orderedSame { return nil }
        guard let data else { return [:] }
        let range = NSRange(text.startIndex..., in: text)
        guard let m = data.firstMatch(in: text, range: range) else { return nil }
        var out: [String: String] = [:]
        for name in captures {
            let r = m.range(withName: name)
            if r.location != NSNotFound, let rr = Range(r, in: text) { out[name] = String(text[rr]) }
        }
        return out
    }

    /// Names of `(?<name>…)` groups in `pattern` (not lookbehinds `(?<=`, `(?<!`).
    static func captureNames(in pattern: String) -> [String] {
        var names: [String] = []
        let chars = Array(pattern)
        var i = 0
        while i < chars.count {
            if chars[i] == "\\" { i += 2; continue }
            if chars[i] == "(", i + 3 < chars.count, chars[i + 1] == "?", chars[i + 2] == "<", chars[i + 3] != "=", chars[i + 3] != "!" {
                var j = i + 3, name = ""
                while j < chars.count, chars[j] != ">" { name.append(chars[j]); j += 1 }
                if !name.isEmpty, !names.contains(name) { names.append(name) }
                i = j
            }
            i += 1
        }
        return names
    }

    static func parse(_ node: StyleNode, tables: [String: LookupTable], baseDirectory: String) throws -> StyleRule {
        let o = try node.object(allowed: ["match", "overlays"])
        var rule = StyleRule(overlays: [])
        if let m = o["match"] {
            let mo = try m.object(allowed: ["symbology", "data"])
            if let s = mo["symbology"] { rule.symbology = try s.string() }
            if let d = mo["data"] {
                let pattern = try d.string()
                do {
                    rule.data = try NSRegularExpression(pattern: pattern)
                } catch {
                    throw d.error("invalid regular expression '\(pattern)'")
                }
                rule.captures = captureNames(in: pattern)
            }
        }
        guard let list = o["overlays"] else { throw node.error("missing 'overlays' (a list, may be empty)") }
        let fields = TemplateFields(captures: rule.captures, tables: tables)
        rule.overlays = try list.array().map { try OverlaySpec.parse($0, fields: fields, baseDirectory: baseDirectory) }
        return rule
    }
}
