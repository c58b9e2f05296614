import Foundation

/// What an overlay draws.
public enum OverlayKind: String, CaseIterable, Sendable {
    /// The code's quad, stroked.
    case outline
    /// A filled (optionally rounded) rectangle placed by anchor, offset and size.
    case box
    /// Text from a template on an optional background, sized to its text unless a size is given.
    case label
    /// A PNG placed like a box, or with `warp` drawn in perspective onto the code's quad; or, with
    /// `"source": "target"`, the target's own picture (a rectangle's reference image), altered by
    /// the GStreamer filter chain in `alter` and drawn in perspective onto its quad.
    case image
    /// The code's quad, filled (translucent by default): a highlight.
    case fill
    /// A filled circle (an ellipse when its size says so) placed like a box: a status dot.
    case dot
}

/// One overlay of a rule (or of an application's `set-overlay`), as written in the style.
/// Text and image paths are templates, expanded per code into a `ResolvedOverlay`.
public struct OverlaySpec: Hashable, Sendable {
    public var kind: OverlayKind
    /// Outline stroke, box fill, label text colour.
    public var color: Color
    /// A colour from the code's values (`"color": "{products.color}"`): expanded per code, a
    /// `#rrggbb[aa]` result replaces `color`; anything else leaves `color`.
    public var colorTemplate: TextTemplate?
    /// Outline line width, pixels.
    public var lineWidth: Double
    /// Label background; nil for none.
    public var background: Color?
    /// Label padding around the text, pixels.
    public var padding: Double
    /// Corner radius of boxes and label backgrounds, pixels.
    public var radius: Double
    /// Label text.
    public var text: TextTemplate
    /// Pango font description (`Sans Bold 18`); nil: the element's `font`, sized with the frame.
    public var font: String?
    /// Longest label, in characters (longer text ends in `…`); nil for `StyleLimits.labelCharacters`.
    public var maxCharacters: Int?
    /// Image file (absolute, or relative to the style file's folder once resolved).
    public var file: TextTemplate?
    /// Draw the image in perspective onto the code's quad.
    public var warp: Bool
    /// `"source": "target"`: the image is the target's own rectified picture (rectangles), not a file.
    public var fromTarget: Bool = false
    /// A GStreamer filter chain (`gst-launch` syntax, e.g. `videobalance saturation=0`) the target's
    /// picture passes through once before it is drawn; nil for the picture as it is.
    public var alter: String?
    /// Opacity multiplier, 0…1.
    public var opacity: Double
    public var placement: Placement

    public init(kind: OverlayKind, color: Color? = nil, lineWidth: Double = 3, background: Color? = nil, padding: Double = 4,
                radius: Double = 0, text: TextTemplate? = nil, font: String? = nil, maxCharacters: Int? = nil,
                file: TextTemplate? = nil, warp: Bool = false, opacity: Double = 1, placement: Placement = Placement()) {
        self.kind = kind
        self.color = color ?? OverlaySpec.defaultColor(kind)
        self.lineWidth = lineWidth
        self.background = background
        self.padding = padding
        self.radius = radius
        self.text = text ?? (try! TextTemplate("{data}"))
        self.font = font
        self.maxCharacters = maxCharacters
        self.file = file
        self.warp = warp
        self.opacity = opacity
        self.placement = placement
    }

    /// Green outlines, translucent black boxes, white text.
    public static func defaultColor(_ kind: OverlayKind) -> Color {
        switch kind {
        case .outline: return Color(red: 0, green: 1, blue: 0)
        case .box: return Color(red: 0, green: 0, blue: 0, alpha: 0.5)
        case .fill: return Color(red: 0, green: 1, blue: 0, alpha: 0.35)
        case .dot: return Color(red: 0, green: 1, blue: 0)
        case .label, .image: return Color(red: 1, green: 1, blue: 1)
        }
    }

    static let keys = ["type", "color", "width", "background", "padding", "radius", "text", "font", "max-chars",
                       "file", "warp", "opacity", "anchor", "offset", "size", "rotate", "source", "alter"]

