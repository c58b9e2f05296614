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
}
