import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

final class BinarizePassTests: XCTestCase {
    func testBarsBlurredTooMuchForZbarsEdgesAreReadOnceBinarized() throws {
        var scene = try DetectScene(width: 480, height: 200)
        try scene.add(CodeMatrix.code128("15182881"), x: 240, y: 100, module: 3, barHeight: 80)
        // A box of 5 px across 3 px modules: narrow bars stay light grey, as on a photo out of focus
        // (every other pass reads nothing here).
        scene.image.blurRows(radius: 2)
        let found = scene.detect(try BarcodeDetector(options: DetectorOptions(locate: .regions)))
        XCTAssertEqual(found.map(\.text), ["15182881"])
        XCTAssertGreaterThanOrEqual(found.first?.quality ?? 0, 2, "confirmed by several bands")
    }

    func testEachRowIsSplitAtItsOwnThreshold() {
        var b = LumaPlane(width: 6, height: 2)
        b.pixels = [150, 160, 230, 240, 150, 235,   // a faint row: split between 160 and 230
                    10, 20, 100, 110, 15, 105]      // a dark one: between 20 and 100
        b.binarizeRows()
        XCTAssertEqual(b.pixels, [0, 0, 255, 255, 0, 255, 0, 0, 255, 255, 0, 255])
    }
}
