import ARCodeGen
import ARCore
import ARDetect
import XCTest

final class Code39Tests: XCTestCase {
    private func fullASCII(_ text: String) -> String? {
        Code39.fullASCII(Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    func testShiftCharactersFollowedByLettersAreReadAsFullASCII() {
        XCTAssertEqual(fullASCII("12+A+B"), "12ab")
        XCTAssertEqual(fullASCII("E+X+T+E+N+D+E+D /A%J/J/C"), "Extended !?*#")
        XCTAssertEqual(fullASCII("$M$J%U%V%W/Z"), "\r\n\0@`:")
    }

    func testTextWithoutShiftsOrWithAShiftNotFollowedByALetterIsPlainCode39() {
        XCTAssertNil(fullASCII("CODE-39"))
        XCTAssertNil(fullASCII("A+1"))
        XCTAssertNil(fullASCII("AB+"))
    }

    /// A last character that is the others' mod-43 check character stays outside the decoding:
    /// "X/" checks to "U", so "X/U" is plain Code 39 (a shift at the end), not "X5".
    func testACheckCharacterIsKeptOutsideTheDecoding() {
        XCTAssertNil(fullASCII("X/U"))
        XCTAssertEqual(fullASCII("X/V"), "X6")
        // "+A" checks to "8": the check character follows the decoded text.
        XCTAssertEqual(fullASCII("+A8"), "a8")
    }

    /// Read from pixels: zbar reports the plain characters; the detector reports the full ASCII text.
    func testAFullASCIICode39SymbolIsReadAsItsText() throws {
        var scene = try DetectScene(width: 520, height: 160)
        try scene.add(CodeMatrix.code39("+A+B-12/C"), x: 260, y: 80, module: 2)
        let found = scene.detect(try BarcodeDetector(symbologies: Symbology.parseList("code39")))
        XCTAssertEqual(found.map(\.symbology), ["CODE-39"])
        XCTAssertEqual(found.map(\.text), ["ab-12#"])
    }
}
