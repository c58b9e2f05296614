import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

/// zbar can join a half of one EAN-13 to a half of another on a nearby scan line; such a reading
/// names a code that is not there and must not be reported.
final class JoinedReadingTests: XCTestCase {
    private func pair() throws -> DetectScene {
        var scene = try DetectScene(width: 1400, height: 300)
        try scene.add(CodeMatrix.ean13("9098691533250"), x: 300, y: 150, module: 3, rotation: 10, barHeight: 90)
        try scene.add(CodeMatrix.ean13("3366222781552"), x: 700, y: 160, module: 3, rotation: 10, barHeight: 90)
        return scene
    }

    func testHalvesOfTwoEAN13CodesAreNotReportedAsACode() throws {
        let scene = try pair()
        // zbar alone reads the joined halves (else this test proves nothing).
        let scanner = try ZBarScanner(symbologies: try Symbology.parseList("ean13"))
        let raw = scene.image.pixels.withUnsafeBytes { bytes in
            scanner.scan(LumaImage(base: bytes.baseAddress!, width: scene.image.width, height: scene.image.height,
                                   stride: scene.image.width)).map { String(decoding: $0.payload, as: UTF8.self) }
        }
        XCTAssertEqual(Set(raw), ["9098691533250", "3366222781552", "3366222533250"])
        for options in [DetectorOptions.zbarOnly, DetectorOptions()] {
            let found = scene.detect(try BarcodeDetector(options: options))
            XCTAssertEqual(Set(found.map(\.text)), ["9098691533250", "3366222781552"])
            for d in found {
                let truth = d.text == "9098691533250" ? scene.truth[0] : scene.truth[1]
                assertCorners(d.quad, truth, within: 3, d.text)
            }
        }
    }
}