    /// Reads one overlay object. `fields` are the template names allowed (payload fields,
    /// captures, lookup columns); `baseDirectory` resolves constant image paths, which must exist.
    /// `millimetresPerCode`: the printed size of the rule's codes (`code-size`), so sizes and
    /// offsets may be given in `mm`, `cm` or `m`.
    public static func parse(_ node: StyleNode, fields: TemplateFields, baseDirectory: String,
                             millimetresPerCode: Double? = nil) throws -> OverlaySpec {
        let o = try node.object(allowed: keys)
        guard let typeNode = o["type"] else {
            throw node.error("missing 'type' (one of: \(OverlayKind.allCases.map(\.rawValue).joined(separator: ", ")), icon)")
        }
        // `icon`: an image (PNG or SVG) by another name, as status icons are written.
        let kind = (try? typeNode.string()) == "icon" ? .image : try typeNode.choice("overlay type", OverlayKind.self)
        var spec = OverlaySpec(kind: kind)
        func refuse(_ key: String, unless kinds: [OverlayKind]) throws {
            if let n = o[key], !kinds.contains(kind) { throw n.error("'\(key)' does not apply to \(kind.rawValue) overlays") }
        }
        try refuse("width", unless: [.outline])
        try refuse("background", unless: [.label])
        try refuse("padding", unless: [.label])
        try refuse("radius", unless: [.label, .box])
        try refuse("text", unless: [.label])
        try refuse("font", unless: [.label])
        try refuse("max-chars", unless: [.label])
        try refuse("file", unless: [.image])
        try refuse("source", unless: [.image])
        try refuse("alter", unless: [.image])
        try refuse("warp", unless: [.image])
        for key in ["anchor", "offset", "size", "rotate"] { try refuse(key, unless: [.box, .label, .image, .dot]) }

        if let n = o["color"] {
            let text = try n.string()
            if text.contains("{") { spec.colorTemplate = try fields.template(text, node: n) } else { spec.color = try n.color() }
        }
        if let n = o["width"] { spec.lineWidth = try n.number(in: 0...1000) }
        if let n = o["background"] { spec.background = try n.color() }
        else if kind == .label { spec.background = Color(red: 0, green: 0, blue: 0, alpha: 0.7) }
        if let n = o["padding"] { spec.padding = try n.number(in: 0...1000) }
        if let n = o["radius"] { spec.radius = try n.number(in: 0...1000) }
        if let n = o["text"] { spec.text = try fields.template(try n.string(), node: n) }
        else if kind == .label, fields.located { throw node.error("a label in a located rule needs a 'text' (located regions have no payload)") }
        if let n = o["font"] {
            let f = try n.string()
            guard !f.trimmingCharacters(in: .whitespaces).isEmpty else { throw n.error("empty font description") }
            if let problem = FontDescription.sizeProblem(f) { throw n.error(problem) }
            spec.font = f
        }
        if let n = o["max-chars"] { spec.maxCharacters = Int(try n.number(in: 1...Double(StyleLimits.labelCharacters))) }
        if let n = o["opacity"] { spec.opacity = try n.number(in: 0...1) }
        if let n = o["warp"] { spec.warp = try n.bool() }
        if kind == .image, let n = o["source"] {
            guard try n.string() == "target" else { throw n.error("the only image 'source' is \"target\" (the target's own picture); a PNG is given with 'file'") }
            if let f = o["file"] { throw f.error("'file' and \"source\": \"target\" exclude each other") }
            spec.fromTarget = true
            spec.warp = true
            if let a = o["alter"] {
                let chain = try a.string().trimmingCharacters(in: .whitespacesAndNewlines)
                guard !chain.isEmpty, !chain.hasPrefix("!"), !chain.hasSuffix("!") else {
                    throw a.error("'alter' is a GStreamer filter chain such as \"videobalance saturation=0\"")
                }
                spec.alter = chain
            }
            if let bad = ["anchor", "offset", "size", "rotate"].first(where: { o[$0] != nil }) {
                throw o[bad]!.error("'\(bad)' does not apply to the target's picture (it covers the target's quad)")
            }
        } else if kind == .image {
            if let a = o["alter"] { throw a.error("'alter' applies to \"source\": \"target\" images") }
            guard let n = o["file"] else { throw node.error("image overlay needs a 'file' (a PNG) or \"source\": \"target\"") }
            let path = try n.string()
            let t = try fields.template(path, node: n)
            if t.isConstant {
                let full = OverlaySpec.resolve(path: path, baseDirectory: baseDirectory)
                guard FileManager.default.isReadableFile(atPath: full) else { throw n.error("image file '\(full)' not found or unreadable") }
            }
            spec.file = t
            if spec.warp, let bad = ["anchor", "offset", "size", "rotate"].first(where: { o[$0] != nil }) {
                throw o[bad]!.error("'\(bad)' does not apply to a warped image (it covers the code's quad)")
            }
        }
        if let n = o["anchor"] { spec.placement.anchor = try n.choice("anchor", Anchor.self) }
        if let n = o["rotate"] { spec.placement.rotate = try n.choice("rotate mode", Rotation.self) }
        if let n = o["offset"] {
            let xy = try n.object(allowed: ["x", "y"])
            spec.placement.offsetX = try xy["x"].map { try Length<OffsetUnit>.parse($0, range: StyleLimits.offset, millimetresPerCode: millimetresPerCode) }
            spec.placement.offsetY = try xy["y"].map { try Length<OffsetUnit>.parse($0, range: StyleLimits.offset, millimetresPerCode: millimetresPerCode) }
        }
        if let n = o["size"] {
            let wh = try n.object(allowed: ["width", "height"])
            spec.placement.width = try wh["width"].map { try Length<SizeUnit>.parse($0, range: StyleLimits.size, millimetresPerCode: millimetresPerCode) }
            spec.placement.height = try wh["height"].map { try Length<SizeUnit>.parse($0, range: StyleLimits.size, millimetresPerCode: millimetresPerCode) }
            if spec.placement.width?.unit == .ratio, spec.placement.height?.unit == .ratio {
                throw n.error("'ratio' on both width and height: one axis needs a length")
            }
        }
        return spec
    }

