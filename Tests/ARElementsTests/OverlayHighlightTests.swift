import ARCore
import ARGst
import ARRender
import Foundation
import XCTest

/// `fill` and `dot` overlays: highlights drawn on the code.
final class OverlayHighlightTests: XCTestCase {
    private let quad = Quad(Rect(x: 100, y: 60, width: 80, height: 80))

    private func draw(_ style: String) throws -> BGRxImage {
        let h = OverlayHarness("aroverlay")
        h.set("style", style)
        let code = BarcodeRegion(trackID: 1, symbology: "QR-Code", payload: Array("LIT".utf8), quad: quad, state: .tracked, quality: 0)
        return BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [code], seconds: 0)).bytes, width: h.width)
    }

    func testAFillTintsTheWholeQuadTranslucently() throws {
        let image = try draw(##"{"fade": 0, "rules": [{"overlays": [{"type": "fill", "color": "#ff000080"}]}]}"##)
        for (x, y) in [(105, 65), (140, 100), (175, 135)] {
            let p = image.rgb(x, y)
            XCTAssertTrue(p.r > 100 && p.r < 160 && p.g == 0, "half-transparent red inside at (\(x), \(y)): \(p)")
        }
        XCTAssertEqual(image.rgb(95, 100).r, 0, "nothing outside the quad")
        XCTAssertEqual(image.rgb(185, 100).r, 0)
    }

    func testADotIsACircleWhereItIsPlaced() throws {
        let image = try draw(##"{"fade": 0, "rules": [{"overlays": [{"type": "dot", "color": "#0000ff", "anchor": "center", "##
                             + ##""size": {"width": [20, "px"], "height": [20, "px"]}}]}]}"##)
        XCTAssertGreaterThan(image.rgb(140, 100).b, 200, "the centre is blue")
        XCTAssertGreaterThan(image.rgb(140, 108).b, 200, "within its radius")
        XCTAssertEqual(image.rgb(148, 108).b, 0, "the box's corner is outside the circle")
        XCTAssertEqual(image.rgb(140, 115).b, 0, "beyond its radius")
    }
}

/// `icon`: an SVG (or PNG) placed like a box, fixed in pixels or scaled with the code.
final class OverlayIconTests: XCTestCase {
    func testAnSVGIconIsDrawnWhereItIsPlaced() throws {
        let dir = temporaryPath("icon-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // A blue disc in a 100 × 100 document, on nothing (transparent around it).
        try ##"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><circle cx="50" cy="50" r="40" fill="#0000ff"/></svg>"##
            .write(toFile: dir + "/status.svg", atomically: true, encoding: .utf8)
        let h = OverlayHarness("aroverlay")
        h.set("style", ##"{"fade": 0, "rules": [{"overlays": [{"type": "icon", "file": "\##(dir)/status.svg", "anchor": "center", "##
              + ##""size": {"width": [40, "px"], "height": [40, "px"]}}]}]}"##)
        let code = BarcodeRegion(trackID: 1, symbology: "QR-Code", payload: Array("ICON".utf8),
                                 quad: Quad(Rect(x: 100, y: 60, width: 80, height: 80)), state: .tracked, quality: 0)
        var image = BGRxImage(bytes: [], width: h.width)
        // Images load off the streaming thread: what one frame asked for is there on the next.
        for i in 0..<3 {
            BackgroundImageLoads.waitForPendingLoads()
            image = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [code], seconds: Double(i) * 0.04)).bytes, width: h.width)
        }
        XCTAssertGreaterThan(image.rgb(140, 100).b, 200, "the disc's centre, on the code's centre")
        XCTAssertGreaterThan(image.rgb(140, 85).b, 200, "within its radius (16 px of 40)")
        XCTAssertEqual(image.rgb(122, 82).b, 0, "the 40 px box's corner: outside the disc, transparent")
        XCTAssertEqual(image.rgb(140, 125).b, 0, "beyond the 40 px box")
    }
}

/// A looping source (timestamps back to 0 without DISCONT): overlays stay drawn, not faded anew.
final class OverlayLoopTests: XCTestCase {
    func testOverlaysStayDrawnWhenTimestampsGoBack() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", ##"{"fade": 0.2, "rules": [{"overlays": [{"type": "box", "color": "#ff0000", "anchor": "center", "##
              + ##""size": {"width": [20, "px"], "height": [20, "px"]}}]}]}"##)
        let code = BarcodeRegion(trackID: 1, symbology: "QR-Code", payload: Array("LOOP".utf8),
                                 quad: Quad(Rect(x: 100, y: 60, width: 80, height: 80)), state: .tracked, quality: 0)
        var reds: [Int] = []
        for loop in 0..<2 {
            for i in 0..<10 {
                let image = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [code], seconds: Double(i) * 0.04)).bytes, width: h.width)
                if loop == 1 || i >= 5 { reds.append(image.rgb(140, 100).r) }
            }
        }
        // Faded in over the first 0.2 s; then full on every frame, the second loop included.
        XCTAssertEqual(reds, [Int](repeating: 255, count: reds.count), "\(reds)")
    }
}
