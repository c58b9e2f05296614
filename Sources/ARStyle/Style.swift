import Foundation
import ARCore

/// An overlay style: timing, the hint, lookup tables and the rules that give each code its
/// overlays. Parsed and validated in full before use: a bad file is refused with a `StyleError`.
public struct Style: @unchecked Sendable {  // Immutable once parsed; its rules' regular expressions may be shared.
    /// Seconds an overlay stays after its code's last detection (buffer timestamps).
    public var expirySeconds: Double = 1.0
    /// Seconds of fade in and fade out; 0 for none.
    public var fadeSeconds: Double = 0.2
    /// Screen-space text shown while no code is tracked; nil for none.
    public var hint: String?
    public var tables: [String: LookupTable] = [:]
    /// The items expected (`"list"`): rules can match `"listed"`, and `progress` counts them.
    public var list: PickList?
    /// Screen-space text about the list (`"progress": {"text": "{list.found}/{list.total} found",
    /// "corner": "top-right"}`), drawn on every frame; nil for none.
    public var progress: (text: TextTemplate, corner: String)?
    /// Corners `progress` may sit in.
    public static let progressCorners = ["top-left", "top-right", "bottom-left", "bottom-right"]
    /// Tried in order; the first that matches a code gives its overlays. Rules with `"state":
    /// "located"` match only located regions; the others only codes that were read.
    public var rules: [StyleRule] = []
    /// Folder that relative image paths are resolved against.
    public var baseDirectory: String = FileManager.default.currentDirectoryPath
    /// Where the style came from (a path, or `<inline>`), for messages.
    public var file: String = "<default>"

    public init() {}

    /// How a located region (seen, not read) looks when no `located` rule matches it: a thin
    /// (2 px) light grey, semi-transparent outline, no label.
    public static let defaultLocatedOverlays = [
        OverlaySpec(kind: .outline, color: Color(red: 0.88, green: 0.88, blue: 0.88, alpha: 0.63), lineWidth: 2),
    ]

    /// The style used without a style file: each code's outline and its payload in a label above
    /// it; each rectangle's outline.
    public static func builtIn(outlineWidth: Double = 3, labels: Bool = true) -> Style {
        var style = Style()
        var overlays = [OverlaySpec(kind: .outline, lineWidth: outlineWidth)]
        if labels {
            overlays.append(OverlaySpec(kind: .label, background: Color(red: 0, green: 0, blue: 0, alpha: 0.7), maxCharacters: 48,
                                        placement: Placement(anchor: .topCenter, offsetY: Length(-0.5, .ownSize))))
        }
        style.rules = [StyleRule(overlays: overlays), StyleRule(kind: .rectangle, overlays: [OverlaySpec(kind: .outline, lineWidth: outlineWidth)])]
        return style
    }

