import Foundation

/// Why a JSON line could not be read back as a `FrameRecord`.
public enum FrameRecordError: Error, Hashable, Sendable {
    /// The line is not valid JSON; carries the parser's message.
    case invalidJSON(String)
    /// The top level (or an entry of `objects`) is not a JSON object.
    case notAnObject(String)
    /// A required key is absent; carries its name.
    case missingKey(String)
    /// A key holds a value of the wrong type or range; carries the key name.
    case wrongType(String)
    /// `quad` is not four `[x, y]` number pairs.
    case invalidQuad
    /// `state` is not one of "detected", "tracked", "lost", "located"; carries the value found.
    case invalidState(String)
    /// `data_base64` is not valid standard base64.
    case invalidBase64
}

/// One target on one frame, as written in the JSON Lines output.
///
/// A `located` region (seen, not yet read) has `id` 0, a symbology class (`1D` or `2D`) and an
/// empty payload; its line has no `data` key. A rectangle (`kind` `rectangle`) has symbology
/// `rectangle`, no payload (no `data` key), and its `aspect` and `confidence`.
public struct ObjectRecord: Hashable, Sendable {
    /// What the target is; `code` for codes and located regions.
    public var kind: TargetKind
    /// Track id (unique in the stream, from 1); 0 when not tracked, always 0 for `located` regions.
    public var id: UInt64
    /// Symbology name, e.g. "QR-Code"; for `located` regions the class, `1D` or `2D`.
    public var symbology: String
    /// The decoded bytes; empty for `located` regions.
    public var payload: [UInt8]
    /// Outline in frame pixels, clockwise from the code's own top-left.
    public var quad: Quad
    /// How the track was seen on this frame.
    public var state: TrackState
    /// Rectangles: the shorter side over the longer (0…1), as seen; nil for other kinds.
    public var aspect: Double?
    /// Rectangles: how sure the detector was (0…1, the share of the outline on strong edges); nil for other kinds.
    public var confidence: Double?

    /// A record with every field given (quad in pixels).
    public init(id: UInt64, symbology: String, payload: [UInt8], quad: Quad, state: TrackState, kind: TargetKind = .code,
                aspect: Double? = nil, confidence: Double? = nil) {
        self.kind = kind
        self.aspect = aspect
        self.confidence = confidence
        self.id = id
        self.symbology = symbology
        self.payload = payload
        self.quad = quad
        self.state = state
    }

    /// The record of a tracker's track.
    public init(_ track: Track) {
        self.init(id: track.id, symbology: track.symbology, payload: track.payload, quad: track.quad,
                  state: track.state)
    }
}

/// One frame of the public JSON Lines schema:
///
///     {"frame":0,"pts":null,"width":640,"height":480,"objects":[{"id":1,"symbology":"QR-Code",
///      "data":"hi","quad":[[10,10],[50,10],[50,50],[10,50]],"state":"detected","kind":"code"}]}
///
/// Keys are written in exactly that order, without spaces. When a payload is not valid UTF-8, `data`
/// holds its text as `PayloadText` reads it (Shift JIS for QR codes, else ISO 8859-1) and
/// `"data_base64"` (standard, padded: the exact bytes) follows it.
/// A `located` region (seen, not read) has neither: `{"id":0,"symbology":"2D","quad":[…],"state":"located","kind":"code"}`.
/// Every object ends with its `"kind"` (`code`, `rectangle`, `note`); a rectangle has no `data` and
/// ends with `"aspect"` and `"confidence"` (0…1, 2 decimals):
/// `{"id":3,"symbology":"rectangle","quad":[…],"state":"tracked","kind":"rectangle","aspect":0.75,"confidence":0.93}`.
/// Quad coordinates are pixels rounded to 2 decimals, printed without exponent or trailing zeros;
/// non-finite coordinates are written as `null` (and read back as NaN).
public struct FrameRecord: Hashable, Sendable {
    /// Frame index, from 0.
    public var frame: UInt64
    /// Presentation timestamp, nanoseconds; nil when the buffer has none (`null` in JSON).
    public var ptsNanoseconds: UInt64?
    /// Frame width, pixels.
    public var width: Int
    /// Frame height, pixels.
    public var height: Int
    /// The targets reported on this frame.
    public var objects: [ObjectRecord]

    /// A record with every field given (pts in nanoseconds, size in pixels).
    public init(frame: UInt64, ptsNanoseconds: UInt64?, width: Int, height: Int, objects: [ObjectRecord]) {
        self.frame = frame
        self.ptsNanoseconds = ptsNanoseconds
        self.width = width
        self.height = height
        self.objects = objects
    }

    /// The record as one compact JSON line, without the trailing newline.
    public func jsonLine() -> String {
        var out = "{\"frame\":\(frame),\"pts\":"
        out += ptsNanoseconds.map { String($0) } ?? "null"
        out += ",\"width\":\(width),\"height\":\(height),\"objects\":["
        for (i, object) in objects.enumerated() {
            if i > 0 { out += "," }
            let text = PayloadText.text(object.payload, symbology: object.symbology)
            out += "{\"id\":\(object.id),\"symbology\":"
            out += FrameRecord.jsonString(object.symbology)
            // A located region was not read, a rectangle has no payload, a note has text: no data to write.
            if object.state != .located && object.kind == .code {
                out += ",\"data\":" + FrameRecord.jsonString(text)
                if Array(text.utf8) != object.payload {
                    out += ",\"data_base64\":\"" + Data(object.payload).base64EncodedString() + "\""
                }
            }
            out += ",\"quad\":["
            out += object.quad.corners.map { "[\(FrameRecord.jsonNumber($0.x)),\(FrameRecord.jsonNumber($0.y))]" }
                .joined(separator: ",")
            out += "],\"state\":\"\(object.state.rawValue)\",\"kind\":\"\(object.kind.rawValue)\""
            if let a = object.aspect { out += ",\"aspect\":" + FrameRecord.jsonNumber(a) }
            if let c = object.confidence { out += ",\"confidence\":" + FrameRecord.jsonNumber(c) }
            if object.kind == .note {
                // A note: its text and the scene point it is pinned to (frame pixels).
                let p = object.quad.center
                out += ",\"text\":" + FrameRecord.jsonString(text)
                out += ",\"point\":[\(FrameRecord.jsonNumber(p.x)),\(FrameRecord.jsonNumber(p.y))]"
            }
            out += "}"
        }
        out += "]}"
        return out
    }

