import ARBridge
import ARGst
import CGStreamer
import Foundation

/// Initialises GStreamer with the system plugins and arbarcode registered statically (the code
/// under test is this build's, never an installed copy).
enum BenchGst {
    private static let once: Void = {
        unsetenv("GST_PLUGIN_PATH")
        unsetenv("GST_PLUGIN_PATH_1_0")
        gst_init(nil, nil)
        precondition(ar_plugin_register_static() != 0, "registering the arbarcode plugin failed")
    }()

    static func setUp() { _ = once }
}

/// Errors from running a pipeline.
enum BenchError: Error, CustomStringConvertible {
    case parse(String)
    case pipeline(String)
    case usage(String)

    var description: String {
        switch self {
        case .parse(let m): return "parse error: \(m)"
        case .pipeline(let m): return "pipeline error: \(m)"
        case .usage(let m): return m
        }
    }
}

/// One `barcode` element message: which element posted it and its structure's codes.
struct BarcodeMessage {
    var source: String
    /// Each code: symbology, text (`symbol`) and exact bytes (`payload`, else the text's bytes).
    var codes: [Code]

    struct Code {
        var type: String
        var symbol: [UInt8]
        var payload: [UInt8]
    }
}

/// Runs `launch` to EOS (string properties in `set` are applied by element name first, so file
/// names need no quoting) and returns every `barcode` element message.
func runCollectingBarcodes(_ launch: String, set: [(element: String, property: String, value: String)] = []) throws -> [BarcodeMessage] {
    BenchGst.setUp()
    var error: UnsafeMutablePointer<GError>?
    let pipeline = gst_parse_launch(launch, &error)
    if let error {
        defer { g_error_free(error) }
        throw BenchError.parse(String(cString: error.pointee.message))
    }
    guard let pipeline else { throw BenchError.parse(launch) }
    let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
    defer {
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
    }
    for s in set {
        guard let e = gst_bin_get_by_name(bin, s.element) else { throw BenchError.parse("no element \(s.element)") }
        gst_util_set_object_arg(UnsafeMutableRawPointer(e).assumingMemoryBound(to: GObject.self), s.property, s.value)
        gst_object_unref(UnsafeMutableRawPointer(e))
    }
    let bus = gst_element_get_bus(pipeline)!
    defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
    gst_element_set_state(pipeline, GST_STATE_PLAYING)
    var out: [BarcodeMessage] = []
    let types = GstMessageType(rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_ELEMENT.rawValue)
    while true {
        guard let msg = gst_bus_timed_pop_filtered(bus, 120 * 1_000_000_000, types) else {
            throw BenchError.pipeline("timeout: \(launch)")
        }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self)) }
        switch msg.pointee.type {
        case GST_MESSAGE_EOS:
            return out
        case GST_MESSAGE_ELEMENT:
            guard let s = gst_message_get_structure(msg) else { continue }
            let view = StructureView(s)
            guard view.name == "barcode" else { continue }
            let name = gst_object_get_name(msg.pointee.src).map { p -> String in defer { g_free(p) }; return String(cString: p) } ?? ""
            let list = view.structures("symbols")
            let entries = list.isEmpty ? [view] : list
            out.append(BarcodeMessage(source: name, codes: entries.map { e in
                let symbol = Array((e.string("symbol") ?? "").utf8)
                return BarcodeMessage.Code(type: e.string("type") ?? "", symbol: symbol, payload: e.bytes("payload") ?? symbol)
            }))
        default:
            var err: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            gst_message_parse_error(msg, &err, &debug)
            defer { g_error_free(err); g_free(debug) }
            throw BenchError.pipeline(String(cString: err!.pointee.message))
        }
    }
}

/// Frame sizes written `1280x720,1920x1080` (entries that are not WIDTHxHEIGHT are left out).
func frameSizes(_ text: String) -> [(width: Int, height: Int)] {
    text.split(separator: ",").compactMap { s in
        let p = s.split(separator: "x").compactMap { Int($0) }
        return p.count == 2 ? (p[0], p[1]) : nil
    }
}
