import ARBridge
import ARCodeGen
import ARCore
import ARGst
import CGStreamer
import CGstCheck
import Foundation
import XCTest

/// Initialises GStreamer and registers the plugin statically, once per test process.
enum TestGst {
    private static let once: Void = {
        // Only the system's plugins and the statically registered arbarcode: no installed or
        // freshly built copy of the plugin (GST_PLUGIN_PATH, ~/.local) may stand in for it.
        unsetenv("GST_PLUGIN_PATH")
        unsetenv("GST_PLUGIN_PATH_1_0")
        setenv("GST_PLUGIN_SYSTEM_PATH_1_0", systemPluginDirectory, 1)
        setenv("GST_REGISTRY_1_0", temporaryPath("registry.bin"), 1)
        gst_init(nil, nil)
        precondition(ar_plugin_register_static() != 0, "registering the arbarcode plugin failed")
    }()

    static func setUp() { _ = once }
}

/// A frame with codes drawn at exactly known positions.
struct TestFrame {
    var image: LumaPlane
    var truth: [(text: String, quad: Quad)] = []

    init(width: Int, height: Int, background: UInt8 = 200) {
        image = try! LumaPlane(validatingWidth: width, height: height, fill: background)
    }

    /// Draws a QR code with `text`, centred at (x, y), `module` pixels per module, rotated clockwise.
    mutating func addQR(_ text: String, x: Double, y: Double, module: Double = 4, rotation: Double = 0) {
        let matrix = try! CodeMatrix.qr(text: text)
        let quad = try! CodeRenderer().render(matrix, placement: CodePlacement(center: Point(x: x, y: y), moduleSize: module,
                                                                                rotationDegrees: rotation), into: &image)
        truth.append((text, quad))
    }

    var i420: [UInt8] { image.i420Frame() }
    var width: Int { image.width }
    var height: Int { image.height }
    var i420Caps: String { "video/x-raw,format=I420,width=\(width),height=\(height),framerate=30/1" }
}

/// A GstHarness around a bin made from a launch line (e.g. `arbarcodetrack ! aroverlay`).
final class Harness {
    let h: UnsafeMutablePointer<GstHarness>

    init(_ launch: String, caps: String) {
        TestGst.setUp()
        h = gst_harness_new_parse(launch)
        // Buffers are pushed like a file source's: not live (arbarcodetrack detect-mode=auto decodes in sync).
        gst_harness_set_live(h, 0)
        gst_harness_set_src_caps_str(h, caps)
    }

    deinit {
        gst_harness_teardown(h)
    }

    /// Sets `property` of the harness's element made by `factory` from its string form, between buffers.
    func set(_ factory: String, _ property: String, _ value: String) {
        let e = gst_harness_find_element(h, factory)!
        defer { gst_object_unref(UnsafeMutableRawPointer(e)) }
        g_object_set_property_string(e, property, value)
    }

    /// Pushes `bytes` as a buffer with `ptsNanoseconds` (nil: none), flagged DISCONT when `discont`,
    /// and returns the output buffer.
    func process(_ bytes: [UInt8], ptsNanoseconds: UInt64?, discont: Bool = false, file: StaticString = #filePath,
                 line: UInt = #line) -> OutputBuffer? {
        let buffer = gst_buffer_new_allocate(nil, gsize(bytes.count), nil)!
        _ = bytes.withUnsafeBytes { gst_buffer_fill(buffer, 0, $0.baseAddress, gsize(bytes.count)) }
        buffer.pointee.pts = ptsNanoseconds.map { GstClockTime($0) } ?? GstClockTime.max
        buffer.pointee.duration = 33_333_333
        if discont { buffer.pointee.mini_object.flags |= GST_BUFFER_FLAG_DISCONT.rawValue }
        let ret = gst_harness_push(h, buffer)
        XCTAssertEqual(ret.rawValue, GST_FLOW_OK.rawValue, "push failed", file: file, line: line)
        guard let out = gst_harness_pull(h) else { return nil }
        return OutputBuffer(out)
    }
}

/// A buffer pulled from a harness; owns its reference.
final class OutputBuffer {
    let pointer: UnsafeMutablePointer<GstBuffer>

    init(_ pointer: UnsafeMutablePointer<GstBuffer>) {
        self.pointer = pointer
    }

    deinit {
        gst_mini_object_unref(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self))
    }

    var regions: [BarcodeRegion] { Buffer(pointer).barcodeRegions() }

    var bytes: [UInt8] {
        var map = GstMapInfo()
        guard gst_buffer_map(pointer, &map, GstMapFlags(rawValue: 1)) != 0 else { return [] }
        defer { gst_buffer_unmap(pointer, &map) }
        return Array(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
    }

    /// The standard ROI metas (as any GStreamer element sees them): type, id and box.
    var roiMetas: [(type: String, id: Int32, x: UInt32, y: UInt32, w: UInt32, h: UInt32)] {
        var out: [(String, Int32, UInt32, UInt32, UInt32, UInt32)] = []
        var state: gpointer? = nil
        while let m = gst_buffer_iterate_meta_filtered(pointer, &state, gst_video_region_of_interest_meta_api_get_type()) {
            let roi = UnsafeMutableRawPointer(m).assumingMemoryBound(to: GstVideoRegionOfInterestMeta.self).pointee
            out.append((String(cString: g_quark_to_string(roi.roi_type)), roi.id, roi.x, roi.y, roi.w, roi.h))
        }
        return out
    }
}

