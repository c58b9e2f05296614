import ARCore
import ARGst
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
