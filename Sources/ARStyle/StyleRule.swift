import Foundation
import ARCore

/// One rule of a style: which codes it matches and the overlays drawn for them.
///
/// A rule matches either codes that were read (the default) or, with `"state": "located"` in its
/// `match`, regions seen but not read (`located`: a quad and a class `1D`/`2D`, no payload, no id).
/// The two never mix: a rule without `state` does not match located regions.
public struct StyleRule: @unchecked Sendable {  // Immutable; NSRegularExpression may be shared between threads.
    /// The only `state` a rule can select.
    public static let locatedState = "located"
    /// Symbology name to match (case-insensitive, e.g. `QR-Code`); nil for any. A `located` rule
    /// matches the region's class (`1D`, `2D`).
    public var symbology: String?
    /// Whether the rule matches `located` regions (`"state": "located"`) instead of read codes.
    public var located: Bool
    /// Regular expression the payload text must match (searched, so anchor it with `^…$`); nil for any.
    public var data: NSRegularExpression?
    /// Names of the expression's named captures (`(?<sku>…)`).
    public var captures: [String]
    /// `"when": {"expanded": …}`: the rule applies only to codes a tap expanded (true) or to the
    /// others (false); nil for both.
    public var expanded: Bool?
    /// `"when": {"min-area": …, "max-area": …}`: the rule applies only to codes whose area, as a
    /// fraction of the frame's (0…1, `CodeInfo.area`), lies in this range; nil for no bound.
    public var minArea: Double?
    public var maxArea: Double?
    /// `"match": {"listed": …}`: only codes on the style's `list` (true) or not on it (false).
    public var listed: Bool?
    /// `"match": {"kind": …}`: the kind of target the rule is for (`code` when absent): a rule
    /// matches targets of its kind only.
    public var kind: TargetKind
    public var overlays: [OverlaySpec]

    public init(symbology: String? = nil, data: NSRegularExpression? = nil, located: Bool = false, kind: TargetKind = .code,
                overlays: [OverlaySpec]) {
        self.kind = kind
        self.symbology = symbology
        self.located = located
        self.data = data
        self.captures = data.map { StyleRule.captureNames(in: $0.pattern) } ?? []
        self.overlays = overlays
    }

    /// What evaluating a rule on a code gave.
    public enum Outcome: Equatable, Sendable {
        /// The rule matches; its named captures.
        case matched([String: String])
        case noMatch
        /// The `data` match ran out of its budget (`StyleLimits.matchProgressReports`): no match.
        case abandoned
    }

    /// The named captures when `symbology` and `text` of a read code (`located` false) or of a
    /// located region (`located` true) match this rule, nil otherwise (also when abandoned).
    public func match(symbology s: String, text: String, located: Bool = false, expanded: Bool = false,
                      area: Double = 0) -> [String: String]? {
        if case .matched(let captures) = evaluate(symbology: s, text: text, located: located, expanded: expanded, area: area) {
            return captures
        }
        return nil
    }

