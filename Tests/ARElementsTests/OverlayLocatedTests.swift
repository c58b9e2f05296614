import ARCore
import ARGst
import CGStreamer
import Foundation
import XCTest

/// A located 2D region: an upright 60 × 40 quad with its top-left corner at (100, 80) in a 320 × 240 frame.
private let locatedQuad = Quad(Rect(x: 100, y: 80, width: 60, height: 40))
private let located2D = BarcodeRegion(locatedClass: "2D", quad: locatedQuad)

/// Counts overlay hook emissions.
private final class HookCount {
    var count = 0
}

private let countHook: @convention(c) (UnsafeMutableRawPointer?, guint64, UnsafeMutablePointer<GstStructure>?, UnsafeMutableRawPointer?) -> Void = {
    _, _, _, data in Unmanaged<HookCount>.fromOpaque(data!).takeUnretainedValue().count += 1
}

extension BGRxImage {
    /// Whether (x, y) is a neutral grey clearly above black: the default look of a located region.
    func isGrey(_ x: Int, _ y: Int) -> Bool {
        let p = rgb(x, y)
        return p.r > 60 && abs(p.r - p.g) < 12 && abs(p.g - p.b) < 12
    }

    /// Whether any pixel within 1 pixel of (x, y) is a neutral grey.
    func hasGreyNear(_ x: Int, _ y: Int) -> Bool {
        (-1...1).contains { dy in (-1...1).contains { dx in isGrey(x + dx, y + dy) } }
    }

    /// Whether every channel of every pixel is 0 (a black BGRx frame left untouched).
    var isBlack: Bool { bytes.enumerated().allSatisfy { $0.offset % 4 == 3 || $0.element == 0 } }
}

final class OverlayLocatedTests: XCTestCase {
    /// The midpoints of `quad`'s edges, rounded to pixels.
    private func edgeMidpoints(_ quad: Quad) -> [(x: Int, y: Int)] {
        let c = quad.corners
        return (0..<4).map { i in
            let m = (c[i] + c[(i + 1) % 4]) * 0.5
            return (Int(m.x.rounded()), Int(m.y.rounded()))
        }
    }

    func testALocatedRegionIsOutlinedInThinNeutralGreyByDefault() throws {
        let h = OverlayHarness("aroverlay")
        let hooks = HookCount()
        for name in ["overlay-created", "overlay-updated", "overlay-removed"] {
            _ = g_signal_connect_data(UnsafeMutableRawPointer(h.element()), name, unsafeBitCast(countHook, to: GCallback.self),
                                      Unmanaged.passUnretained(hooks).toOpaque(), nil, GConnectFlags(rawValue: 0))
        }
        let out = try XCTUnwrap(h.push(h.black, codes: [located2D], seconds: 0))
        let image = BGRxImage(bytes: out.bytes, width: h.width)
        for (x, y) in edgeMidpoints(locatedQuad) {
            XCTAssertTrue(image.hasGreyNear(x, y), "grey outline at (\(x), \(y)): \(image.rgb(x, y))")
            XCTAssertLessThan(image.rgb(x, y).r, 230, "semi-transparent, not solid white")
        }
        // Thin: 4 pixels off the edge is untouched, inside and outside.
        XCTAssertEqual(image.rgb(130, 84).r, 0, "inside the top edge")
        XCTAssertEqual(image.rgb(130, 75).r, 0, "outside the top edge")
        XCTAssertEqual(image.rgb(130, 100).r, 0, "centre")
        // No label: the default style's label would sit above the code.
        XCTAssertTrue((90..<170).allSatisfy { x in (50..<76).allSatisfy { y in image.rgb(x, y).r == 0 } }, "no label")
        XCTAssertEqual(hooks.count, 0, "located regions fire no overlay hook")
    }

    func testShowLocatedFalseDrawsNoLocatedRegion() throws {
        let h = OverlayHarness("aroverlay show-located=false")
        let out = try XCTUnwrap(h.push(h.black, codes: [located2D], seconds: 0))
        XCTAssertTrue(BGRxImage(bytes: out.bytes, width: h.width).isBlack)
    }

    func testALocatedRegionIsDrawnOnlyOnTheFrameItIsOn() throws {
        let h = OverlayHarness("aroverlay")
        _ = try XCTUnwrap(h.push(h.black, codes: [located2D], seconds: 0))
        let next = try XCTUnwrap(h.push(h.black, codes: [], seconds: 0.04))
        XCTAssertTrue(BGRxImage(bytes: next.bytes, width: h.width).isBlack, "no expiry or fade for a region without identity")
    }

