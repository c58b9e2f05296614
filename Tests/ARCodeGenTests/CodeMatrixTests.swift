import ARCodeGen
import XCTest

final class CodeMatrixTests: XCTestCase {
    // MARK: EAN-13

    func testEAN13CheckDigitOf400638133393IsOne() throws {
        XCTAssertEqual(try CodeMatrix.ean13CheckDigit("400638133393"), 1)
        XCTAssertEqual(try CodeMatrix.ean13Normalized("400638133393"), "4006381333931")
    }

    func testEAN13FromTwelveDigitsEqualsFromThirteen() throws {
        XCTAssertEqual(try CodeMatrix.ean13("400638133393"), try CodeMatrix.ean13("4006381333931"))
    }

    func testEAN13ModulesMatchTheStandardLGRPatterns() throws {
        let m = try CodeMatrix.ean13("4006381333931")
        // First digit 4 → parity LGLLGG for 0 0 6 3 8 1; right half 3 3 3 9 3 1 in R.
        let expected = "101" + "0001101" + "0100111" + "0101111" + "0111101" + "0001001" + "0110011"
            + "01010" + "1000010" + "1000010" + "1000010" + "1110100" + "1000010" + "1100110" + "101"
        XCTAssertEqual(m.width, 95)
        XCTAssertEqual(m.height, 1)
        XCTAssertEqual(m.rowString(0), expected)
        XCTAssertEqual(m.symbology, "EAN-13")
        XCTAssertEqual(m.quietZoneModules, 10)
        XCTAssertTrue(m.isLinear)
    }

    func testEAN13WithWrongCheckDigitThrows() {
        XCTAssertThrowsError(try CodeMatrix.ean13("4006381333932")) { error in
            XCTAssertEqual(error as? CodeGenError, .checkDigitMismatch(expected: 1, found: 2))
        }
    }

    func testEAN13WithBadLengthOrNonDigitsThrows() {
        for bad in ["", "12345", "40063813339", "40063813339310", "40063813339a", "４００６３８１３３３９３", "400638133 93"] {
            XCTAssertThrowsError(try CodeMatrix.ean13(bad), "input '\(bad)'") { error in
                XCTAssertEqual(error as? CodeGenError, .invalidDigits(bad))
            }
        }
    }

    // MARK: Code 128

    func testCode128ForAHasStartBDataChecksumAndStopPatterns() throws {
        let m = try CodeMatrix.code128("A")
        // Start B, 'A' (value 33), checksum (104 + 33) mod 103 = 34 ('B'), Stop.
        XCTAssertEqual(m.rowString(0), "11010010000" + "10100011000" + "10001011000" + "1100011101011")
        XCTAssertEqual(m.symbology, "CODE-128")
        XCTAssertEqual(m.quietZoneModules, 10)
    }

    func testCode128ValuesIncludeWeightedChecksum() throws {
        // "AB": 104 + 1·33 + 2·34 = 205 → 205 mod 103 = 102.
        XCTAssertEqual(try CodeMatrix.code128Values("AB"), [104, 33, 34, 102, 106])
        XCTAssertEqual(try CodeMatrix.code128("ARB-128-DEMO").width, 11 * (12 + 2) + 13)
    }

    func testCode128StartsWithStartBAndEndsWithStopForEveryPrintableCharacter() throws {
        let all = String((32...127).map { Character(Unicode.Scalar(UInt8($0))) })
        let row = try CodeMatrix.code128(all).rowString(0)
        XCTAssertTrue(row.hasPrefix("11010010000"))
        XCTAssertTrue(row.hasSuffix("1100011101011"))
        XCTAssertEqual(row.count, 11 * (96 + 2) + 13)
    }

    func testCode128RejectsUnsupportedCharactersAndEmptyText() {
        XCTAssertThrowsError(try CodeMatrix.code128("café")) { error in
            XCTAssertEqual(error as? CodeGenError, .unsupportedCharacter("é", offset: 3))
        }
        XCTAssertThrowsError(try CodeMatrix.code128("a\tb")) { error in
            XCTAssertEqual(error as? CodeGenError, .unsupportedCharacter("\t", offset: 1))
        }
        XCTAssertThrowsError(try CodeMatrix.code128("")) { error in
            XCTAssertEqual(error as? CodeGenError, .emptyPayload)
        }
    }

    // MARK: QR

    /// True when the 7×7 block at (x0, y0) is a finder pattern: dark ring, light ring, dark 3×3 core.
    private func isFinder(_ m: CodeMatrix, _ x0: Int, _ y0: Int) -> Bool {
        for y in 0..<7 {
            for x in 0..<7 {
                let ring = max(abs(x - 3), abs(y - 3))
                if m.isDark(x: x0 + x, y: y0 + y) != (ring != 2) { return false }
            }
        }
        return true
    }

    func testQRForHELLOIsVersion1WithFinderPatternsAtThreeCorners() throws {
        let m = try CodeMatrix.qr(text: "HELLO")
        XCTAssertEqual(m.width, 21)
        XCTAssertEqual(m.height, 21)
        XCTAssertEqual(m.symbology, "QR-Code")
        XCTAssertEqual(m.quietZoneModules, 4)
        XCTAssertTrue(isFinder(m, 0, 0), "top-left finder")
        XCTAssertTrue(isFinder(m, 14, 0), "top-right finder")
        XCTAssertTrue(isFinder(m, 0, 14), "bottom-left finder")
        XCTAssertFalse(isFinder(m, 14, 14), "no finder at the bottom-right")
        // Separators next to the top-left finder are light.
        for i in 0..<8 {
            XCTAssertFalse(m.isDark(x: 7, y: i))
            XCTAssertFalse(m.isDark(x: i, y: 7))
        }
    }

    func testQRIsBinarySafeAndGrowsWithPayload() throws {
        let binary = try CodeMatrix.qr([0, 255, 0, 10, 13, 128], errorCorrection: .high)
        XCTAssertEqual(binary.width, 21)
        XCTAssertGreaterThan(try CodeMatrix.qr(text: String(repeating: "x", count: 100)).width, 21)
    }

    func testQRRejectsEmptyAndOversizedPayloads() {
        XCTAssertThrowsError(try CodeMatrix.qr([])) { error in
            XCTAssertEqual(error as? CodeGenError, .emptyPayload)
        }
        XCTAssertThrowsError(try CodeMatrix.qr([UInt8](repeating: 65, count: 5000))) { error in
            XCTAssertEqual(error as? CodeGenError, .payloadTooLong(count: 5000))
        }
    }

    func testMatrixInitRejectsWrongModuleCount() {
        XCTAssertThrowsError(try CodeMatrix(width: 3, height: 3, modules: [true], quietZoneModules: 4, symbology: "X"))
        XCTAssertFalse(try CodeMatrix(width: 1, height: 1, modules: [true], quietZoneModules: 0, symbology: "X")
            .isDark(x: 1, y: 0), "outside the matrix is light")
    }
}
