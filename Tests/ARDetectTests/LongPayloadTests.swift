import ARCodeGen
import ARCore
import ARDetect
import CQREncode
import XCTest

final class LongPayloadTests: XCTestCase {
    /// A QR matrix for `text` in libqrencode's most compact modes (numeric here), which holds more
    /// characters than the 8-bit mode `CodeMatrix.qr` uses.
    private func compactQR(_ text: String) throws -> CodeMatrix {
        let code = try XCTUnwrap(QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1))
        defer { QRcode_free(code) }
        let side = Int(code.pointee.width)
        let modules = (0..<side * side).map { code.pointee.data[$0] & 1 == 1 }
        return try CodeMatrix(width: side, height: side, modules: modules, quietZoneModules: 4, symbology: "QR-Code")
    }

    func testA4096CharacterPayloadIsIntact() throws {
        let text = String((0..<4096).map { Character(String($0 % 10)) })
        let matrix = try compactQR(text)
        XCTAssertEqual(matrix.width, 137, "version 30: numeric mode packs 4096 digits")
        var scene = try DetectScene(width: 600, height: 600)
        try scene.add(matrix, x: 300, y: 300, module: 3)
        let found = scene.detect(try BarcodeDetector(symbologies: Symbology.parseList("qrcode")))
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.payload, Array(text.utf8))
    }
}
