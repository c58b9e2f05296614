import ARBridge
import ARCore
import ARGst
import CGStreamer
import CGstCheck
import Foundation
import XCTest

/// A minimal source registered only in tests: exercises the bridge's GstPushSrc base.
final class TestRampSource: VideoSourceElement {
    struct Settings {
        var live = false
    }

    static let defaultSettings = Settings()
    static let metadata = ElementMetadata(factoryName: "artestrampsrc", typeName: "ArTestRampSrc", longName: "Test ramp",
                                          klass: "Source/Video", description: "Horizontal luma ramp, for bridge tests",
                                          caps: ElementMetadata.rawVideoCaps(["GRAY8"]), writesFrame: true)
    static let properties: [Property<Settings>] = [
        .bool("is-live", "Is live", "Pace output by the clock", \.live, mutableInPlaying: false),
    ]

    let element: ElementHandle
    let settings: SettingsStore<Settings>
    var info: VideoInfo?
    var index: UInt64 = 0

    init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    func start() throws {
        index = 0
    }

    func propertyChanged(_ name: String) {
        if name == "is-live" { element.setLive(settings.snapshot.live) }
    }

    func fixate(_ caps: UnsafeMutablePointer<GstCaps>) -> UnsafeMutablePointer<GstCaps> {
        let caps = makeWritable(caps)
        let s = gst_caps_get_structure(caps, 0)
        gst_structure_fixate_field_nearest_int(s, "width", 96)
        gst_structure_fixate_field_nearest_int(s, "height", 64)
        gst_structure_fixate_field_nearest_fraction(s, "framerate", 50, 1)
        return gst_caps_fixate(caps)
    }

    func setInfo(_ info: VideoInfo) throws {
        self.info = info
    }

    func fill(_ frame: VideoFrame) throws -> Bool {
        let p = frame.plane(0).assumingMemoryBound(to: UInt8.self)
        for y in 0..<frame.height {
            for x in 0..<frame.width { p[y * frame.stride(0) + x] = UInt8(truncatingIfNeeded: x + Int(index)) }
        }
        let d = info?.frameDurationNanoseconds ?? 20_000_000
        frame.buffer.setTimestamps(ptsNanoseconds: index * d, durationNanoseconds: d)
        index += 1
        return true
    }
}

/// A filter registered only in tests: counts frames, announces each with a signal, and answers
/// the action signal `add` (a + b).
final class TestCounterFilter: VideoFilterElement {
    struct Settings {}

    static let defaultSettings = Settings()
    static let metadata = ElementMetadata(factoryName: "artestcounter", typeName: "ArTestCounter", longName: "Test counter",
                                          klass: "Filter/Video", description: "Counts frames, for bridge tests",
                                          caps: "video/x-raw", writesFrame: false)
    static let properties: [Property<Settings>] = []
    static let signals: [SignalSpec] = [
        SignalSpec("frame-counted", params: [.uint64, .structure]),
        SignalSpec("add", params: [.int, .int], returns: .int, isAction: true),
    ]

    let element: ElementHandle
    var count: UInt64 = 0

    init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
    }

    func transform(_ frame: VideoFrame) throws {
        count += 1
        let s = OwnedStructure(name: "count")
        s.set("width", int: Int32(frame.width))
        var params = [GValue(), GValue()]
        g_value_init(&params[0], ar_value_gtype(AR_VALUE_UINT64))
        g_value_set_uint64(&params[0], guint64(count))
        g_value_init(&params[1], ar_value_gtype(AR_VALUE_STRUCTURE))
        g_value_take_boxed(&params[1], UnsafeRawPointer(s.release()))
        element.emitSignal(0, &params)
        for i in params.indices { g_value_unset(&params[i]) }
    }

    func action(_ index: Int, params: UnsafeBufferPointer<GValue>, result: UnsafeMutablePointer<GValue>?) {
        withUnsafePointer(to: params[0]) { a in
            withUnsafePointer(to: params[1]) { b in
                if let result { g_value_set_int(result, g_value_get_int(a) + g_value_get_int(b)) }
            }
        }
    }
}

enum TestElements {
    static let registered: Bool = {
        TestGst.setUp()
        return gst_plugin_register_static(1, 22, "artestelements", "arbarcode test elements",
                                          { plugin in
                                              let ok = registerElement(TestRampSource.self, plugin: plugin!)
                                                  && registerElement(TestCounterFilter.self, plugin: plugin!)
                                              return ok ? 1 : 0
                                          },
                                          "0", "MIT/X11", "arbarcode", "arbarcode", "https://example.invalid") != 0
    }()
}

/// Frame numbers and widths seen by the `frame-counted` handler.
private final class SignalLog {
    var counts: [UInt64] = []
    var widths: [Int32] = []
}

private let frameCounted: @convention(c) (UnsafeMutableRawPointer?, guint64, UnsafeMutablePointer<GstStructure>?, UnsafeMutableRawPointer?) -> Void = {
    _, count, structure, data in
    let log = Unmanaged<SignalLog>.fromOpaque(data!).takeUnretainedValue()
    log.counts.append(UInt64(count))
    var w: gint = 0
    _ = gst_structure_get_int(structure, "width", &w)
    log.widths.append(w)
}

