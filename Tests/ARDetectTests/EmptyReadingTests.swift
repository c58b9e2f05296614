import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

/// zbar reads a Code 128 made of its start, check and stop characters as a code with no data; such
/// a reading names nothing (in moving scenes it comes from bars of other codes) and is not reported.
final class EmptyReadingTests: XCTestCase {
    func testCode128WithoutDataIsNotReported() throws {
        var image = try LumaPlane(validatingWidth: 300, height: 120, fill: 255)
        // Start B (211214), check character 1 (222122), stop (2331112), 3 px modules.
        let widths = [2, 1, 1, 2, 1, 4, 2, 2, 2, 1, 2, 2, 2, 3, 3, 1, 1, 1, 2]
        var x = 60
        for (i, w) in widths.enumerated() {
            if i % 2 == 0 {
                for y in 20..<100 { for dx in 0..<(w * 3) { image.pixels[y * image.width + x + dx] = 0 } }
            }
            x += w * 3
        }
        try image.pixels.withUnsafeBytes { raw in
            let luma = LumaImage(base: raw.baseAddress!, width: image.width, height: image.height, stride: image.width)
            // zbar alone reports it (else this test proves nothing).
            let scanned = try ZBarScanner(symbologies: try Symbology.parseList("code128")).scan(luma)
            XCTAssertEqual(scanned.map(\.payload), [[]])
            XCTAssertEqual(try BarcodeDetector(options: .zbarOnly).detect(luma).count, 0)
            XCTAssertEqual(try BarcodeDetector().detect(luma).count, 0)
        }
    }

    /// A reading whose outline has no length across its bars places nothing: neither handed over
    /// early nor reported (live camera seed 73: a Code 128 card leaving past the frame's right edge
    /// was read with a segment along its bars at x = 1920.8 for outline, which started a second
    /// track of its payload drawn there until expiry). A reading along one line, with its length, does.
    func testAReadingWithNoLengthAcrossItsBarsPlacesNothing() {
        func reading(_ corners: [Point]) -> Detection {
            var d = Detection(symbology: "CODE-128", text: "C128-73-5", quad: Quad(corners)!)
            d.quality = 2
            return d
        }
        let alongBars = reading([Point(x: 1920.8, y: 240.1), Point(x: 1920.8, y: 240.1), Point(x: 1920.6, y: 246), Point(x: 1920.6, y: 246)])
        let point = reading([Point(x: 100, y: 50), Point(x: 100.5, y: 50), Point(x: 100.5, y: 50.5), Point(x: 100, y: 50.5)])
        let oneLine = reading([Point(x: 100, y: 50), Point(x: 300, y: 52), Point(x: 300, y: 52), Point(x: 100, y: 50)])
        let whole = reading([Point(x: 100, y: 50), Point(x: 300, y: 52), Point(x: 299, y: 110), Point(x: 99, y: 108)])
        XCTAssertEqual([alongBars, point, oneLine, whole].map(\.quad.isDegenerate), [true, true, false, false])
        XCTAssertEqual(BarcodeDetector.earlyCodes([alongBars, point, oneLine, whole], skipping: [], aroundTracked: false),
                       [oneLine, whole])
    }
}
