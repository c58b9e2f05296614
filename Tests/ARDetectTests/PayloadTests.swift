import ARCodeGen
import ARCore
import ARDetect
import XCTest

final class PayloadTests: XCTestCase {
    func testUTF8TextIsKeptByteForByte() throws {
        let text = "Grüße, 東京! ✓"
        var scene = try DetectScene(width: 240, height: 240)
        try scene.add(CodeMatrix.qr(Array(text.utf8)), x: 120, y: 120, module: 4)
        let d = try XCTUnwrap(scene.detect(try BarcodeDetector()).first)
        XCTAssertEqual(d.payload, Array(text.utf8))
        XCTAssertEqual(d.text, text)
    }

    func testBinaryPayloadIsKeptExactly() throws {
        let bytes: [UInt8] = [0x00, 0xFF, 0x80, 0xC3, 0x28, 0x0D, 0x0A, 0xFE, 0x01, 0x7F] + Array(0..<40)
        var scene = try DetectScene(width: 260, height: 260)
        try scene.add(CodeMatrix.qr(bytes), x: 130, y: 130, module: 4)
        let d = try XCTUnwrap(scene.detect(try BarcodeDetector()).first)
        XCTAssertEqual(d.payload, bytes)
        XCTAssertNil(String(validatingUTF8Bytes: d.payload))
    }

    func testLongestQRPayloadIsIntact() throws {
        // 2900 bytes of every value: near the 2953-byte limit of a version-40 QR code.
        let bytes = (0..<2900).map { UInt8(truncatingIfNeeded: $0 * 37 + $0 / 256) }
        let matrix = try CodeMatrix.qr(bytes, errorCorrection: .low)
        var scene = try DetectScene(width: 600, height: 600)
        try scene.add(matrix, x: 300, y: 300, module: 3)
        let found = scene.detect(try BarcodeDetector(symbologies: Symbology.parseList("qrcode")))
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.payload, bytes)
    }

    func testShiftJISPayloadReadsAsJapaneseTextWithExactBytes() throws {
        // "日本" in Shift JIS.
        let bytes: [UInt8] = [0x93, 0xFA, 0x96, 0x7B]
        var scene = try DetectScene(width: 200, height: 200)
        try scene.add(CodeMatrix.qr(bytes), x: 100, y: 100, module: 4)
        let d = try XCTUnwrap(scene.detect(try BarcodeDetector()).first)
        XCTAssertEqual(d.payload, bytes)
        XCTAssertEqual(d.text, "日本")
    }
}
