import ARCore
import ARGst
import CGStreamer
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

enum TestElements {
    static let registered: Bool = {
        TestGst.setUp()
        return gst_plugin_register_static(1, 22, "artestelements", "arbarcode test elements",
                                          { plugin in registerElement(TestRampSource.self, plugin: plugin!) ? 1 : 0 },
                                          "0", "MIT/X11", "arbarcode", "arbarcode", "https://example.invalid") != 0
    }()
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
}
