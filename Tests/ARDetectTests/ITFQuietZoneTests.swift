import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

/// ITF has no check character and no fixed length: an Interleaved 2 of 5 code cut short (a photo or
/// a label laid over its end) can read as a shorter valid code. A reading is reported only with a
/// quiet zone at both ends (`LinearOutline.hasQuietZones`).
final class ITFQuietZoneTests: XCTestCase {
    /// An Interleaved 2 of 5 symbol of `digits` (an even count), 1 module narrow, 3 wide.
    private func itf(_ digits: String) throws -> CodeMatrix {
        // Bars (or spaces) of one digit, from the first: a set bit is a wide element.
        let patterns = [0b00110, 0b10001, 0b01001, 0b11000, 0b00101, 0b10100, 0b01100, 0b00011, 0b10010, 0b01010]
        let values = digits.compactMap(\.wholeNumberValue)
        XCTAssertEqual(values.count % 2, 0)
        var widths = [1, 1, 1, 1]
        for pair in stride(from: 0, to: values.count, by: 2) {
            for bit in stride(from: 4, through: 0, by: -1) {
                widths.append(patterns[values[pair]] >> bit & 1 == 1 ? 3 : 1)
                widths.append(patterns[values[pair + 1]] >> bit & 1 == 1 ? 3 : 1)
            }
        }
        widths += [3, 1, 1]
        return try CodeMatrix(linearWidths: widths, symbology: "I2/5")
    }

    /// A 400 × 160 frame with an 8-digit ITF code (module 2 px, 162 px long) centred at `x`, and
    /// dark stripes from `gap` modules past its end (`atStart`: before its start) to the frame's edge.
    private func scene(x: Double = 200, gap: Double? = nil, atStart: Bool = false) throws -> DetectScene {
        var scene = try DetectScene(width: 400, height: 160)
        try scene.add(try itf("08176054"), x: x, y: 80, module: 2, barHeight: 60)
        if let gap {
            let bars = scene.truth[0].boundingBox
            let from = atStart ? 0 : Int(bars.maxX + 2 * gap), to = atStart ? Int(bars.minX - 2 * gap) : 400
            for x in from..<to where (x / 3) % 2 == 0 { for y in 40..<120 { scene.image[x, y] = 40 } }
        }
        return scene
    }

    private func hasQuietZones(_ scene: DetectScene, outline: Quad? = nil) -> Bool {
        scene.image.pixels.withUnsafeBytes {
            LinearOutline.hasQuietZones(outline ?? scene.truth[0], modules: 81,
                                        in: LumaImage(base: $0.baseAddress!, width: 400, height: 160, stride: 400))
        }
    }

    func testAWholeITFCodeIsReadWithItsQuietZones() throws {
        let whole = try scene()
        XCTAssertEqual(whole.detect(try BarcodeDetector(symbologies: Symbology.parseList("i25"))).map(\.text), ["08176054"])
        XCTAssertTrue(hasQuietZones(whole))
        XCTAssertTrue(hasQuietZones(try scene(gap: 7)), "stripes 7 modules past the end")
        XCTAssertTrue(hasQuietZones(try scene(gap: 7, atStart: true)), "stripes 7 modules before the start")
    }

    func testAnITFCodeEndingAtOtherBarsOrTheFramesEdgeHasNoQuietZone() throws {
        for gap in [1.0, 3, 4] {
            XCTAssertFalse(hasQuietZones(try scene(gap: gap)), "stripes \(gap) modules past the end")
            XCTAssertFalse(hasQuietZones(try scene(gap: gap, atStart: true)), "stripes \(gap) modules before the start")
        }
        // 6 px (3 modules) from the frame's left edge: the zone would reach out of the frame.
        XCTAssertFalse(hasQuietZones(try scene(x: 87)))
        XCTAssertTrue(hasQuietZones(try scene(x: 101)), "11 modules in")
    }

    func testAnOutlineTooShortForItsDigitsHasNoQuietZone() throws {
        // One 6 px bar on white in a 16 px outline: white on both sides, but 8 digits cannot fit
        // in 16 px (modules of 0.2 px); the fit did not follow the code's bars.
        var blot = try DetectScene(width: 400, height: 160)
        for y in 50..<110 { for x in 197..<203 { blot.image[x, y] = 20 } }
        let short = Quad(topLeft: Point(x: 192, y: 50), topRight: Point(x: 208, y: 50),
                         bottomRight: Point(x: 208, y: 110), bottomLeft: Point(x: 192, y: 110))
        XCTAssertFalse(hasQuietZones(blot, outline: short))
    }
}