/// What a pipeline run ended with: the first ERROR (nil when it reached EOS), every WARNING, and
/// every element message's structure as text (`gst_structure_to_string`).
struct PipelineResult {
    var error: (message: String, debug: String)?
    var warnings: [String] = []
    var elementMessages: [String] = []
}

/// Runs a launch line to EOS or the first ERROR and collects the bus's warnings.
func runPipelineFull(_ launch: String, file: StaticString = #filePath, line: UInt = #line) -> PipelineResult {
    TestGst.setUp()
    var parseError: UnsafeMutablePointer<GError>?
    let pipeline = gst_parse_launch(launch, &parseError)
    if let parseError {
        defer { g_error_free(parseError) }
        if let pipeline { gst_object_unref(UnsafeMutableRawPointer(pipeline)) }
        return PipelineResult(error: ("parse error: \(String(cString: parseError.pointee.message))", ""))
    }
    guard let pipeline else { return PipelineResult(error: ("parse error", "")) }
    defer {
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
    }
    let bus = gst_element_get_bus(pipeline)!
    defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
    gst_element_set_state(pipeline, GST_STATE_PLAYING)
    var result = PipelineResult()
    let types = GstMessageType(rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_WARNING.rawValue
                                   | GST_MESSAGE_ELEMENT.rawValue)
    while true {
        // Generous guard against a hung pipeline: not a timing assertion.
        guard let msg = gst_bus_timed_pop_filtered(bus, 30 * 1_000_000_000, types) else {
            XCTFail("pipeline neither finished nor failed within 30 s: \(launch)", file: file, line: line)
            result.error = ("timeout", "")
            return result
        }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self)) }
        switch msg.pointee.type {
        case GST_MESSAGE_EOS:
            return result
        case GST_MESSAGE_ELEMENT:
            if let s = gst_message_get_structure(msg), let text = gst_structure_to_string(s) {
                result.elementMessages.append(String(cString: text))
                g_free(text)
            }
        case GST_MESSAGE_WARNING:
            var err: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            gst_message_parse_warning(msg, &err, &debug)
            result.warnings.append(String(cString: err!.pointee.message) + (debug.map { " | " + String(cString: $0) } ?? ""))
            g_error_free(err); g_free(debug)
        default:
            var err: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            gst_message_parse_error(msg, &err, &debug)
            result.error = (String(cString: err!.pointee.message), debug.map { String(cString: $0) } ?? "")
            g_error_free(err); g_free(debug)
            return result
        }
    }
}

/// Runs a launch line to EOS; returns the first ERROR's text and debug, or nil on success.
func runPipeline(_ launch: String, file: StaticString = #filePath, line: UInt = #line) -> (message: String, debug: String)? {
    runPipelineFull(launch, file: file, line: line).error
}

/// Where Debian's GStreamer plugins live.
let systemPluginDirectory = "/usr/lib/\(machineTriplet)/gstreamer-1.0"

private var machineTriplet: String {
    #if arch(x86_64)
    return "x86_64-linux-gnu"
    #elseif arch(arm64)
    return "aarch64-linux-gnu"
    #else
    return "unknown"
    #endif
}

func temporaryPath(_ name: String) -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("arbarcode-tests-\(getpid())")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent(name).path
}

func assertQuad(_ actual: Quad, _ expected: Quad, within tolerance: Double, file: StaticString = #filePath, line: UInt = #line) {
    let d = actual.maxCornerDistance(to: expected)
    XCTAssertLessThanOrEqual(d, tolerance, "corners \(actual.corners) vs expected \(expected.corners)", file: file, line: line)
}

/// The directory holding the release-built libgstarbarcode.so, as users load it: $AR_PLUGIN_DIR
/// (set by scripts/test.sh) or .build/release.
func releasePluginDirectory(file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let dir = ProcessInfo.processInfo.environment["AR_PLUGIN_DIR"]
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/release").path
    guard FileManager.default.fileExists(atPath: dir + "/libgstarbarcode.so") else {
        XCTFail("no libgstarbarcode.so in \(dir): build it first (swift build -c release --product gstarbarcode; scripts/test.sh does)",
                file: file, line: line)
        throw CocoaError(.fileNoSuchFile)
    }
    return dir
}

/// Runs `executable` in a child process that sees only the system's GStreamer plugins and
/// `pluginDir`, with a fresh registry; returns its exit status, standard output and standard error.
func runWithPlugin(_ executable: String, _ arguments: [String], pluginDir: String) throws -> (status: Int32, output: String, errors: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    p.environment = pluginEnvironment(pluginDir)
    let errorsPath = temporaryPath("stderr-\(UUID().uuidString).txt")
    guard FileManager.default.createFile(atPath: errorsPath, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
    let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: errorsPath))
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = errors
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    try errors.close()
    let errorText = (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
    try? FileManager.default.removeItem(atPath: errorsPath)
    return (p.terminationStatus, String(decoding: data, as: UTF8.self), errorText)
}

/// This process's environment for a child that loads the plugin from `pluginDir` only (with
/// Debian's plugins), in a fresh registry, without the toolchain's library path.
func pluginEnvironment(_ pluginDir: String) -> [String: String] {
    var env = ProcessInfo.processInfo.environment
    env["GST_PLUGIN_PATH"] = pluginDir
    env["GST_PLUGIN_SYSTEM_PATH_1_0"] = systemPluginDirectory
    env["GST_REGISTRY_1_0"] = temporaryPath("registry-\(UUID().uuidString).bin")
    env["GST_REGISTRY"] = nil
    env["LD_LIBRARY_PATH"] = nil
    return env
}