    /// Loads the style file at `path` (relative images and tables are relative to its folder).
    public static func load(path: String) throws -> Style {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StyleError(file: path, place: "file", reason: "style file not found or unreadable")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw StyleError(file: path, place: "file", reason: "not UTF-8 text")
        }
        return try parse(text, file: path, baseDirectory: (path as NSString).deletingLastPathComponent)
    }

    /// Parses style JSON `text`; `file` names it in errors, `baseDirectory` resolves relative paths.
    public static func parse(_ text: String, file: String, baseDirectory: String) throws -> Style {
        let root = StyleNode(try StyleJSON.parse(text, file: file), file: file)
        let o = try root.object(allowed: ["expiry", "fade", "hint", "lookup", "list", "progress", "rules"])
        var style = Style()
        style.file = file
        style.baseDirectory = baseDirectory.isEmpty ? FileManager.default.currentDirectoryPath : baseDirectory
        if let n = o["expiry"] { style.expirySeconds = try n.number(in: 0...3600) }
        if let n = o["fade"] { style.fadeSeconds = try n.number(in: 0...60) }
        if let n = o["hint"] { style.hint = try n.string() }
        if let n = o["lookup"] {
            for (name, t) in try n.members() {
                guard !name.isEmpty, !name.contains(".") else { throw t.error("invalid table name \(StyleError.quote(name))") }
                let to = try t.object(allowed: ["file", "key"])
                guard let f = to["file"] else { throw t.error("missing 'file' (a .csv or .json file)") }
                guard let k = to["key"] else { throw t.error("missing 'key' (the column holding the key)") }
                let path = OverlaySpec.resolve(path: try f.string(), baseDirectory: style.baseDirectory)
                style.tables[name] = try LookupTable.load(name: name, path: path, key: try k.string(), node: f)
            }
        }
        if let n = o["list"] { style.list = try PickList.parse(n, baseDirectory: style.baseDirectory) }
        if let n = o["progress"] {
            guard style.list != nil else { throw n.error("'progress' counts the items of a 'list': the style has none") }
            let po = try n.object(allowed: ["type", "text", "corner"])
            if let t = po["type"], try t.string() != "progress" { throw t.error("the only screen element is 'progress'") }
            guard let t = po["text"] else { throw n.error("missing 'text', e.g. \"{list.found}/{list.total} found\"") }
            let template = try TextTemplate(try t.string(), node: t)
            let known = ["list.found", "list.total", "list.missing"]
            if let bad = template.fields.first(where: { !known.contains($0) }) {
                throw t.error("unknown placeholder '{\(bad)}' in 'progress' (known: \(known.joined(separator: ", ")))")
            }
            let corner = try po["corner"].map { try $0.string() } ?? "top-right"
            guard progressCorners.contains(corner) else {
                throw po["corner"]!.error("unknown corner \(StyleError.quote(corner)) (known: \(progressCorners.joined(separator: ", ")))")
            }
            style.progress = (template, corner)
        }
        if let n = o["rules"] {
            style.rules = try n.array().map { try StyleRule.parse($0, tables: style.tables, baseDirectory: style.baseDirectory) }
            if style.list == nil, let i = style.rules.firstIndex(where: { $0.listed != nil }) {
                throw n.error("rules[\(i)] matches 'listed', but the style has no 'list'")
            }
        }
        return style
    }

    /// Reads a `set-overlay` argument: a JSON array of overlay objects (like a rule's `overlays`),
    /// which may use `{data}`, `{symbology}`, `{id}` and this style's lookup tables.
    public func parseOverlays(_ text: String) throws -> [OverlaySpec] {
        let root = StyleNode(try StyleJSON.parse(text, file: "<set-overlay>"), path: "overlays", file: "<set-overlay>")
        let fields = TemplateFields(captures: [], tables: tables)
        return try root.array().map { try OverlaySpec.parse($0, fields: fields, baseDirectory: baseDirectory) }
    }

    /// The overlays for a code: those of the first rule that matches, with templates expanded.
    /// Empty when no rule matches a read code; `defaultLocatedOverlays` when none matches a
    /// located region (a `located` rule with `"overlays": []` hides them).
    public func overlays(for code: CodeInfo) -> [ResolvedOverlay] {
        overlaysAndAbandonedRules(for: code).overlays
    }

    /// `overlays(for:)`, and the indices of the rules whose `data` match was abandoned on this
    /// code (over its time budget, `StyleLimits.matchProgressReports`: counted as no match), for
    /// the caller to warn about.
    public func overlaysAndAbandonedRules(for code: CodeInfo) -> (overlays: [ResolvedOverlay], abandonedRules: [Int]) {
        var abandoned: [Int] = []
        for (index, rule) in rules.enumerated() {
            guard rule.kind == code.kind else { continue }
            switch rule.evaluate(symbology: code.symbology, text: code.text, located: code.located, expanded: code.expanded,
                                 area: code.area) {
            case .matched(let captures):
                if let want = rule.listed, let list, (list.expected[list.key(text: code.text, captures: captures)] != nil) != want {
                    continue
                }
                return (resolve(rule.overlays, for: code, captures: captures), abandoned)
            case .abandoned: abandoned.append(index)
            case .noMatch: continue
            }
        }
        return (code.located ? resolve(Style.defaultLocatedOverlays, for: code) : [], abandoned)
    }

    /// Expands `specs`' templates for `code` (payload fields, `captures`, lookup rows). A located
    /// region has only `{symbology}`; it gets no lookup row.
    public func resolve(_ specs: [OverlaySpec], for code: CodeInfo, captures: [String: String] = [:]) -> [ResolvedOverlay] {
        var values = captures
        values["data"] = code.text
        values["symbology"] = code.symbology
        values["id"] = code.trackID.map { String($0) } ?? ""
        for (name, table) in tables where !code.located {
            let key = captures[table.key] ?? code.text
            for (column, v) in table.rows[key] ?? [:] { values["\(name).\(column)"] = v }
        }
        return specs.map { spec in
            let text = spec.kind == .label
                ? StyleLimits.boundedLabel(spec.text.expand(values), maxCharacters: spec.maxCharacters ?? StyleLimits.labelCharacters)
                : ""
            let file = spec.file.map { ImageFile.resolve($0, values: values, baseDirectory: baseDirectory) }
            let color = spec.colorTemplate.flatMap { Color(hex: $0.expand(values).trimmingCharacters(in: .whitespaces)) }
            return ResolvedOverlay(spec: spec, text: text, image: file, color: color)
        }
    }
}

/// What rules match on: one code's symbology, payload text and track id, and whether it is a
/// located region (seen, not read: symbology is its class `1D`/`2D`, text empty, no track id).
public struct CodeInfo: Hashable, Sendable {
    public var symbology: String
    public var text: String
    /// Track id; nil for an untracked detection or a located region.
    public var trackID: UInt64?
    /// Whether this is a located region, matched only by `"state": "located"` rules.
    public var located: Bool
    /// Whether a tap expanded the code (rules with `"when": {"expanded": …}`).
    public var expanded: Bool
    /// The code's area as a fraction of the frame's, 0…1, held steady by `AreaLevels` (rules with
    /// `"when": {"min-area": …, "max-area": …}`).
    public var area: Double
    /// What the target is (rules with `"match": {"kind": …}`; rules without match codes only).
    public var kind: TargetKind

    public init(symbology: String, text: String, trackID: UInt64?, located: Bool = false, expanded: Bool = false,
                area: Double = 0, kind: TargetKind = .code) {
        self.kind = kind
        self.symbology = symbology
        self.text = text
        self.trackID = trackID
        self.located = located
        self.expanded = expanded
        self.area = area
    }
}

/// An overlay for one code with its templates expanded.
public struct ResolvedOverlay: Hashable, Sendable {
    public var spec: OverlaySpec
    /// Label text (labels; empty otherwise), at most `StyleLimits.labelCharacters` characters.
    public var text: String
    /// The image file (images), or why the code's values may not name one (see `ImageFile`).
    public var image: Result<ImageFile, PathRefusal>?
    /// The colour to draw with: `spec.color`, or what its colour template gave for this code.
    public var color: Color

    public init(spec: OverlaySpec, text: String = "", image: Result<ImageFile, PathRefusal>? = nil, color: Color? = nil) {
        self.spec = spec
        self.text = text
        self.image = image
        self.color = color ?? spec.color
    }

    /// The image file's path, when the values name one.
    public var imagePath: String? { try? image?.get().path }
}
