import ARBridge
import ARCore
import ARGst
import CGStreamer
import CGstCheck
import Foundation
import XCTest

/// Blend mode: what `aroverlay` writes into frames it blends into.
final class OverlayBlendTests: XCTestCase {
    private let quad = Quad(Rect(x: 100, y: 80, width: 60, height: 40))

    /// A BGRx frame of one grey level.
    private func grey(_ h: OverlayHarness, _ level: UInt8) -> [UInt8] {
        (0..<h.width * h.height * 4).map { $0 % 4 == 3 ? 255 : level }
    }

    func testHalfTransparentBoxesAndLabelsMixWithTheFrame() throws {
        // A box (drawn every frame) and a label's background (drawn once and kept), both at 50 %.
        let box = ##"{"fade": 0, "rules": [{"overlays": [{"type": "box", "color": "#ff000080", "size": {"width": [20, "px"], "height": [20, "px"]}}]}]}"##
        let label = ##"{"fade": 0, "rules": [{"overlays": [{"type": "label", "text": ".", "font": "Sans 8px", "padding": 16, "background": "#0000ff80"}]}]}"##
        for format in ["BGRx", "RGBx", "RGBA"] {
            for (style, x, y, expected) in [(box, 130, 100, (r: 192, g: 64, b: 64)), (label, 118, 86, (r: 64, g: 64, b: 192))] {
                let h = OverlayHarness("videoconvert ! video/x-raw,format=\(format) ! aroverlay ! videoconvert ! capsfilter caps=video/x-raw,format=BGRx")
                h.set("style", style)
                let out = try XCTUnwrap(h.push(grey(h, 128), codes: [code("X", quad: quad)], seconds: 0))
                let p = BGRxImage(bytes: out.bytes, width: 320).rgb(x, y)
                XCTAssertEqual(p.r, expected.r, accuracy: 2, "\(format) \(style.contains("box") ? "box" : "label"): \(p)")
                XCTAssertEqual(p.g, expected.g, accuracy: 2, "\(format): \(p)")
                XCTAssertEqual(p.b, expected.b, accuracy: 2, "\(format): \(p)")
            }
        }
    }

