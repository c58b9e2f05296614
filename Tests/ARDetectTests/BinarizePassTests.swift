import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

final class BinarizePassTests: XCTestCase {
    /// `scene` blurred across the bars (each row with a box of `radius` px each side), as a lens
    /// out of focus blurs fine bars: narrow bars and spaces lose most of their contrast.
    private func blurredRows(_ scene: inout DetectScene, radius: Int) {
        let w = scene.image.width
        for y in 0..<scene.image.height {
            let row = (0..<w).map { Int(scene.image[$0, y]) }
            for x in 0..<w {
                let lo = max(0, x - radius), hi = min(w - 1, x + radius)
                scene.image[x, y] = UInt8(row[lo...hi].reduce(0, +) / (hi - lo + 1))
            }
        }
    }

    func testBarsBlurredTooMuchForZbarsEdgesAreReadOnceBinarized() throws {
        var scene = try DetectScene(width: 480, height: 200)
        try scene.add(CodeMatrix.code128("15182881"), x: 240, y: 100, module: 3, barHeight: 80)
        // A box of 5 px across 3 px modules: narrow bars stay light grey, as on a photo out of focus
        // (every other pass reads nothing here).
        blurredRows(&scene, radius: 2)
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
