import ARCodeGen
import ARCore
import ARDetect
import XCTest

final class Code32Tests: XCTestCase {
    func testSixBase32CharactersWithTheirCheckDigitAreACode32Number() {
        XCTAssertEqual(Code32.text(fromCode39: Array("3PRM8N".utf8)).map { String(decoding: $0, as: UTF8.self) }, "A123456788")
        XCTAssertEqual(Code32.text(fromCode39: Array("000000".utf8)).map { String(decoding: $0, as: UTF8.self) }, "A000000000")
    }

    func testOtherCode39TextsAreNotCode32() {
        XCTAssertNil(Code32.text(fromCode39: Array("3PRM8P".utf8)), "wrong check digit")
        XCTAssertNil(Code32.text(fromCode39: Array("3PRM8".utf8)), "5 characters")
        XCTAssertNil(Code32.text(fromCode39: Array("3PRA8N".utf8)), "a vowel is not base 32")
        XCTAssertNil(Code32.text(fromCode39: Array("ZZZZZZ".utf8)), "past 9 digits")
    }

    func testACode32SymbolIsReportedAsCode32WhenAskedAndAsCode39Otherwise() throws {
        var scene = try DetectScene(width: 420, height: 160)
        try scene.add(CodeMatrix.code39("3PRM8N"), x: 210, y: 80, module: 2)
        let all = scene.detect(try BarcodeDetector())
        XCTAssertEqual(all.map(\.symbology), ["CODE-32"])
        XCTAssertEqual(all.map(\.text), ["A123456788"])
        let code39 = scene.detect(try BarcodeDetector(symbologies: Symbology.parseList("code39")))
        XCTAssertEqual(code39.map(\.symbology), ["CODE-39"])
        XCTAssertEqual(code39.map(\.text), ["3PRM8N"])
        XCTAssertEqual(scene.detect(try BarcodeDetector(symbologies: Symbology.parseList("code32"))).map(\.text), ["A123456788"])
    }

    func testACode39SymbolThatIsNotCode32StaysCode39AndIsNotReadAsCode32Only() throws {
        var scene = try DetectScene(width: 420, height: 160)
        try scene.add(CodeMatrix.code39("AB3M8P"), x: 210, y: 80, module: 2)
        XCTAssertEqual(scene.detect(try BarcodeDetector()).map(\.text), ["AB3M8P"])
        XCTAssertEqual(scene.detect(try BarcodeDetector(symbologies: Symbology.parseList("code32"))).map(\.text), [])
    }
}