    /// A frame of `format` with a diagonal ramp in every byte.
    private func ramp(size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: $0 / 3 + $0 / 971) }
    }

    func testBlendingMatchesGStreamersOwnCompositionBlendInEveryFormat() throws {
        // Outline and label (the built-in style, fading in: global alpha) plus a half-transparent box.
        let style = ##"{"rules": [{"overlays": [{"type": "outline"}, {"type": "label", "anchor": "top-center", "offset": {"y": [-0.5, "self"]}},"## +
            ##" {"type": "box", "color": "#ff000080", "size": {"width": [0.5, "code"], "height": [0.5, "code"]}}]}]}"##
        for format in ["I420", "NV12", "YUY2", "BGRx", "RGBA", "AYUV"] {
            try assertBlendMatchesCompositionBlend(style: style, format: format)
        }
    }

    func testAHalfTransparentOutlineColourBlendsLikeGStreamersCompositionBlend() throws {
        // Outlines reach YUV frames as one colour and an alpha mask: the colour's alpha must carry through.
        let style = ##"{"rules": [{"overlays": [{"type": "outline", "color": "#ff800080", "width": 5}]}]}"##
        for format in ["I420", "NV12", "BGRx"] {
            try assertBlendMatchesCompositionBlend(style: style, format: format, minimumChanged: 500)
        }
    }

    /// Blend mode's frames equal `gst_video_overlay_composition_blend` of meta mode's composition
    /// (within 2 levels, 4 on frames with alpha), fading in and after, for an upright and a turned code.
    private func assertBlendMatchesCompositionBlend(style: String, format: String, minimumChanged: Int = 2000,
                                                    file: StaticString = #filePath, line: UInt = #line) throws {
        let codes = [code("Blend me", quad: Quad(Rect(x: 100.4, y: 90.7, width: 60, height: 50))),
                     code("Another", id: 2, quad: Quad(topLeft: Point(x: 200, y: 120), topRight: Point(x: 250, y: 140),
                                                       bottomRight: Point(x: 230, y: 190), bottomLeft: Point(x: 180, y: 170)))]
        var info = GstVideoInfo()
        _ = gst_video_info_set_format(&info, gst_video_format_from_string(format), 320, 240)
        // Padding bytes (the x of BGRx) as producers write them: 0xff.
        let frame = format == "BGRx" ? ramp(size: Int(info.size)).enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element }
            : ramp(size: Int(info.size))
        // Frames with alpha: the colours are divided by the blended alpha, which magnifies rounding.
        let tolerance = ["RGBA", "AYUV"].contains(format) ? 4 : 2
        let blend = OverlayHarness("aroverlay", format: format)
        let meta = OverlayHarness("aroverlay", format: format,
                                  sinkCaps: "video/x-raw(meta:GstVideoOverlayComposition),format=\(format),width=320,height=240,framerate=25/1")
        gst_harness_add_propose_allocation_meta(meta.h, gst_video_overlay_composition_meta_api_get_type(), nil)
        for h in [blend, meta] { h.set("style", style) }
        for t in [0.0, 0.04, 0.2] {
            let blended = try XCTUnwrap(blend.push(frame, codes: codes, seconds: t))
            let reference = try XCTUnwrap(meta.push(frame, codes: codes, seconds: t))
            let m = try XCTUnwrap(gst_buffer_get_meta(reference.pointer, gst_video_overlay_composition_meta_api_get_type()))
            let composition = UnsafeMutableRawPointer(m).assumingMemoryBound(to: GstVideoOverlayCompositionMeta.self).pointee.overlay!
            let copy = gst_buffer_copy_deep(reference.pointer)!
            var mapped = GstVideoFrame()
            XCTAssertNotEqual(gst_video_frame_map(&mapped, &info, copy, GstMapFlags(rawValue: 3)), 0, file: file, line: line)
            XCTAssertNotEqual(gst_video_overlay_composition_blend(composition, &mapped), 0, file: file, line: line)
            gst_video_frame_unmap(&mapped)
            let expected = OutputBuffer(copy).bytes
            XCTAssertEqual(expected.count, blended.bytes.count, file: file, line: line)
            var worst = 0, changed = 0
            for i in 0..<min(expected.count, blended.bytes.count) {
                worst = max(worst, abs(Int(expected[i]) - Int(blended.bytes[i])))
                if expected[i] != frame[i] { changed += 1 }
            }
            XCTAssertLessThanOrEqual(worst, tolerance, "\(format) at \(t) s", file: file, line: line)
            XCTAssertGreaterThan(changed, minimumChanged, "\(format): something drawn", file: file, line: line)
        }
    }

    func testAFadedOutlinesCornersAreBlendedOnceLikeItsEdges() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", ##"{"fade": 0, "rules": [{"overlays": [{"type": "outline", "color": "#00ff00", "width": 6, "opacity": 0.5}]}]}"##)
        let image = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [code("X", quad: quad)], seconds: 0)).bytes, width: 320)
        let edge = image.rgb(130, 79).g
        XCTAssertEqual(edge, 128, accuracy: 2)
        for (x, y) in [(99, 79), (160, 79), (160, 120), (99, 120)] {
            XCTAssertEqual(image.rgb(x, y).g, edge, accuracy: 2, "corner (\(x), \(y))")
        }
    }

    func testAnOutlineIsBlendedOnlyAlongItsEdges() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", ##"{"fade": 0, "rules": [{"overlays": [{"type": "outline", "color": "#00ff00", "width": 3}]}]}"##)
        let frame = grey(h, 77)
        let out = try XCTUnwrap(h.push(frame, codes: [code("X", quad: quad)], seconds: 0))
        // Inside the code and around it the frame is untouched, byte for byte.
        for (x, y) in [(130, 100), (105, 85), (155, 115), (90, 70), (170, 130)] {
            let i = (y * 320 + x) * 4
            XCTAssertEqual(Array(out.bytes[i..<i + 3]), [77, 77, 77], "(\(x), \(y))")
        }
        XCTAssertGreaterThan(BGRxImage(bytes: out.bytes, width: 320).rgb(130, 80).g, 200)
    }

    func testALabelKeptAcrossFramesIsDrawnTheSameAtItsNewPlace() throws {
        let h = OverlayHarness("videoconvert ! video/x-raw,format=I420 ! aroverlay ! videoconvert ! capsfilter caps=video/x-raw,format=BGRx")
        h.set("style", ##"{"fade": 0, "rules": [{"overlays": [{"type": "label", "text": "Kept", "font": "Sans 14px"}]}]}"##)
        let first = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [code("K", quad: quad)], seconds: 0)).bytes, width: 320)
        let moved = Quad(Rect(x: 140, y: 120, width: 60, height: 40))
        let second = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [code("K", quad: moved)], seconds: 0.04)).bytes, width: 320)
        var lit = 0
        for y in 80..<120 {
            for x in 90..<170 {
                let a = first.rgb(x, y), b = second.rgb(x + 40, y + 40)
                XCTAssertEqual(a.g, b.g, accuracy: 2, "(\(x), \(y))")
                if a.g > 128 { lit += 1 }
            }
        }
        XCTAssertGreaterThan(lit, 30, "text pixels")
    }
}

