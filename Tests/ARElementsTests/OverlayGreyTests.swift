import ARCore
import ARGst
import CGStreamer
import CGstCheck
import XCTest

/// An upright 60 × 40 code with its top-left corner at (100, 80) in a 320 × 240 frame.
private let codeQuad = Quad(Rect(x: 100, y: 80, width: 60, height: 40))
private let redOutline = ##"{"fade": 0, "rules": [{"overlays": [{"type": "outline", "color": "#ff0000", "width": 4}]}]}"##

/// A grey frame whose every pixel differs from its neighbours: `(x + 3y) mod 256`.
private func ramp(_ width: Int, _ height: Int) -> [UInt8] {
    (0..<width * height).map { UInt8((($0 % width) + 3 * ($0 / width)) % 256) }
}

/// Whether (x, y) lies at least `margin` pixels away from the outline of `codeQuad` (edges at
/// x = 100, 160 and y = 80, 120), where no outline pixel can be.
private func farFromOutline(_ x: Int, _ y: Int, margin: Int = 5) -> Bool {
    let nearX = (100 - margin...160 + margin).contains(x), nearY = (80 - margin...120 + margin).contains(y)
    let onVertical = nearY && (abs(x - 100) < margin || abs(x - 160) < margin)
    let onHorizontal = nearX && (abs(y - 80) < margin || abs(y - 120) < margin)
    return !onVertical && !onHorizontal
}

/// The format name of the caps the harness's sink received.
private func outputFormat(_ h: OverlayHarness) -> String? {
    guard let caps = gst_pad_get_current_caps(h.h.pointee.sinkpad) else { return nil }
    defer { gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self)) }
    return gst_structure_get_string(gst_caps_get_structure(caps, 0), "format").map { String(cString: $0) }
}

/// Mono cameras give GRAY8: `aroverlay` then offers colour downstream, so overlays keep their colour.
final class OverlayGreyTests: XCTestCase {
    func testGreyVideoLeavesInColourWithTheOutlinesColourAndTheSameLuma() throws {
        let h = OverlayHarness("aroverlay", format: "GRAY8")
        h.set("style", redOutline)
        let input = ramp(320, 240)
        let out = try XCTUnwrap(h.push(input, codes: [code("X", quad: codeQuad)], seconds: 0)).bytes
        // I420 320 × 240: Y (320 per row), then U and V (160 per row, 120 rows).
        guard outputFormat(h) == "I420", out.count == 320 * 240 * 3 / 2 else {
            return XCTFail("output \(outputFormat(h) ?? "none"), \(out.count) bytes: not an I420 frame")
        }
        let u = { (x: Int, y: Int) in Int(out[76_800 + (y / 2) * 160 + x / 2]) }
        let v = { (x: Int, y: Int) in Int(out[96_000 + (y / 2) * 160 + x / 2]) }
        for (x, y) in [(130, 80), (100, 100), (160, 100), (130, 120)] {
            XCTAssertGreaterThan(v(x, y), 128 + 80, "red: V far above neutral at (\(x), \(y))")
            XCTAssertLessThan(u(x, y), 128 - 25, "red: U below neutral at (\(x), \(y))")
        }
        var lumaChanged = 0, chromaChanged = 0
        for y in 0..<240 {
            for x in 0..<320 where farFromOutline(x, y) {
                if out[y * 320 + x] != input[y * 320 + x] { lumaChanged += 1 }
                if x % 2 == 0, y % 2 == 0, u(x, y) != 128 || v(x, y) != 128 { chromaChanged += 1 }
            }
        }
        XCTAssertEqual(lumaChanged, 0, "the luma away from the outline is the input's")
        XCTAssertEqual(chromaChanged, 0, "neutral chroma away from the outline")
    }

    func testGreyVideoStaysInColourThroughVideoconvertToAConsumerThatAlsoTakesGrey() throws {
        // videoconvert prefers passing grey through when its consumer takes grey (jpegenc, pngenc).
        let h = OverlayHarness("aroverlay ! videoconvert", format: "GRAY8",
                               sinkCaps: "video/x-raw,format={GRAY8,BGRx},width=320,height=240,framerate=25/1")
        h.set("style", redOutline)
        let out = try XCTUnwrap(h.push(ramp(320, 240), codes: [code("X", quad: codeQuad)], seconds: 0))
        guard outputFormat(h) == "BGRx" else { return XCTFail("output \(outputFormat(h) ?? "none"), not BGRx") }
        let image = BGRxImage(bytes: out.bytes, width: 320)
        XCTAssertTrue(image.isRed(130, 80), "\(image.rgb(130, 80))")
        let p = image.rgb(30, 30)
        XCTAssertTrue(p.r == p.g && p.g == p.b, "grey away from the outline: \(p)")
    }

    func testDownstreamTakingOnlyGreyGetsGreyFramesDrawnInPlace() throws {
        let h = OverlayHarness("aroverlay", format: "GRAY8", sinkCaps: "video/x-raw,format=GRAY8,width=320,height=240,framerate=25/1")
        h.set("style", redOutline)
        let input = ramp(320, 240)
        let out = try XCTUnwrap(h.push(input, codes: [code("X", quad: codeQuad)], seconds: 0)).bytes
        XCTAssertEqual(outputFormat(h), "GRAY8")
        XCTAssertEqual(out.count, input.count)
        // One opaque colour over the ramp (114, 144, 204, 234 there): the same luma on every edge.
        let edges = [(130, 80), (100, 100), (160, 100), (130, 120)].map { Int(out[$0.1 * 320 + $0.0]) }
        XCTAssertLessThanOrEqual(edges.max()! - edges.min()!, 1, "\(edges)")
        XCTAssertNotEqual(edges[0], Int(input[80 * 320 + 130]))
        var changed = 0
        for y in 0..<240 { for x in 0..<320 where farFromOutline(x, y) && out[y * 320 + x] != input[y * 320 + x] { changed += 1 } }
        XCTAssertEqual(changed, 0)
    }
}