    /// Whether `symbology` and `text` match this rule. `data` is searched in the first
    /// `StyleLimits.matchedTextUTF16` UTF-16 units of `text`, within a budget of
    /// `StyleLimits.matchProgressReports` progress reports of the engine: past it the search
    /// stops and the answer is `abandoned`, so no payload holds the caller for long.
    public func evaluate(symbology s: String, text: String, located: Bool = false, expanded: Bool = false,
                         area: Double = 0) -> Outcome {
        guard located == self.located else { return .noMatch }
        if let want = self.expanded, want != expanded { return .noMatch }
        if let minArea, area < minArea { return .noMatch }
        if let maxArea, area > maxArea { return .noMatch }
        if let symbology, symbology.caseInsensitiveCompare(s) != .orderedSame { return .noMatch }
        guard let data else { return .matched([:]) }
        let seen = text.utf16.count > StyleLimits.matchedTextUTF16
            ? String(decoding: Array(text.utf16.prefix(StyleLimits.matchedTextUTF16)), as: UTF16.self)
            : text
        var found: NSTextCheckingResult?
        var reports = 0
        data.enumerateMatches(in: seen, options: [.reportProgress], range: NSRange(seen.startIndex..., in: seen)) { result, _, stop in
            if let result {
                found = result
                stop.pointee = true
                return
            }
            reports += 1
            if reports >= StyleLimits.matchProgressReports { stop.pointee = true }
        }
        guard let m = found else { return reports >= StyleLimits.matchProgressReports ? .abandoned : .noMatch }
        var out: [String: String] = [:]
        for name in captures {
            let r = m.range(withName: name)
            if r.location != NSNotFound, let rr = Range(r, in: seen) { out[name] = String(seen[rr]) }
        }
        return .matched(out)
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

    /// Reads a `match` object (`m`) into `rule`; `allowed` its keys (a pick list's `exclude` takes
    /// only `symbology` and `data`).
    static func parseMatch(_ m: StyleNode, into rule: inout StyleRule, allowed: [String]) throws {
        let mo = try m.object(allowed: allowed)
        if let k = mo["kind"] {
            rule.kind = try k.choice("target kind", TargetKind.self)
            if rule.kind != .code, let bad = ["symbology", "data", "state", "listed"].first(where: { mo[$0] != nil }) {
                throw mo[bad]!.error("'\(bad)' applies to codes, not to kind \(StyleError.quote(rule.kind.rawValue))")
            }
        }
        if let l = mo["listed"] { rule.listed = try l.bool() }
        if let s = mo["symbology"] { rule.symbology = try s.string() }
        if let st = mo["state"] {
            let state = try st.string()
            guard state == locatedState else {
                throw st.error("unknown state \(StyleError.quote(state)) (known: \(locatedState); without 'state' a rule matches codes that were read)")
            }
            rule.located = true
            if let d = mo["data"] { throw d.error("'data' does not apply to located regions (they have no payload)") }
        }
        if let d = mo["data"] {
            let pattern = try d.string()
            if let problem = RegexShape.catastrophicShape(in: pattern) {
                throw d.error("regular expression \(StyleError.quote(pattern)) refused: \(problem)")
            }
            do {
                rule.data = try NSRegularExpression(pattern: pattern)
            } catch {
                throw d.error("invalid regular expression \(StyleError.quote(pattern))")
            }
            rule.captures = captureNames(in: pattern)
        }
    }

    static func parse(_ node: StyleNode, tables: [String: LookupTable], baseDirectory: String) throws -> StyleRule {
        let o = try node.object(allowed: ["match", "when", "code-size", "overlays"])
        let millimetresPerCode = try o["code-size"].map { try Length<SizeUnit>.codeSize($0) }
        var rule = StyleRule(overlays: [])
        if let w = o["when"] {
            let wo = try w.object(allowed: ["expanded", "min-area", "max-area"])
            if let e = wo["expanded"] { rule.expanded = try e.bool() }
            for (key, path) in [("min-area", \StyleRule.minArea), ("max-area", \StyleRule.maxArea)] {
                guard let n = wo[key] else { continue }
                let v = try n.number()
                guard v >= 0, v <= 1 else { throw n.error("'\(key)' is a fraction of the frame's area, 0 to 1; got \(v)") }
                rule[keyPath: path] = v
            }
            if let lo = rule.minArea, let hi = rule.maxArea, lo > hi {
                throw w.error("'min-area' (\(lo)) is above 'max-area' (\(hi))")
            }
        }
        if let m = o["match"] { try parseMatch(m, into: &rule, allowed: ["symbology", "data", "state", "listed", "kind"]) }
        guard let list = o["overlays"] else { throw node.error("missing 'overlays' (a list, may be empty)") }
        let fields = rule.located ? TemplateFields.located : TemplateFields(captures: rule.captures, tables: tables)
        rule.overlays = try list.array().map {
            try OverlaySpec.parse($0, fields: fields, baseDirectory: baseDirectory, millimetresPerCode: millimetresPerCode)
        }
        return rule
    }
}
