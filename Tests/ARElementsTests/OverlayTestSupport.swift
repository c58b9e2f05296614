import ARBridge
import ARCore
import ARGst
import CGStreamer
import CGstCheck
import Foundation
import XCTest

/// A harness around `aroverlay` (and whatever the launch line adds) fed BGRx or other frames
/// whose codes are attached as metas at exactly known quads: no detector in the loop.
final class OverlayHarness {
    let h: UnsafeMutablePointer<GstHarness>
    let width: Int
    let height: Int

    /// `launch` must take and give `caps`-compatible video; codes are written for `width` × `height`.
    init(_ launch: String, width: Int = 320, height: Int = 240, format: String = "BGRx", sinkCaps: String? = nil) {
        TestGst.setUp()
        self.width = width
        self.height = height
        h = gst_harness_new_parse(launch)
        gst_harness_set_src_caps_str(h, "video/x-raw,format=\(format),width=\(width),height=\(height),framerate=25/1")
        if let sinkCaps { gst_harness_set_sink_caps_str(h, sinkCaps) }
    }

    deinit {
        gst_harness_teardown(h)
    }

    /// The element named `name` in the harness (e.g. `aroverlay`), unreferenced.
    func element(_ factory: String = "aroverlay") -> UnsafeMutablePointer<GstElement> {
        let e = gst_harness_find_element(h, factory)!
        gst_object_unref(UnsafeMutableRawPointer(e))
        return e
    }

    func set(_ property: String, _ value: String) {
        g_object_set_property_string(element(), property, value)
    }

    /// Pushes `bytes` with `codes` attached (quads in `width` × `height` pixels) at `seconds`.
    func push(_ bytes: [UInt8], codes: [BarcodeRegion], seconds: Double, file: StaticString = #filePath,
              line: UInt = #line) -> OutputBuffer? {
        let buffer = gst_buffer_new_allocate(nil, gsize(bytes.count), nil)!
        _ = bytes.withUnsafeBytes { gst_buffer_fill(buffer, 0, $0.baseAddress, gsize(bytes.count)) }
        buffer.pointee.pts = GstClockTime(seconds * 1e9)
        buffer.pointee.duration = 40_000_000
        Buffer(buffer).setBarcodeRegions(codes, frameWidth: width, frameHeight: height)
        let ret = gst_harness_push(h, buffer)
        XCTAssertEqual(ret.rawValue, GST_FLOW_OK.rawValue, "push failed", file: file, line: line)
        guard let out = gst_harness_pull(h) else { return nil }
        return OutputBuffer(out)
    }

    /// A black BGRx frame.
    var black: [UInt8] { [UInt8](repeating: 0, count: width * height * 4).enumerated().map { $0.offset % 4 == 3 ? 255 : 0 } }
}

/// A string property set through GObject (works for any property type GStreamer can parse).
func g_object_set_property_string(_ element: UnsafeMutablePointer<GstElement>, _ name: String, _ value: String) {
    gst_util_set_object_arg(UnsafeMutableRawPointer(element).assumingMemoryBound(to: GObject.self), name, value)
}

/// A tracked QR code at `quad`, as a tracker upstream would report it.
func code(_ text: String, id: UInt64 = 1, quad: Quad, state: TrackState = .detected) -> BarcodeRegion {
    BarcodeRegion(trackID: id, symbology: "QR-Code", payload: Array(text.utf8), quad: quad, state: state, quality: 1)
}

/// Pixels of a BGRx/BGRA frame.
struct BGRxImage {
    let bytes: [UInt8]
    let width: Int

    func rgb(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
        let i = (y * width + x) * 4
        return (Int(bytes[i + 2]), Int(bytes[i + 1]), Int(bytes[i]))
    }

    func isRed(_ x: Int, _ y: Int) -> Bool {
        let p = rgb(x, y)
        return p.r > 200 && p.g < 60 && p.b < 60
    }

    /// The bounding box of red pixels, or nil.
    var redBounds: (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
        var b: (Int, Int, Int, Int)?
        let height = bytes.count / 4 / width
        for y in 0..<height {
            for x in 0..<width where isRed(x, y) {
                b = b.map { (min($0.0, x), min($0.1, y), max($0.2, x), max($0.3, y)) } ?? (x, y, x, y)
            }
        }
        return b.map { (minX: $0.0, minY: $0.1, maxX: $0.2, maxY: $0.3) }
    }
}

/// Writes a `size` × `size` PNG of one colour (a videotestsrc pattern name, e.g. `red`) to `path`.
func writePNG(_ path: String, pattern: String, size: Int = 32) {
    XCTAssertNil(runPipeline("videotestsrc num-buffers=1 pattern=\(pattern) ! video/x-raw,width=\(size),height=\(size) ! pngenc ! filesink location=\(path)"))
}
