import ARBridge
import ARCore
import ARGst
import ARRender
import CGStreamer
import CGstCheck
import Foundation
import XCTest

/// An upright 60 × 40 code with its top-left corner at (100, 80) in a 320 × 240 frame.
private let codeQuad = Quad(Rect(x: 100, y: 80, width: 60, height: 40))

/// A style with one solid red box placed by `placement` (JSON members), no fades.
private func boxStyle(_ placement: String) -> String {
    let box = ##"{"fade": 0, "rules": [{"overlays": [{"type": "box", "color": "#ff0000""##
    return box + (placement.isEmpty ? "" : ", " + placement) + "}]}]}"
}

final class OverlayPlacementTests: XCTestCase {
    /// Draws a box on a black frame and returns the red pixels' bounds.
    private func redBounds(_ placement: String, file: StaticString = #filePath, line: UInt = #line) -> (minX: Int, minY: Int, maxX: Int, maxY: Int)? {
        let h = OverlayHarness("aroverlay")
        h.set("style", boxStyle(placement))
        guard let out = h.push(h.black, codes: [code("X", quad: codeQuad)], seconds: 0, file: file, line: line) else {
            XCTFail("no output", file: file, line: line)
            return nil
        }
        return BGRxImage(bytes: out.bytes, width: 320).redBounds
    }

    /// Checks the red box covers [x0, x1) × [y0, y1) within a pixel.
    private func assertBox(_ placement: String, x0: Double, y0: Double, x1: Double, y1: Double,
                           file: StaticString = #filePath, line: UInt = #line) {
        guard let b = redBounds(placement, file: file, line: line) else { return XCTFail("nothing drawn", file: file, line: line) }
        XCTAssertEqual(Double(b.minX), x0, accuracy: 1, "left, \(placement)", file: file, line: line)
        XCTAssertEqual(Double(b.minY), y0, accuracy: 1, "top, \(placement)", file: file, line: line)
        XCTAssertEqual(Double(b.maxX + 1), x1, accuracy: 1, "right, \(placement)", file: file, line: line)
        XCTAssertEqual(Double(b.maxY + 1), y1, accuracy: 1, "bottom, \(placement)", file: file, line: line)
    }

