import ARCodeGen
import ARCore
import ARDetect
import XCTest

final class LinearCodeTests: XCTestCase {
    func testEAN13AtEachRotationYieldsItsTextAndBarCorners() throws {
        let detector = try BarcodeDetector()
        for rotation in [0.0, 30, 45, 90, 180, 300] {
            var scene = try DetectScene(width: 300, height: 300)
            try scene.add(CodeMatrix.ean13("4006381333931"), x: 150, y: 150, module: 2, rotation: rotation)
            let found = scene.detect(detector)
            XCTAssertEqual(found.map(\.text), ["4006381333931"], "rotation \(rotation)")
            guard let d = found.first else { continue }
            XCTAssertEqual(d.symbology, "EAN-13")
            assertCorners(d.quad, scene.truth[0], within: 2, "rotation \(rotation)")
        }
    }

    func testCode128AtEachRotationYieldsItsTextAndBarCorners() throws {
        let detector = try BarcodeDetector()
        for rotation in [0.0, 30, 45, 90, 135] {
            var scene = try DetectScene(width: 320, height: 320)
            try scene.add(CodeMatrix.code128("ARBAR-128"), x: 160, y: 160, module: 2, rotation: rotation)
            let found = scene.detect(detector)
            XCTAssertEqual(found.map(\.text), ["ARBAR-128"], "rotation \(rotation)")
            guard let d = found.first else { continue }
            XCTAssertEqual(d.symbology, "CODE-128")
            assertCorners(d.quad, scene.truth[0], within: 2, "rotation \(rotation)")
        }
    }

    func testOrientationFollowsTheCodesReadingDirection() throws {
        let detector = try BarcodeDetector()
        for rotation in [0.0, 90, 180, 270] {
            var scene = try DetectScene(width: 300, height: 300)
            try scene.add(CodeMatrix.code128("ORIENT"), x: 150, y: 150, module: 2, rotation: rotation)
            let d = try XCTUnwrap(scene.detect(detector).first, "rotation \(rotation)")
            // −180 and 180 are the same direction.
            XCTAssertEqual((d.orientationDegrees - rotation).remainder(dividingBy: 360), 0, accuracy: 1, "rotation \(rotation)")
        }
    }

    func testRotated1DCodeNeedsTheRotatePass() throws {
        // At 30° zbar's rows cross only part of a wide, short code.
        var scene = try DetectScene(width: 400, height: 400)
        try scene.add(CodeMatrix.code128("ROT-30"), x: 200, y: 200, module: 2, rotation: 30, barHeight: 24)
        var zbarOnly = try BarcodeDetector(options: .zbarOnly)
        XCTAssertEqual(scene.detect(zbarOnly).count, 0, "zbar alone should miss it (else the test proves nothing)")
        zbarOnly = try BarcodeDetector()
        XCTAssertEqual(scene.detect(zbarOnly).map(\.text), ["ROT-30"])
        if let d = scene.detect(zbarOnly).first { assertCorners(d.quad, scene.truth[0], within: 2) }
    }

    func testUPCAIsReportedAsTwelveDigitUPCA() throws {
        var scene = try DetectScene(width: 300, height: 160)
        // An EAN-13 with a leading 0 is a UPC-A.
        try scene.add(CodeMatrix.ean13("0036000291452"), x: 150, y: 80, module: 2)
        let found = scene.detect(try BarcodeDetector())
        XCTAssertEqual(found.map(\.symbology), ["UPC-A"])
        XCTAssertEqual(found.map(\.text), ["036000291452"])
        let asEAN = scene.detect(try BarcodeDetector(symbologies: Symbology.parseList("ean13")))
        XCTAssertEqual(asEAN.map(\.text), ["0036000291452"])
        XCTAssertEqual(scene.detect(try BarcodeDetector(symbologies: Symbology.parseList("upca"))).map(\.text), ["036000291452"])
    }

    func testBookEAN13IsReportedAsISBN13OnlyWhenAsked() throws {
        var scene = try DetectScene(width: 300, height: 160)
        try scene.add(CodeMatrix.ean13("9780140013993"), x: 150, y: 80, module: 2)
        XCTAssertEqual(scene.detect(try BarcodeDetector()).map(\.symbology), ["EAN-13"])
        XCTAssertEqual(scene.detect(try BarcodeDetector(symbologies: Symbology.parseList("all,isbn13"))).map(\.symbology), ["ISBN-13"])
    }
}

final class ThinFrameTests: XCTestCase {
    /// Rows `y0..<y1` of `scene` as an image of their own.
    private func rows(_ scene: DetectScene, _ y0: Int, _ y1: Int) throws -> DetectScene {
        var strip = try DetectScene(width: scene.image.width, height: y1 - y0)
        for y in y0..<y1 {
            for x in 0..<scene.image.width { strip.image[x, y - y0] = scene.image[x, y] }
        }
        return strip
    }

    func testACodeInAOneRowFrameIsRead() throws {
        var scene = try DetectScene(width: 260, height: 60)
        try scene.add(CodeMatrix.ean13("4006381333931"), x: 130, y: 30, module: 2)
        for (y0, y1) in [(30, 31), (25, 36)] {
            let strip = try rows(scene, y0, y1)
            for locate in [LocateMode.auto, .regions, .full] {
                let found = strip.detect(try BarcodeDetector(options: DetectorOptions(locate: locate, threads: 1)))
                XCTAssertEqual(found.map(\.text), ["4006381333931"], "rows \(y0)..<\(y1), locate \(locate)")
                // The outline in the strip's own pixels: across its width, inside its rows.
                guard let q = found.first?.quad else { continue }
                let xs = q.corners.map(\.x), ys = q.corners.map(\.y)
                XCTAssertEqual(xs.min() ?? 0, scene.truth[0].corners.map(\.x).min() ?? 0, accuracy: 3)
                XCTAssertEqual(xs.max() ?? 0, scene.truth[0].corners.map(\.x).max() ?? 0, accuracy: 3)
                XCTAssertGreaterThanOrEqual(ys.min() ?? -1, -0.5)
                XCTAssertLessThanOrEqual(ys.max() ?? .infinity, Double(y1 - y0) + 0.5)
            }
        }
    }
}
