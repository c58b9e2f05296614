@testable import ARElements
import ARBridge
import ARCodeGen
import ARCore
import ARGst
import ARVision
import CGStreamer
import CGstCheck
import Foundation
import XCTest

/// Generated posters for `arrecttrack`: a framed picture on a painted wall, moving and turning.
enum PosterClip {
    static let width = 320, height = 240
    static let wall = PosterScene.wall(width: width, height: height, seed: 3)
    static let picture = PosterScene.picture(width: 160, height: 120, seed: 3)
    static let caps = "video/x-raw,format=RGBA,width=\(width),height=\(height),framerate=30/1"

    /// Frame `i` of `count`: the poster drifts and turns up to 45° and back; its true corners.
    static func frame(_ i: Int, of count: Int) -> (rgba: [UInt8], quad: Quad) {
        let quad = PosterScene.quad(time: Double(i) / Double(count), frameWidth: width, frameHeight: height,
                                    posterWidth: 120, posterHeight: 90)
        return (PosterScene.compose(picture, onto: wall, at: quad).pixels, quad)
    }

    static func pts(_ i: Int) -> UInt64 { UInt64(i) * 33_333_333 }
}

extension Harness {
    /// A bus for the harness's elements' messages (element messages, warnings).
    func attachBus() -> UnsafeMutablePointer<GstBus> {
        let bus = gst_bus_new()!
        gst_element_set_bus(h.pointee.element, bus)
        return bus
    }
}

/// Element messages named `name` waiting on `bus`, as text.
func elementMessages(_ bus: UnsafeMutablePointer<GstBus>, named name: String) -> [String] {
    var out: [String] = []
    while let msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT) {
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self)) }
        if let s = gst_message_get_structure(msg), String(cString: gst_structure_get_name(s)) == name,
           let text = gst_structure_to_string(s) {
            out.append(String(cString: text))
            g_free(text)
        }
    }
    return out
}

final class RectTrackTests: XCTestCase {
    /// Found on the first frame and followed through a drift and a turn to 45° and back: one
    /// rectangle on every frame, always the same id, median corner error within 2 % of its size.
    func testAMovingTiltingPosterIsFollowedUnderOneID() {
        let harness = Harness("arrecttrack", caps: PosterClip.caps)
        let count = 45
        var errors: [Double] = []
        var ids = Set<UInt64>()
        for i in 0..<count {
            let (rgba, truth) = PosterClip.frame(i, of: count)
            guard let out = harness.process(rgba, ptsNanoseconds: PosterClip.pts(i)) else { return XCTFail("no buffer \(i)") }
            let rects = out.regions.filter { $0.kind == .rectangle }
            XCTAssertEqual(rects.count, 1, "frame \(i): \(rects.map(\.quad))")
            guard let r = rects.first else { continue }
            ids.insert(r.trackID ?? 0)
            XCTAssertEqual(r.symbology, "rectangle")
            XCTAssertNotNil(r.aspect)
            XCTAssertNotNil(r.confidence)
            errors.append(r.quad.maxCornerDistance(to: truth) / truth.meanSide)
        }
        XCTAssertEqual(ids, [1])
        let median = errors.sorted()[errors.count / 2]
        XCTAssertLessThanOrEqual(median, 0.02, "corner errors (fraction of the size): \(errors)")
    }

    /// A plain wall, a textured background (shelves, print, stripes) and a barcode alone give no rectangles.
    func testWallsTextureAndABarcodeAreNotRectangles() throws {
        var plain = try LumaPlane(validatingWidth: 320, height: 240, fill: 0)
        for y in 0..<240 { for x in 0..<320 { plain.pixels[y * 320 + x] = UInt8(140 + (x + y) / 40 + (x * 7 + y * 13) % 5) } }
        var code = TexturedBackground.image(width: 320, height: 240, seed: 5)
        _ = try CodeRenderer().render(try CodeMatrix.qr(text: "NOT A POSTER"),
                                      placement: CodePlacement(center: Point(x: 160, y: 120), moduleSize: 5, rotationDegrees: 8),
                                      into: &code)
        let scenes: [(String, LumaPlane)] = [("plain wall", plain), ("textured", TexturedBackground.image(width: 320, height: 240, seed: 2)),
                                             ("barcode", code)]
        for (name, image) in scenes {
            let harness = Harness("arrecttrack search-rate=30", caps: PosterClip.caps)
            for i in 0..<3 {
                let out = harness.process(image.rgbaFrame(), ptsNanoseconds: PosterClip.pts(i))
                XCTAssertEqual(out?.regions.filter { $0.kind == .rectangle }.count, 0, "\(name), frame \(i)")
            }
        }
    }

