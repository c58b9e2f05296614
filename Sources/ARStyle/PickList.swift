import ARCore
import Foundation

/// The items a style expects to see (`"list": {"file": "picklist.csv", "key": "sku", "quantity":
/// "qty"}`): a key per item and how many of it; rules can select listed and unlisted codes.
public struct PickList: Equatable, @unchecked Sendable {  // Immutable once parsed; its filters' regular expressions may be shared.
    /// The column (and named capture) holding an item's key; a code whose rule has no capture of
    /// that name is keyed by its whole payload.
    public var key: String
    /// Expected count per key (1 without a quantity column).
    public var expected: [String: Int]
    /// Codes left out of the count (`"exclude": [{"symbology": "QR-Code"}, {"data": "^TEST-"}]`),
    /// each matched as a rule's `match` is: neither found nor unexpected.
    public var exclude: [StyleRule]

    public init(key: String, expected: [String: Int], exclude: [StyleRule] = []) {
        self.key = key
        self.expected = expected
        self.exclude = exclude
    }

    /// Whether a code of `symbology` with payload `text` is left out of the count.
    public func excludes(symbology: String, text: String) -> Bool {
        exclude.contains { $0.match(symbology: symbology, text: text) != nil }
    }

    public static func == (a: PickList, b: PickList) -> Bool {
        func filters(_ l: PickList) -> [String] { l.exclude.map { "\($0.symbology ?? "")\u{0}\($0.data?.pattern ?? "")" } }
        return a.key == b.key && a.expected == b.expected && filters(a) == filters(b)
    }

    /// Total items expected.
    public var total: Int { expected.values.reduce(0, +) }

    /// The key of a code with payload `text` and its rule's `captures`.
    public func key(text: String, captures: [String: String]) -> String { captures[key] ?? text }

    /// Loads the list named in a style (`node`: the `list` object).
    static func parse(_ node: StyleNode, baseDirectory: String) throws -> PickList {
        let o = try node.object(allowed: ["file", "key", "quantity", "exclude"])
        guard let f = o["file"] else { throw node.error("missing 'file' (a .csv or .json file)") }
        guard let k = o["key"] else { throw node.error("missing 'key' (the column holding the item's key)") }
        let path = OverlaySpec.resolve(path: try f.string(), baseDirectory: baseDirectory)
        let table = try LookupTable.load(name: "list", path: path, key: try k.string(), node: f)
        let quantity = try o["quantity"].map { try $0.string() }
        if let quantity, !table.columns.contains(quantity) {
            throw o["quantity"]!.error("no column \(StyleError.quote(quantity)) in the list (columns: \(table.columns.sorted().joined(separator: ", ")))")
        }
        var expected: [String: Int] = [:]
        for (key, row) in table.rows {
            let n = quantity.flatMap { row[$0] }.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 1
            expected[key] = max(0, n)
        }
        let exclude: [StyleRule] = try o["exclude"].map { list in
            try list.array().map { m -> StyleRule in
                var rule = StyleRule(overlays: [])
                try StyleRule.parseMatch(m, into: &rule, allowed: ["symbology", "data"])
                return rule
            }
        } ?? []
        return PickList(key: table.key, expected: expected, exclude: exclude)
    }
}

/// What has been seen of a `PickList`: each distinct payload counted once, however often it is
/// decoded or comes back, grouped by its item key. Since the start, or the last `reset`.
public struct ItemCount: Sendable {
    public let list: PickList
    /// Distinct payloads seen, by item key.
    private var seen: [String: Set<String>] = [:]

    public init(list: PickList) {
        self.list = list
    }

    /// Counts the code with payload `text` under item `key` (once per distinct payload).
    public mutating func record(text: String, key: String) {
        seen[key, default: []].insert(text)
    }

    /// Forgets what was seen (`reset-count`).
    public mutating func reset() {
        seen = [:]
    }

    /// Listed items seen, up to each item's expected count.
    public var found: Int {
        list.expected.reduce(0) { $0 + min($1.value, seen[$1.key]?.count ?? 0) }
    }

    /// The template values `{list.found}`, `{list.total}`, `{list.missing}`.
    public var values: [String: String] {
        ["list.found": String(found), "list.total": String(list.total), "list.missing": String(list.total - found)]
    }

    /// Found, missing and unexpected items as one JSON Lines object (keys sorted): `found` and
    /// `missing` map item keys to counts, `unexpected` maps keys not on the list to counts.
    public func summaryJSON() -> String {
        var found: [String: Int] = [:], missing: [String: Int] = [:], unexpected: [String: Int] = [:]
        for (key, want) in list.expected {
            let n = min(want, seen[key]?.count ?? 0)
            if n > 0 { found[key] = n }
            if want > n { missing[key] = want - n }
        }
        for (key, payloads) in seen where list.expected[key] == nil { unexpected[key] = payloads.count }
        func object(_ d: [String: Int]) -> String {
            "{" + d.keys.sorted().map { "\(FrameRecord.jsonString($0)):\(d[$0]!)" }.joined(separator: ",") + "}"
        }
        return "{\"count-summary\":{\"found\":\(object(found)),\"missing\":\(object(missing)),\"unexpected\":\(object(unexpected)),"
            + "\"total\":\(list.total),\"found-total\":\(self.found)}}"
    }
}