final class BridgeSourceTests: XCTestCase {
    func testSwiftSourceNegotiatesFixatesAndTimestampsFrames() throws {
        XCTAssertTrue(TestElements.registered)
        let path = temporaryPath("ramp.jsonl")
        XCTAssertNil(runPipeline("artestrampsrc num-buffers=4 ! arexport location=\(path) ! fakesink"))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { try FrameRecord(jsonLine: String($0)) }
        XCTAssertEqual(lines.map(\.frame), [0, 1, 2, 3])
        XCTAssertEqual(lines.map(\.ptsNanoseconds), [0, 20_000_000, 40_000_000, 60_000_000], "50 fps fixated")
        XCTAssertEqual(lines.first?.width, 96)
        XCTAssertEqual(lines.first?.height, 64)
    }

    func testLiveSwiftSourceRunsToEndOfStream() throws {
        XCTAssertTrue(TestElements.registered)
        XCTAssertNil(runPipeline("artestrampsrc is-live=true num-buffers=3 ! video/x-raw,width=32,height=16,framerate=100/1 ! fakesink sync=true"))
    }

    func testSourceReportsOneFrameOfLatencyLiveOrNot() throws {
        XCTAssertTrue(TestElements.registered)
        XCTAssertEqual(try latency(live: true), Latency(live: true, minimumNanoseconds: 40_000_000), "one frame at 25 fps")
        XCTAssertEqual(try latency(live: false), Latency(live: false, minimumNanoseconds: 40_000_000))
    }

    private struct Latency: Equatable {
        var live: Bool
        var minimumNanoseconds: UInt64
    }

    /// The source's answer to a latency query once paused (caps negotiated) at 25 fps.
    private func latency(live: Bool) throws -> Latency {
        let pipeline = try XCTUnwrap(gst_parse_launch("artestrampsrc name=src is-live=\(live) ! video/x-raw,framerate=25/1 ! fakesink", nil))
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        // Generous guard against a hung pipeline, not a timing assertion.
        XCTAssertEqual(gst_element_get_state(pipeline, nil, nil, 30 * 1_000_000_000), GST_STATE_CHANGE_SUCCESS)
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        let src = try XCTUnwrap(gst_bin_get_by_name(bin, "src"))
        defer { gst_object_unref(UnsafeMutableRawPointer(src)) }
        let query = gst_query_new_latency()!
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(query).assumingMemoryBound(to: GstMiniObject.self)) }
        XCTAssertNotEqual(gst_element_query(src, query), 0)
        var isLive: gboolean = 0
        var minimum: GstClockTime = 0
        var maximum: GstClockTime = 0
        gst_query_parse_latency(query, &isLive, &minimum, &maximum)
        XCTAssertEqual(maximum, GstClockTime.max, "no maximum")
        return Latency(live: isLive != 0, minimumNanoseconds: UInt64(minimum))
    }
}

final class BridgeSignalTests: XCTestCase {
    func testSignalsCarryTheirParametersToHandlers() throws {
        XCTAssertTrue(TestElements.registered)
        let log = SignalLog()
        let h = Harness("artestcounter name=c", caps: "video/x-raw,format=GRAY8,width=8,height=4,framerate=30/1")
        let element = gst_harness_find_element(h.h, "artestcounter")!
        defer { gst_object_unref(UnsafeMutableRawPointer(element)) }
        _ = g_signal_connect_data(UnsafeMutableRawPointer(element), "frame-counted", unsafeBitCast(frameCounted, to: GCallback.self),
                                  Unmanaged.passUnretained(log).toOpaque(), nil, GConnectFlags(rawValue: 0))
        for i in 0..<3 { XCTAssertNotNil(h.process([UInt8](repeating: 0, count: 32), ptsNanoseconds: UInt64(i))) }
        XCTAssertEqual(log.counts, [1, 2, 3])
        XCTAssertEqual(log.widths, [8, 8, 8])
    }

    func testActionSignalsAreAnsweredBySwift() throws {
        XCTAssertTrue(TestElements.registered)
        let element = gst_element_factory_make("artestcounter", nil)!
        defer { gst_object_unref(UnsafeMutableRawPointer(element)) }
        let type = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee.g_type
        let id = g_signal_lookup("add", type)
        XCTAssertNotEqual(id, 0)
        var args = [GValue(), GValue(), GValue()]
        g_value_init(&args[0], gst_element_get_type())
        g_value_set_object(&args[0], UnsafeMutableRawPointer(element))
        g_value_init(&args[1], ar_value_gtype(AR_VALUE_INT)); g_value_set_int(&args[1], 40)
        g_value_init(&args[2], ar_value_gtype(AR_VALUE_INT)); g_value_set_int(&args[2], 2)
        var result = GValue()
        g_value_init(&result, ar_value_gtype(AR_VALUE_INT))
        g_signal_emitv(&args, id, 0, &result)
        XCTAssertEqual(g_value_get_int(&result), 42)
        for i in args.indices { g_value_unset(&args[i]) }
    }
}