    func testABoxWithoutPlacementCoversTheCode() {
        assertBox(#""anchor": "center""#, x0: 100, y0: 80, x1: 160, y1: 120)
    }

    func testABoxIsCentredOnEachAnchor() {
        let points: [(String, Double, Double)] = [
            ("top-left", 100, 80), ("top-center", 130, 80), ("top-right", 160, 80),
            ("center-left", 100, 100), ("center", 130, 100), ("center-right", 160, 100),
            ("bottom-left", 100, 120), ("bottom-center", 130, 120), ("bottom-right", 160, 120),
        ]
        for (anchor, x, y) in points {
            assertBox(#""anchor": "\#(anchor)", "size": {"width": [20, "px"], "height": [10, "px"]}"#,
                      x0: x - 10, y0: y - 5, x1: x + 10, y1: y + 5)
        }
    }

    func testSizesInPixelsCodeUnitsAndRatio() {
        assertBox(#""size": {"width": [20, "px"], "height": [12, "px"]}"#, x0: 120, y0: 94, x1: 140, y1: 106)
        assertBox(#""size": {"width": [0.5, "code"], "height": [0.5, "code"]}"#, x0: 115, y0: 90, x1: 145, y1: 110)
        assertBox(#""size": {"width": [10, "px"], "height": [2, "ratio"]}"#, x0: 125, y0: 90, x1: 135, y1: 110)
    }

    func testOffsetsInPixelsCodeUnitsAndOwnSize() {
        let size = #""size": {"width": [20, "px"], "height": [10, "px"]}"#
        assertBox(#""offset": {"x": [30, "px"], "y": [-20, "px"]}, "# + size, x0: 150, y0: 75, x1: 170, y1: 85)
        assertBox(#""offset": {"x": [1, "code"], "y": [0.5, "code"]}, "# + size, x0: 180, y0: 115, x1: 200, y1: 125)
        // The issue's "label above the code": bottom edge on the code's top edge.
        assertBox(#""anchor": "top-center", "offset": {"y": [-0.5, "self"]}, "# + size, x0: 120, y0: 70, x1: 140, y1: 80)
    }
}

/// Pushes `f` until its code has been on 8 consecutive outputs (the detector may answer a few
/// frames late; the overlay fades in over 0.2 s = 5 frames) and returns that output.
private func settledOutput(_ h: Harness, _ f: TestFrame, file: StaticString = #filePath, line: UInt = #line) -> OutputBuffer? {
    var streak = 0
    for i in 0..<60 {
        // Images load off the streaming thread: what frame i asked for is there on frame i + 1.
        BackgroundImageLoads.waitForPendingLoads()
        guard let out = h.process(f.i420, ptsNanoseconds: UInt64(i) * 40_000_000, file: file, line: line) else { return nil }
        streak = out.regions.isEmpty ? 0 : streak + 1
        if streak == 8 { return out }
    }
    XCTFail("the code was not found on 8 frames in a row", file: file, line: line)
    return nil
}

final class OverlayTests: XCTestCase {
    func testOutlineAndLabelAreDrawnAroundTheCodeByDefault() throws {
        var f = TestFrame(width: 320, height: 240)
        f.addQR("DRAW ME", x: 160, y: 140, module: 4)
        let h = Harness("arbarcodetrack ! videoconvert ! video/x-raw,format=BGRx ! aroverlay", caps: f.i420Caps)
        let image = BGRxImage(bytes: try XCTUnwrap(settledOutput(h, f)).bytes, width: 320)
        let q = f.truth[0].quad
        let c = q.corners
        for i in 0..<4 {
            let m = (c[i] + c[(i + 1) % 4]) * 0.5
            let p = image.rgb(Int(m.x.rounded()), Int(m.y.rounded()))
            XCTAssertGreaterThan(p.g, 200, "edge \(i) at \(m)")
            XCTAssertLessThan(p.r, 80, "edge \(i)")
        }
        var dark = 0
        let box = q.boundingBox
        for x in stride(from: Int(box.center.x) - 20, to: Int(box.center.x) + 20, by: 2) {
            let p = image.rgb(x, Int(box.minY) - 8)
            if abs(p.g - 212) > 20 { dark += 1 }
        }
        XCTAssertGreaterThan(dark, 14, "label (background and text) above the code")
        let far = image.rgb(5, 235)
        XCTAssertEqual(far.g, 212, accuracy: 2)
    }

    func testNoCodesLeavesTheFrameUntouched() throws {
        let f = TestFrame(width: 160, height: 120)
        let h = Harness("arbarcodetrack ! aroverlay", caps: f.i420Caps)
        XCTAssertEqual(try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0)).bytes, f.i420)
    }

    func testTheIssuesStyleExampleDrawsOutlineProductLabelAndWarpedImage() throws {
        let dir = temporaryPath("shop-style")
        try FileManager.default.createDirectory(atPath: dir + "/img", withIntermediateDirectories: true)
        try "sku,name,price\n123,Green tea,4.50\n".write(toFile: dir + "/products.csv", atomically: true, encoding: .utf8)
        writePNG(dir + "/img/123.png", pattern: "red")
        try #"""
        {"expiry": 1.0, "fade": 0.2, "hint": "Point the camera at a code",
         "lookup": {"products": {"file": "products.csv", "key": "sku"}},
         "rules": [{"match": {"symbology": "QR-Code", "data": "^https://shop\\.example/p/(?<sku>[0-9]+)$"},
                    "overlays": [{"type": "outline", "color": "#00ff00", "width": 3},
                                 {"type": "label", "text": "{products.name} {products.price}", "anchor": "top-center",
                                  "offset": {"y": [-0.5, "self"]}, "color": "#ffffff", "background": "#000000b0", "font": "Sans Bold 18"},
                                 {"type": "image", "file": "img/{sku}.png", "warp": true}]}]}
        """#.write(toFile: dir + "/style.json", atomically: true, encoding: .utf8)

        var f = TestFrame(width: 320, height: 240)
        f.addQR("https://shop.example/p/123", x: 160, y: 150, module: 3)
        let h = Harness("arbarcodetrack ! videoconvert ! video/x-raw,format=BGRx ! aroverlay style=\(dir)/style.json", caps: f.i420Caps)
        let image = BGRxImage(bytes: try XCTUnwrap(settledOutput(h, f)).bytes, width: 320)
        let q = f.truth[0].quad
        // The warped image covers the code: red at its centre and near its corners.
        XCTAssertTrue(image.isRed(Int(q.center.x), Int(q.center.y)), "\(image.rgb(Int(q.center.x), Int(q.center.y)))")
        XCTAssertTrue(image.isRed(Int(q.topLeft.x) + 6, Int(q.topLeft.y) + 6))
        // The label sits above the code: a dark band with white text.
        var white = 0, dark = 0
        for y in Int(q.boundingBox.minY) - 24..<Int(q.boundingBox.minY) - 3 {
            for x in Int(q.center.x) - 40..<Int(q.center.x) + 40 {
                let p = image.rgb(x, y)
                if p.r > 200 && p.g > 200 && p.b > 200 { white += 1 }
                if p.r < 90 && p.g < 90 && p.b < 90 { dark += 1 }
            }
        }
        XCTAssertGreaterThan(white, 40, "label text")
        XCTAssertGreaterThan(dark, 200, "label background")
    }

    func testExpiryAndFadeFollowBufferTimestamps() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", ##"{"expiry": 1.0, "fade": 0.2, "rules": [{"overlays": [{"type": "box", "color": "#ff0000"}]}]}"##)
        func red(_ codes: [BarcodeRegion], _ t: Double) -> Int {
            BGRxImage(bytes: h.push(h.black, codes: codes, seconds: t)!.bytes, width: 320).rgb(130, 100).r
        }
        let c = [code("X", quad: codeQuad)]
        XCTAssertEqual(red(c, 10.0), 51, accuracy: 3, "first frame: one 40 ms frame of a 200 ms fade in")
        XCTAssertEqual(red(c, 10.2), 255, accuracy: 1)
        XCTAssertEqual(red([], 11.0), 255, accuracy: 1, "held 0.8 s after the last detection")
        XCTAssertEqual(red([], 11.3), 128, accuracy: 3, "half way through the fade out")
        XCTAssertEqual(red([], 11.41), 0, "gone")
    }

    func testEveryListedFormatDraws() throws {
        for format in ["I420", "NV12", "YUY2", "BGRx", "RGBA"] {
            let h = OverlayHarness("videoconvert ! video/x-raw,format=\(format) ! aroverlay ! videoconvert ! capsfilter caps=video/x-raw,format=BGRx")
            h.set("style", boxStyle(#""size": {"width": [20, "px"], "height": [20, "px"]}"#))
            let out = try XCTUnwrap(h.push(h.black, codes: [code("X", quad: codeQuad)], seconds: 0))
            let image = BGRxImage(bytes: out.bytes, width: 320)
            XCTAssertTrue(image.isRed(130, 100), "\(format): \(image.rgb(130, 100))")
            XCTAssertFalse(image.isRed(110, 85), "\(format): outside the box")
        }
    }

    func testScaledVideoMapsTheCodesCoordinates() throws {
        let h = OverlayHarness("videoscale ! video/x-raw,width=640,height=360 ! aroverlay")
        h.set("style", boxStyle(#""size": {"width": [1, "code"], "height": [1, "code"]}"#))
        let out = try XCTUnwrap(h.push(h.black, codes: [code("X", quad: codeQuad)], seconds: 0))
        let b = try XCTUnwrap(BGRxImage(bytes: out.bytes, width: 640).redBounds)
        XCTAssertEqual(b.minX, 200, accuracy: 1)
        XCTAssertEqual(b.minY, 120, accuracy: 1)
        XCTAssertEqual(b.maxX + 1, 320, accuracy: 1)
        XCTAssertEqual(b.maxY + 1, 180, accuracy: 1)
    }

    func testJapanesePayloadsAreDrawnAsText() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", ##"{"fade": 0, "rules": [{"overlays": [{"type": "label", "background": "#00000000", "font": "Sans 20px"}]}]}"##)
        let out = try XCTUnwrap(h.push(h.black, codes: [code("日本語のテキスト", quad: codeQuad)], seconds: 0))
        let image = BGRxImage(bytes: out.bytes, width: 320)
        var lit = 0
        for y in 85..<115 { for x in 40..<220 where image.rgb(x, y).g > 128 { lit += 1 } }
        XCTAssertGreaterThan(lit, 150, "glyph pixels")
    }
}

final class OverlayModeTests: XCTestCase {
    func testDownstreamThatTakesTheMetaGetsACompositionAndUntouchedPixels() throws {
        let h = OverlayHarness("aroverlay", sinkCaps: "video/x-raw(meta:GstVideoOverlayComposition),format=BGRx,width=320,height=240,framerate=25/1")
        gst_harness_add_propose_allocation_meta(h.h, gst_video_overlay_composition_meta_api_get_type(), nil)
        h.set("style", boxStyle(""))
        let out = try XCTUnwrap(h.push(h.black, codes: [code("X", quad: codeQuad)], seconds: 0))
        XCTAssertEqual(out.bytes, h.black, "nothing blended")
        let meta = try XCTUnwrap(gst_buffer_get_meta(out.pointer, gst_video_overlay_composition_meta_api_get_type()))
        let composition = UnsafeMutableRawPointer(meta).assumingMemoryBound(to: GstVideoOverlayCompositionMeta.self).pointee.overlay!
        XCTAssertEqual(gst_video_overlay_composition_n_rectangles(composition), 1)
        var x: gint = 0, y: gint = 0, w: guint = 0, hh: guint = 0
        gst_video_overlay_rectangle_get_render_rectangle(gst_video_overlay_composition_get_rectangle(composition, 0), &x, &y, &w, &hh)
        XCTAssertEqual(x, 99)
        XCTAssertEqual(w, 62)
    }

    func testDownstreamWithoutTheMetaGetsBlendedPixels() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", boxStyle(""))
        let out = try XCTUnwrap(h.push(h.black, codes: [code("X", quad: codeQuad)], seconds: 0))
        XCTAssertNil(gst_buffer_get_meta(out.pointer, gst_video_overlay_composition_meta_api_get_type()))
        XCTAssertTrue(BGRxImage(bytes: out.bytes, width: 320).isRed(130, 100))
    }
}

final class OverlayStyleErrorTests: XCTestCase {
    func testAnInvalidStyleFileStopsTheElementWithFilePlaceAndProblem() throws {
        let path = temporaryPath("bad-style.json")
        try "{\"rules\": [{\"overlays\": [{\"type\": \"box\", \"anchor\": \"middle\"}]}]}".write(toFile: path, atomically: true, encoding: .utf8)
        let error = try XCTUnwrap(runPipeline("videotestsrc num-buffers=1 ! aroverlay style=\(path) ! fakesink"))
        XCTAssertTrue(error.message.contains(path), error.message)
        XCTAssertTrue(error.message.contains("rules[0].overlays[0].anchor (line 1)"), error.message)
        XCTAssertTrue(error.message.contains("unknown anchor 'middle'"), error.message)
    }

    func testAStyleWithAnUnreadablePNGIsRefusedAtStart() throws {
        let dir = temporaryPath("bad-png")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "not a png".write(toFile: dir + "/x.png", atomically: true, encoding: .utf8)
        try #"{"rules": [{"overlays": [{"type": "image", "file": "x.png"}]}]}"#.write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
        let error = try XCTUnwrap(runPipeline("videotestsrc num-buffers=1 ! aroverlay style=\(dir)/s.json ! fakesink"))
        XCTAssertTrue(error.message.contains("rules[0].overlays[0].file"), error.message)
        XCTAssertTrue(error.message.contains("PNG"), error.message)
    }

    func testAMissingStyleFileIsReported() throws {
        let error = try XCTUnwrap(runPipeline("videotestsrc num-buffers=1 ! aroverlay style=/nonexistent/style.json ! fakesink"))
        XCTAssertTrue(error.message.contains("/nonexistent/style.json"), error.message)
    }
}