final class OverlayMetaPartsTests: XCTestCase {
    func testAnOutlineReachesTheMetaAsFourDisjointEdgeRectangles() throws {
        let h = OverlayHarness("aroverlay", sinkCaps: "video/x-raw(meta:GstVideoOverlayComposition),format=BGRx,width=320,height=240,framerate=25/1")
        gst_harness_add_propose_allocation_meta(h.h, gst_video_overlay_composition_meta_api_get_type(), nil)
        h.set("style", ##"{"fade": 0, "rules": [{"overlays": [{"type": "outline", "color": "#00ff00", "width": 3}]}]}"##)
        let out = try XCTUnwrap(h.push(h.black, codes: [code("X", quad: Quad(Rect(x: 100, y: 80, width: 60, height: 40)))], seconds: 0))
        XCTAssertEqual(out.bytes, h.black, "nothing blended")
        let meta = try XCTUnwrap(gst_buffer_get_meta(out.pointer, gst_video_overlay_composition_meta_api_get_type()))
        let composition = UnsafeMutableRawPointer(meta).assumingMemoryBound(to: GstVideoOverlayCompositionMeta.self).pointee.overlay!
        XCTAssertEqual(gst_video_overlay_composition_n_rectangles(composition), 4)
        var pixels = 0
        var covered = Set<Int>()
        for i in 0..<gst_video_overlay_composition_n_rectangles(composition) {
            var x: gint = 0, y: gint = 0, w: guint = 0, hh: guint = 0
            gst_video_overlay_rectangle_get_render_rectangle(gst_video_overlay_composition_get_rectangle(composition, i), &x, &y, &w, &hh)
            pixels += Int(w) * Int(hh)
            for yy in Int(y)..<Int(y) + Int(hh) { for xx in Int(x)..<Int(x) + Int(w) { covered.insert(yy * 320 + xx) } }
        }
        XCTAssertEqual(covered.count, pixels, "disjoint")
        XCTAssertTrue(covered.contains(80 * 320 + 130) && covered.contains(100 * 320 + 100) && covered.contains(120 * 320 + 130)
                      && covered.contains(100 * 320 + 160), "all four edges")
        XCTAssertFalse(covered.contains(100 * 320 + 130), "not the inside")
    }
}