    /// Parses one line written by `jsonLine()` (surrounding whitespace allowed, unknown keys ignored).
    /// The payload comes from `data_base64` when present, else from the UTF-8 of `data`; `data` may be
    /// absent only on a `located` object or a rectangle (its payload is then empty). A missing
    /// `kind` (lines written before kinds existed) reads as `code`.
    public init(jsonLine: String) throws(FrameRecordError) {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(jsonLine.utf8), options: [.fragmentsAllowed])
        } catch {
            throw .invalidJSON(String(describing: error))
        }
        guard let root = parsed as? [String: Any] else { throw .notAnObject("line") }
        frame = try FrameRecord.value(root, "frame", as: UInt64.self)
        if root["pts"] is NSNull {
            ptsNanoseconds = nil
        } else {
            ptsNanoseconds = try FrameRecord.value(root, "pts", as: UInt64.self)
        }
        width = try FrameRecord.value(root, "width", as: Int.self)
        height = try FrameRecord.value(root, "height", as: Int.self)
        let entries = try FrameRecord.value(root, "objects", as: [Any].self)
        objects = []
        for entry in entries {
            guard let object = entry as? [String: Any] else { throw .notAnObject("objects") }
            objects.append(try FrameRecord.objectRecord(object))
        }
    }

    private static func objectRecord(_ o: [String: Any]) throws(FrameRecordError) -> ObjectRecord {
        let id = try value(o, "id", as: UInt64.self)
        let symbology = try value(o, "symbology", as: String.self)
        let stateName = try value(o, "state", as: String.self)
        guard let state = TrackState(rawValue: stateName) else { throw .invalidState(stateName) }
        var kind = TargetKind.code
        if o["kind"] != nil {
            let name = try value(o, "kind", as: String.self)
            guard let k = TargetKind(rawValue: name) else { throw .wrongType("kind") }
            kind = k
        }
        let optionalData = state == .located || kind != .code
        let data = try optionalData && o["data"] == nil ? "" : value(o, "data", as: String.self)
        var payload = Array(data.utf8)
        if kind == .note, o["text"] != nil { payload = Array(try value(o, "text", as: String.self).utf8) }
        if o["data_base64"] != nil {
            let encoded = try value(o, "data_base64", as: String.self)
            guard let bytes = Data(base64Encoded: encoded) else { throw .invalidBase64 }
            payload = Array(bytes)
        }
        guard let pairs = o["quad"] else { throw .missingKey("quad") }
        guard let corners = pairs as? [Any], corners.count == 4 else { throw .invalidQuad }
        var points: [Point] = []
        for corner in corners {
            guard let xy = corner as? [Any], xy.count == 2,
                  let x = coordinate(xy[0]), let y = coordinate(xy[1]) else { throw .invalidQuad }
            points.append(Point(x: x, y: y))
        }
        let aspect = try o["aspect"] == nil ? nil : value(o, "aspect", as: Double.self)
        let confidence = try o["confidence"] == nil ? nil : value(o, "confidence", as: Double.self)
        return ObjectRecord(id: id, symbology: symbology, payload: payload, quad: Quad(points)!, state: state, kind: kind,
                            aspect: aspect, confidence: confidence)
    }

    /// A quad coordinate: a JSON number, or `null` for a non-finite value.
    private static func coordinate(_ any: Any) -> Double? {
        if any is NSNull { return .nan }
        if any is String { return nil }
        return any as? Double
    }

    /// `dict[key]` as a `T`; numbers must fit `T` exactly (no fractions, no negatives for unsigned).
    private static func value<T>(_ dict: [String: Any], _ key: String, as: T.Type) throws(FrameRecordError) -> T {
        guard let raw = dict[key] else { throw .missingKey(key) }
        if T.self != String.self, raw is String { throw .wrongType(key) }
        guard let typed = raw as? T else { throw .wrongType(key) }
        return typed
    }

    /// `s` as a JSON string literal: quotes, backslash and control characters escaped, the rest as-is.
    public static func jsonString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `x` rounded to 2 decimals without exponent or trailing zeros ("10", "10.5", "-3.1"); `null`
    /// when not finite.
    static func jsonNumber(_ x: Double) -> String {
        guard x.isFinite else { return "null" }
        guard abs(x) < 1e15 else { return String(format: "%.0f", x) }
        let cents = Int64((x * 100).rounded())
        if cents == 0 { return "0" }
        let magnitude = cents.magnitude
        let whole = magnitude / 100, fraction = magnitude % 100
        var out = (cents < 0 ? "-" : "") + String(whole)
        if fraction != 0 {
            out += fraction % 10 == 0 ? ".\(fraction / 10)" : (fraction < 10 ? ".0\(fraction)" : ".\(fraction)")
        }
        return out
    }
}
