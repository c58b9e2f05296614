import ARCodeGen
import ARCore
import ARDetect
import XCTest

final class DetectorPassTests: XCTestCase {
    func testQRCodeCornersAreWithinTwoPixelsAtAnyRotation() throws {
        let detector = try BarcodeDetector()
        for rotation in [0.0, 30, 90, 200] {
            var scene = try DetectScene(width: 260, height: 260)
            try scene.add(CodeMatrix.qr(text: "CORNERS"), x: 130, y: 130, module: 4, rotation: rotation)
            let d = try XCTUnwrap(scene.detect(detector).first, "rotation \(rotation)")
            XCTAssertEqual(d.text, "CORNERS")
            assertCorners(d.quad, scene.truth[0], within: 2, "rotation \(rotation)")
        }
    }

    func testNoiseAndBlankFramesYieldNoDetections() throws {
        let detector = try BarcodeDetector(symbologies: Symbology.parseList("all,isbn10,isbn13,ean2,ean5"))
        var rng = SeededRandom(seed: 42)
        for seed in 0..<4 {
            var image = try LumaPlane(validatingWidth: 320, height: 240, fill: 128)
            for i in image.pixels.indices {
                // Coarse blocks of noise (code-sized texture) and fine grain.
                let x = i % 320, y = i / 320
                image.pixels[i] = ((x / (2 + seed) + y / 3) % 2 == 0 ? 60 : 190) &+ UInt8(rng.next() % 40)
            }
            let scene = DetectScene(image: image)
            XCTAssertEqual(scene.detect(detector).map(\.text), [], "noise \(seed)")
        }
        XCTAssertEqual(try DetectScene(width: 320, height: 240).detect(detector).count, 0)
        XCTAssertEqual(try DetectScene(width: 1, height: 1).detect(detector).count, 0)
    }

    func testInvertedCodeIsReadByTheInvertPass() throws {
        var scene = try DetectScene(width: 240, height: 240, background: 30)
        try scene.add(CodeMatrix.qr(text: "LIGHT ON DARK"), x: 120, y: 120, module: 4,
                      renderer: CodeRenderer(darkLevel: 235, lightLevel: 30))
        XCTAssertEqual(scene.detect(try BarcodeDetector(options: DetectorOptions(invert: false))).count, 0)
        let d = try XCTUnwrap(scene.detect(try BarcodeDetector()).first)
        XCTAssertEqual(d.text, "LIGHT ON DARK")
        assertCorners(d.quad, scene.truth[0], within: 2)
    }

    func testRegionDecodingFindsOnlyTheCodesInsideTheRegions() throws {
        var scene = try DetectScene(width: 400, height: 240)
        try scene.add(CodeMatrix.qr(text: "LEFT"), x: 90, y: 120, module: 4)
        try scene.add(CodeMatrix.code128("RIGHT"), x: 300, y: 120, module: 2, rotation: 20)
        let detector = try BarcodeDetector()
        XCTAssertEqual(scene.detect(detector, in: [scene.truth[0]]).map(\.text), ["LEFT"])
        let right = scene.detect(detector, in: [scene.truth[1]])
        XCTAssertEqual(right.map(\.text), ["RIGHT"])
        if let d = right.first { assertCorners(d.quad, scene.truth[1], within: 2) }
        XCTAssertEqual(scene.detect(detector, in: [Quad(Rect(x: 180, y: 10, width: 40, height: 40))]).count, 0)
    }

    func testRestrictedSymbologiesSkipOthers() throws {
        var scene = try DetectScene(width: 400, height: 200)
        try scene.add(CodeMatrix.qr(text: "QR"), x: 80, y: 100, module: 4)
        try scene.add(CodeMatrix.ean13("4006381333931"), x: 260, y: 100, module: 2, rotation: 30)
        XCTAssertEqual(scene.detect(try BarcodeDetector(symbologies: Symbology.parseList("qrcode"))).map(\.text), ["QR"])
        XCTAssertEqual(scene.detect(try BarcodeDetector(symbologies: Symbology.parseList("ean13"))).map(\.text), ["4006381333931"])
    }
}

extension DetectScene {
    init(image: LumaPlane) {
        self.image = image
    }
}