    /// `path` as an absolute path: relative paths are relative to `baseDirectory`.
    public static func resolve(path: String, baseDirectory: String) -> String {
        path.hasPrefix("/") ? path : (baseDirectory as NSString).appendingPathComponent(path)
    }
}

/// The template names a rule's overlays may use: the payload fields, the rule's named captures
/// and the lookup tables' columns. A `located` rule's overlays may use only `{symbology}` (the
/// region's class): located regions have no payload, no id and no lookup row.
public struct TemplateFields: Sendable {
    public static let payloadFields = ["data", "symbology", "id"]
    /// The fields of a located region.
    public static let locatedFields = ["symbology"]
    public var captures: [String]
    public var tables: [String: LookupTable]
    /// Whether these are the fields of a `located` rule.
    public var located = false

    public init(captures: [String] = [], tables: [String: LookupTable] = [:]) {
        self.captures = captures
        self.tables = tables
    }

    /// The fields of a `located` rule: `{symbology}` only.
    public static var located: TemplateFields {
        var f = TemplateFields()
        f.located = true
        return f
    }

    /// Parses `text`, refusing placeholders that name nothing.
    public func template(_ text: String, node: StyleNode) throws -> TextTemplate {
        let t = try TextTemplate(text, node: node)
        for f in t.fields {
            if located {
                guard TemplateFields.locatedFields.contains(f) else {
                    throw node.error("unknown placeholder '{\(f)}' in a located rule (known: symbology; located regions have no payload, id or lookup row)")
                }
                continue
            }
            if TemplateFields.payloadFields.contains(f) || captures.contains(f) { continue }
            if let dot = f.firstIndex(of: ".") {
                let table = String(f[..<dot]), column = String(f[f.index(after: dot)...])
                guard let lookup = tables[table] else {
                    throw node.error("unknown lookup table '\(table)' in '{\(f)}' (tables: \(tables.keys.sorted().joined(separator: ", ")))")
                }
                guard lookup.columns.contains(column) else {
                    throw node.error("lookup table '\(table)' has no column '\(column)' (columns: \(lookup.columns.sorted().joined(separator: ", ")))")
                }
                continue
            }
            let known = TemplateFields.payloadFields + captures
            throw node.error("unknown placeholder '{\(f)}' (known: \(known.joined(separator: ", ")), or table.column)")
        }
        return t
    }
}