    /// The rectified picture comes with the rectangle: in the metas, in `reference-image` and as a PNG.
    func testTheReferencePictureIsAttachedAndWritten() throws {
        let path = temporaryPath("poster-%u.png")
        let harness = Harness("arrecttrack snapshot=\(path)", caps: PosterClip.caps)
        let out = harness.process(PosterClip.frame(0, of: 45).rgba, ptsNanoseconds: 0)
        let rect = try XCTUnwrap(out?.regions.first { $0.kind == .rectangle })
        let reference = try XCTUnwrap(rect.reference)
        // The picture is 4:3 (120 × 90 seen upright): its reference keeps that shape.
        XCTAssertEqual(Double(reference.width) / Double(reference.height), 4.0 / 3.0, accuracy: 0.05)
        let png = try Data(contentsOf: URL(fileURLWithPath: path.replacingOccurrences(of: "%u", with: "1")))
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4e, 0x47])
        // The reference shows the picture: its centre pixel is the picture's centre pixel's colour.
        let rgba = reference.rgba
        let c = (reference.height / 2 * reference.width + reference.width / 2) * 4
        let truth = PosterClip.picture.rgb(x: 80, y: 60)
        XCTAssertEqual(Double(rgba[c]), Double(truth.r), accuracy: 40)
        XCTAssertEqual(Double(rgba[c + 1]), Double(truth.g), accuracy: 40)
        XCTAssertEqual(Double(rgba[c + 2]), Double(truth.b), accuracy: 40)
    }

    /// Async mode: a search of frame N lands on frame N + k moved by the picture's own motion.
    func testASearchResultIsCarriedToTheFrameItLandsOn() throws {
        func pyramid(_ i: Int) -> (LumaPyramid, Quad) {
            let quad = PosterScene.quad(time: Double(i) / 45, frameWidth: PosterClip.width, frameHeight: PosterClip.height,
                                        posterWidth: 120, posterHeight: 90)
            let luma = PosterScene.compose(PosterClip.picture, onto: PosterClip.wall, at: quad).luma()
            return (LumaPyramid(LumaPlane(width: luma.width, height: luma.height, pixels: luma.pixels), levelCount: 4), quad)
        }
        let (searched, then) = pyramid(0), (landed, now) = pyramid(6)
        XCTAssertGreaterThan(then.maxCornerDistance(to: now), 8, "the poster moved in between")
        let carried = ArRectTrack.carry([RectangleCandidate(quad: then, aspect: 0.75, confidence: 0.99)], from: searched, to: landed)
        let moved = try XCTUnwrap(carried.first)
        XCTAssertLessThanOrEqual(moved.quad.maxCornerDistance(to: now), 0.02 * now.meanSide)
    }

    /// JSON Lines: every object carries its kind; a rectangle has its aspect and confidence.
    func testJSONLinesCarryTheKindOfEveryObject() throws {
        let path = temporaryPath("rect-\(UUID().uuidString).jsonl")
        do {
            let harness = Harness("arrecttrack ! arexport location=\(path)", caps: PosterClip.caps)
            for i in 0..<2 { _ = harness.process(PosterClip.frame(i, of: 45).rgba, ptsNanoseconds: PosterClip.pts(i)) }
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        for line in lines {
            let record = try FrameRecord(jsonLine: String(line))
            XCTAssertEqual(record.objects.map(\.kind), [.rectangle])
            XCTAssertTrue(line.contains(#""state":"detected","kind":"rectangle","aspect":"#) || line.contains(#""kind":"rectangle","aspect":"#), String(line))
            XCTAssertFalse(line.contains(#""data""#))
        }
    }
}

final class AlteredPictureTests: XCTestCase {
    override func setUp() { ArOverlay.alterations.update { $0 = InlineStyleLoads() } }
    override func tearDown() { ArOverlay.alterations.update { $0 = BackgroundJobs() } }

    /// `"source": "target", "alter": "videobalance saturation=0"`: the poster's own picture, greyed
    /// once, lands on the poster on every frame while the wall around it keeps its colour.
    func testTheGreyedPictureLandsOnThePosterAndIsAlteredOnce() throws {
        let style = temporaryPath("altered-\(UUID().uuidString).json")
        try #"{"fade": 0, "rules": [{"match": {"kind": "rectangle"}, "overlays": [{"type": "image", "source": "target", "alter": "videobalance saturation=0"}]}]}"#
            .write(toFile: style, atomically: true, encoding: .utf8)
        let harness = Harness("arrecttrack ! aroverlay style=\(style)", caps: PosterClip.caps)
        let bus = harness.attachBus()
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        for i in 0..<6 {
            let (rgba, truth) = PosterClip.frame(i, of: 45)
            let out = try XCTUnwrap(harness.process(rgba, ptsNanoseconds: PosterClip.pts(i)))
            let pixels = out.bytes
            func colourfulness(_ p: [UInt8], _ x: Int, _ y: Int) -> Int {
                let o = (y * PosterClip.width + x) * 4
                return max(Int(p[o]), Int(p[o + 1]), Int(p[o + 2])) - min(Int(p[o]), Int(p[o + 1]), Int(p[o + 2]))
            }
            var inside = 0, grey = 0, wasColourful = 0
            for v in stride(from: 0.1, through: 0.9, by: 0.1) {
                for u in stride(from: 0.1, through: 0.9, by: 0.1) {
                    let p = truth.anchorPoint(u: u, v: v)
                    inside += 1
                    if colourfulness(pixels, Int(p.x), Int(p.y)) <= 12 { grey += 1 }
                    if colourfulness(rgba, Int(p.x), Int(p.y)) > 30 { wasColourful += 1 }
                }
            }
            XCTAssertGreaterThan(wasColourful * 2, inside, "the picture is colourful")
            XCTAssertGreaterThanOrEqual(Double(grey) / Double(inside), 0.95, "frame \(i): the poster is grey")
            // The wall (warm) is untouched around it.
            for (x, y) in [(10, 10), (310, 10), (10, 230), (310, 230)] {
                XCTAssertGreaterThan(colourfulness(pixels, x, y), 30, "frame \(i): wall at (\(x), \(y))")
            }
        }
        XCTAssertEqual(elementMessages(bus, named: "arbarcode-alteration").count, 1, "altered once, not per frame")
    }
}
