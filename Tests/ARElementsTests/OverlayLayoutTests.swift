import ARCore
import ARGst
import XCTest

/// `layout`: the labels of two codes side by side are moved apart instead of drawn over each other.
final class OverlayLayoutTests: XCTestCase {
    /// Each code labelled above with a solid box of its own colour (the text drawn in the
    /// background's colour), wider than the code.
    private let style = ##"{"fade": 0, "rules": ["##
        + ##"{"match": {"data": "^L"}, "overlays": [{"type": "label", "text": "{data}", "anchor": "top-center", "font": "Sans 20px", "##
        + ##""color": "#ff0000", "background": "#ff0000"}]},"##
        + ##"{"match": {"data": "^R"}, "overlays": [{"type": "label", "text": "{data}", "anchor": "top-center", "font": "Sans 20px", "##
        + ##""color": "#0000ff", "background": "#0000ff"}]}]}"##
    /// Side by side: their labels, drawn in place, would overlap.
    private let left = BarcodeRegion(trackID: 1, symbology: "QR-Code", payload: Array("LEFT-LABEL".utf8),
                                     quad: Quad(Rect(x: 90, y: 120, width: 60, height: 60)), state: .tracked, quality: 0)
    private let right = BarcodeRegion(trackID: 2, symbology: "QR-Code", payload: Array("RIGHT-LABEL".utf8),
                                      quad: Quad(Rect(x: 165, y: 120, width: 60, height: 60)), state: .tracked, quality: 0)

    /// Red and blue pixels after `frames` frames of `codes`.
    private func draw(_ codes: [BarcodeRegion], layout: Bool, frames: Int = 10) throws -> (red: Int, blue: Int) {
        let h = OverlayHarness("aroverlay layout=\(layout)")
        h.set("style", style)
        var out: [UInt8] = []
        for i in 0..<frames { out = try XCTUnwrap(h.push(h.black, codes: codes, seconds: Double(i) / 30)).bytes }
        let image = BGRxImage(bytes: out, width: h.width)
        var red = 0, blue = 0
        for y in 0..<h.height { for x in 0..<h.width {
            let p = image.rgb(x, y)
            if p.r > 200 && p.b < 50 { red += 1 }
            if p.b > 200 && p.r < 50 { blue += 1 }
        } }
        return (red, blue)
    }

    func testLabelsOfCodesSideBySideDoNotCoverEachOther() throws {
        let leftAlone = try draw([left], layout: true).red, rightAlone = try draw([right], layout: true).blue
        XCTAssertGreaterThan(leftAlone, 1000)
        // In place, the right label covers a good part of the left one.
        let inPlace = try draw([left, right], layout: false)
        XCTAssertLessThan(Double(inPlace.red), 0.85 * Double(leftAlone))
        // Laid out, both are whole (plus a short leader line each).
        let apart = try draw([left, right], layout: true)
        XCTAssertGreaterThanOrEqual(apart.red, leftAlone)
        XCTAssertGreaterThanOrEqual(apart.blue, rightAlone)
        XCTAssertLessThan(Double(apart.red), 1.05 * Double(leftAlone))
    }
}
