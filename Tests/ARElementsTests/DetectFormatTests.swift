import ARBridge
import ARCodeGen
import ARCore
import ARGst
import CGStreamer
import CGstCheck
import XCTest

/// A grey image laid out in a raw video format with padded strides, described by a GstVideoMeta.
struct DetectLayout {
    var format: String
    var bytes: [UInt8] = []
    var offsets: [Int] = []
    var strides: [Int] = []

    /// `image` in `format`: luma from the grey, chroma neutral, RGB grey, alpha opaque; each row
    /// padded by `padding` bytes of 0 (black), which a reader must not take for pixels.
    init(_ image: LumaPlane, format: String, padding: Int = 7) {
        self.format = format
        let w = image.width, h = image.height, cw = (w + 1) / 2, ch = (h + 1) / 2
        func plane(rowBytes: Int, rows: Int, _ value: (Int, Int) -> UInt8) {
            let stride = rowBytes + padding
            offsets.append(bytes.count)
            strides.append(stride)
            for y in 0..<rows {
                for x in 0..<rowBytes { bytes.append(value(x, y)) }
                bytes += [UInt8](repeating: 0, count: padding)
            }
        }
        func grey(_ x: Int, _ y: Int) -> UInt8 { image[x, y] }
        func neutral(_: Int, _: Int) -> UInt8 { 128 }
        switch format {
        case "GRAY8": plane(rowBytes: w, rows: h, grey)
        case "I420", "YV12":
            plane(rowBytes: w, rows: h, grey); plane(rowBytes: cw, rows: ch, neutral); plane(rowBytes: cw, rows: ch, neutral)
        case "Y42B":
            plane(rowBytes: w, rows: h, grey); plane(rowBytes: cw, rows: h, neutral); plane(rowBytes: cw, rows: h, neutral)
        case "Y444":
            plane(rowBytes: w, rows: h, grey); plane(rowBytes: w, rows: h, neutral); plane(rowBytes: w, rows: h, neutral)
        case "NV12", "NV21":
            plane(rowBytes: w, rows: h, grey); plane(rowBytes: 2 * cw, rows: ch, neutral)
        case "YUY2", "YVYU":
            plane(rowBytes: 4 * cw, rows: h) { x, y in x % 2 == 0 ? image[min(w - 1, x / 4 * 2 + (x % 4) / 2), y] : 128 }
        case "UYVY":
            plane(rowBytes: 4 * cw, rows: h) { x, y in x % 2 == 1 ? image[min(w - 1, x / 4 * 2 + (x % 4) / 2), y] : 128 }
        case "RGB", "BGR":
            plane(rowBytes: 3 * w, rows: h) { x, y in image[x / 3, y] }
        default:  // 4-byte RGB with alpha or padding in one of the slots
            let alpha = format.firstIndex { $0 == "A" || $0 == "x" }.map { format.distance(from: format.startIndex, to: $0) } ?? 3
            plane(rowBytes: 4 * w, rows: h) { x, y in x % 4 == alpha ? 255 : image[x / 4, y] }
        }
    }

    func caps(width: Int, height: Int) -> String {
        "video/x-raw,format=\(format),width=\(width),height=\(height),framerate=30/1"
    }

    /// A buffer with these bytes and a GstVideoMeta giving the padded layout.
    func buffer(width: Int, height: Int) -> UnsafeMutablePointer<GstBuffer> {
        let buffer = gst_buffer_new_allocate(nil, gsize(bytes.count), nil)!
        _ = bytes.withUnsafeBytes { gst_buffer_fill(buffer, 0, $0.baseAddress, gsize(bytes.count)) }
        var o = offsets.map { gsize($0) } + [gsize](repeating: 0, count: 4 - offsets.count)
        var s = strides.map { gint(Int32($0)) } + [gint](repeating: 0, count: 4 - strides.count)
        _ = gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, gst_video_format_from_string(format),
                                           guint(width), guint(height), guint(offsets.count), &o, &s)
        buffer.pointee.pts = 0
        return buffer
    }
}

final class DetectFormatTests: XCTestCase {
    static let formats = ["I420", "YV12", "NV12", "NV21", "Y42B", "Y444", "GRAY8", "YUY2", "UYVY", "YVYU",
                          "BGRx", "BGRA", "RGBx", "RGBA", "xRGB", "ARGB", "xBGR", "ABGR", "RGB", "BGR"]

    func testEveryFormatWithOddSizeAndPaddedStridesYieldsTextAndCorners() throws {
        var f = TestFrame(width: 385, height: 289)
        f.addQR("FORMAT TEST", x: 120.5, y: 140.5, module: 4)
        var code = f.image
        let truth128 = try CodeRenderer().render(CodeMatrix.code128("FMT-128"),
                                                 placement: CodePlacement(center: Point(x: 285, y: 150), moduleSize: 2,
                                                                          rotationDegrees: 90, barHeight: 40), into: &code)
        for format in Self.formats {
            let layout = DetectLayout(code, format: format)
            let h = Harness("arbarcodedetect", caps: layout.caps(width: 385, height: 289))
            XCTAssertEqual(gst_harness_push(h.h, layout.buffer(width: 385, height: 289)).rawValue, GST_FLOW_OK.rawValue, format)
            let out = try XCTUnwrap(gst_harness_pull(h.h).map(OutputBuffer.init), format)
            let regions = out.regions.sorted { $0.text < $1.text }
            XCTAssertEqual(regions.map(\.text), ["FMT-128", "FORMAT TEST"], format)
            guard regions.count == 2 else { continue }
            assertQuad(regions[0].quad, truth128, within: 2)
            assertQuad(regions[1].quad, f.truth[0].quad, within: 2)
        }
    }

    func testUnsupportedFormatIsRefusedNamingIt() {
        let result = runPipelineFull("filesrc location=/dev/zero num-buffers=2 blocksize=12288 ! rawvideoparse format=gray16-le width=64 height=48 ! arbarcodedetect name=det ! fakesink")
        XCTAssertNotNil(result.error, "the pipeline must fail")
        let warning = result.warnings.first { $0.hasPrefix("det cannot handle this video format") }
        XCTAssertTrue(warning?.contains("GRAY16_LE") ?? false, "\(result.warnings)")
        XCTAssertTrue(warning?.contains("BGRx") ?? false, "lists the accepted formats")
    }
}