    func testAStyleRuleForLocatedRegionsStylesThemByClass() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", ##"{"fade": 0, "rules": [{"overlays": [{"type": "box", "color": "#00ff00"}]}, "##
              + ##"{"match": {"state": "located", "symbology": "2D"}, "overlays": [{"type": "box", "color": "#ff0000"}]}]}"##)
        let oneD = BarcodeRegion(locatedClass: "1D", quad: Quad(Rect(x: 200, y: 150, width: 80, height: 30)))
        let out = try XCTUnwrap(h.push(h.black, codes: [located2D, oneD], seconds: 0))
        let image = BGRxImage(bytes: out.bytes, width: h.width)
        let red = try XCTUnwrap(image.redBounds, "the 2D region gets the located rule's red box")
        XCTAssertEqual([red.minX, red.minY, red.maxX + 1, red.maxY + 1], [100, 80, 160, 120])
        // The rule without 'state' (green boxes for read codes) does not apply to located regions:
        // the 1D region, which no located rule matches, gets the default grey outline.
        XCTAssertEqual(image.rgb(240, 165).g, 0, "no green box on the 1D region")
        for (x, y) in edgeMidpoints(oneD.quad) { XCTAssertTrue(image.hasGreyNear(x, y), "grey outline at (\(x), \(y))") }
    }

    func testALocatedRuleWithNoOverlaysHidesThem() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", ##"{"rules": [{"match": {"state": "located"}, "overlays": []}]}"##)
        let out = try XCTUnwrap(h.push(h.black, codes: [located2D], seconds: 0))
        XCTAssertTrue(BGRxImage(bytes: out.bytes, width: h.width).isBlack)
    }

    func testCodesKeepTheirOverlaysBesideLocatedRegions() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", ##"{"fade": 0, "rules": [{"overlays": [{"type": "box", "color": "#ff0000"}, {"type": "label", "text": "{data}"}]}]}"##)
        let read = code("READ", quad: Quad(Rect(x: 200, y: 150, width: 40, height: 40)))
        let out = try XCTUnwrap(h.push(h.black, codes: [located2D, read], seconds: 0))
        let image = BGRxImage(bytes: out.bytes, width: h.width)
        let red = try XCTUnwrap(image.redBounds)
        XCTAssertEqual([red.minX, red.minY, red.maxX + 1, red.maxY + 1], [200, 150, 240, 190], "only the read code gets the rule")
        for (x, y) in edgeMidpoints(locatedQuad) { XCTAssertTrue(image.hasGreyNear(x, y)) }
    }

    func testAnOccludedCodeFadesOutAndIsNotDrawnUnlessShowOccluded() throws {
        let quad = Quad(Rect(x: 100, y: 80, width: 60, height: 60))
        func code(_ state: TrackState) -> BarcodeRegion {
            BarcodeRegion(trackID: 7, symbology: "QR-Code", payload: Array("HIDDEN".utf8), quad: quad, state: state, quality: 0)
        }
        for show in [false, true] {
            let h = OverlayHarness("aroverlay show-occluded=\(show)")
            for i in 0..<10 {
                let out = try XCTUnwrap(h.push(h.black, codes: [code(.detected)], seconds: Double(i) / 30))
                XCTAssertFalse(BGRxImage(bytes: out.bytes, width: h.width).isBlack, "drawn while seen")
            }
            // Occluded for half a second (within the 1 s expiry): faded out, nothing drawn.
            var last: BGRxImage?
            for i in 10..<25 {
                let out = try XCTUnwrap(h.push(h.black, codes: [code(.occluded)], seconds: Double(i) / 30))
                last = BGRxImage(bytes: out.bytes, width: h.width)
            }
            XCTAssertEqual(try XCTUnwrap(last).isBlack, !show, "show-occluded=\(show)")
        }
    }

    func testShowStatsDrawsAPanelInTheTopLeftCorner() throws {
        for show in [false, true] {
            let h = OverlayHarness("aroverlay show-stats=\(show) show-located=false")
            let out = try XCTUnwrap(h.push(h.black, codes: [], seconds: 0))
            let image = BGRxImage(bytes: out.bytes, width: h.width)
            // The panel's dark background over black is invisible: its white text is not.
            let lit = (0..<40).contains { y in (0..<120).contains { x in image.rgb(x, y).r > 128 } }
            XCTAssertEqual(lit, show, "show-stats=\(show)")
            XCTAssertEqual(image.rgb(300, 200).r, 0, "the rest of the frame untouched")
        }
    }
}
