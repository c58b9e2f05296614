import ARCodeGen
import ARCore
import CZBar
@testable import ARDetect
import XCTest

/// zbar's EAN decoder reads a UPC-E shape (six digits and an end guard) whether UPC-E is asked for
/// or not, and would report it expanded as UPC-A or EAN-13: the left half of an EAN-13 whose right
/// half is covered can read so, as another product's code. A UPC-E reading is reported only as
/// UPC-E, when UPC-E is asked for.
final class UPCETests: XCTestCase {
    /// The UPC-E symbol of `digits` (six, number system 0) with check digit `check`: start guard, the
    /// digits in odd or even parity by the check digit, end guard.
    private func upce(_ digits: String, check: Int) throws -> CodeMatrix {
        let odd = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
        // Even parity: the odd pattern complemented and reversed.
        let even = odd.map { String($0.reversed().map { $0 == "1" ? "0" : "1" }) }
        let parities = ["EEEOOO", "EEOEOO", "EEOOEO", "EEOOOE", "EOEEOO", "EOOEEO", "EOOOEE", "EOEOEO", "EOEOOE", "EOOEOE"][check]
        var modules = "101"
        for (d, p) in zip(digits.compactMap(\.wholeNumberValue), parities) { modules += p == "E" ? even[d] : odd[d] }
        modules += "010101"
        // Runs of equal modules, from the first bar.
        var widths: [Int] = []
        var last: Character?
        for m in modules {
            if m == last { widths[widths.count - 1] += 1 } else { widths.append(1) }
            last = m
        }
        return try CodeMatrix(linearWidths: widths, symbology: "UPC-E")
    }

    /// The readings of a 400 × 160 frame holding UPC-E 0 123456 5 (UPC-A 012345000065; module 2 px,
    /// 102 px long, centred), with dark stripes from `gap` modules past its end guard to the frame's edge.
    private func read(_ symbologies: String, gap: Double? = nil) throws -> [String] {
        var scene = try DetectScene(width: 400, height: 160)
        try scene.add(try upce("123456", check: 5), x: 200, y: 80, module: 2, barHeight: 60)
        if let gap {
            for x in Int(scene.truth[0].boundingBox.maxX + 2 * gap)..<400 where (x / 3) % 2 == 0 {
                for y in 40..<120 { scene.image[x, y] = 40 }
            }
        }
        return scene.detect(try BarcodeDetector(symbologies: Symbology.parseList(symbologies))).map(\.text)
    }

    func testAUPCECodeIsReadAsUPCEOnlyWhenAskedFor() throws {
        XCTAssertEqual(try read("upce"), ["01234565"])
        XCTAssertEqual(try read("ean13,upce"), ["01234565"])
        XCTAssertEqual(try read("ean13"), [], "not reported expanded as EAN-13")
        XCTAssertEqual(try read("upca"), [], "not reported expanded as UPC-A")
    }

    /// A UPC-E reading needs a quiet zone after its end guard, as an EAN-13's middle guard, read as
    /// one, has not (the right half's bars follow).
    func testAUPCEReadingEndingAtOtherBarsIsNotReported() throws {
        XCTAssertEqual(try read("upce", gap: 7), ["01234565"])
        XCTAssertEqual(try read("upce", gap: 4), [])
        XCTAssertEqual(try read("upce", gap: 1), [])
    }

    /// zbar reads a UPC-E shape out of a scratched UPC-A code, and the reading's outline, fitted to
    /// the bars, spans that code: it holds more bars than a UPC-E code has.
    func testAUPCEReadingOutlinedOverAUPCACodesBarsIsRefused() throws {
        var scene = try DetectScene(width: 400, height: 160)
        try scene.add(try upce("123456", check: 5), x: 200, y: 80, module: 2, barHeight: 60)
        var upca = try DetectScene(width: 400, height: 160)
        try upca.add(try CodeMatrix.ean13("0012345000065"), x: 200, y: 80, module: 2, barHeight: 60)
        let symbol = ScannedSymbol(type: ZBAR_UPCE, name: "UPC-E", payload: Array("01234565".utf8), points: [],
                                   orientation: ZBAR_ORIENT_UP, quality: 2)
        func whole(_ scene: DetectScene) -> Bool {
            scene.image.pixels.withUnsafeBytes {
                symbol.isWhole(scene.truth[0], in: LumaImage(base: $0.baseAddress!, width: 400, height: 160, stride: 400))
            }
        }
        XCTAssertTrue(whole(scene))
        XCTAssertFalse(whole(upca))
    }
}
