import ARCodeGen
import ARCore
@testable import ARDetect
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

/// The inverted pass runs only where a region's quiet zone is darker than its code.
final class InvertedPassTests: XCTestCase {
    /// Passes `RegionDecoder` runs on the region around `scene`'s first code, and what it reads.
    private func decode(_ scene: DetectScene, kind: LocatedRegion.Kind, invert: Bool) throws -> (passes: Int, texts: [String]) {
        let decoder = try RegionDecoder(symbologies: Symbology.allByDefault)
        var options = DetectorOptions()
        options.invert = invert
        let found = scene.image.pixels.withUnsafeBytes { raw in
            let luma = LumaImage(base: raw.baseAddress!, width: scene.image.width, height: scene.image.height, stride: scene.image.width)
            return decoder.decode(CodeLocator().region(around: scene.truth[0], kind: kind, in: luma), in: luma, options: options)
        }
        return (decoder.passes, found.map(\.text))
    }

    /// `matrix` at the middle of a 400x300 scene, light on dark when `inverted` (the scene's
    /// background too: the code's quiet zone).
    private func scene(_ matrix: CodeMatrix, inverted: Bool, module: Double) throws -> DetectScene {
        var scene = try DetectScene(width: 400, height: 300)
        try scene.add(matrix, x: 200, y: 150, module: module, rotation: 20, barHeight: 60)
        if inverted { for i in scene.image.pixels.indices { scene.image.pixels[i] = 255 - scene.image.pixels[i] } }
        return scene
    }

    func testADarkOnLightCodeGetsNoInvertedPassAndALightOnDarkOneDoes() throws {
        let good = try CodeMatrix.ean13("4006381333931")
        // Its middle bars damaged: no pass reads it, so every pass runs.
        let damaged = try CodeMatrix(width: good.width, height: 1,
                                     modules: (0..<good.width).map { (40...52).contains($0) ? $0 % 3 == 0 : good.isDark(x: $0, y: 0) },
                                     quietZoneModules: 10, symbology: "EAN-13")
        let plain = try scene(damaged, inverted: false, module: 2), dark = try scene(damaged, inverted: true, module: 2)
        XCTAssertEqual(try decode(plain, kind: .linear, invert: true).passes, try decode(plain, kind: .linear, invert: false).passes)
        XCTAssertEqual(try decode(dark, kind: .linear, invert: true).passes, try decode(dark, kind: .linear, invert: false).passes + 1)
        XCTAssertEqual(try decode(scene(good, inverted: true, module: 2), kind: .linear, invert: true).texts, ["4006381333931"])
    }

    func testOnlyAQRCodeWithoutFinderPatternsOnADarkQuietZoneGetsTheInvertedPass() throws {
        let qr = try CodeMatrix.qr(text: "LIGHT ON DARK, NO FINDERS SEEN")
        let plain = try scene(qr, inverted: false, module: 4), dark = try scene(qr, inverted: true, module: 4)
        // Light on dark, the finder-pattern search (dark-centred rings) sees none: read frame-aligned, inverted.
        XCTAssertEqual(try decode(dark, kind: .matrix, invert: true).texts, ["LIGHT ON DARK, NO FINDERS SEEN"])
        XCTAssertEqual(try decode(dark, kind: .matrix, invert: false).texts, [])
        // Dark on light with its finder patterns: read upright, first pass.
        XCTAssertEqual(try decode(plain, kind: .matrix, invert: true).passes, 1)
        // Its data modules scrambled past repair, finder patterns intact: every pass but the inverted one.
        let unread = try scene(qr.scrambledQRData(), inverted: false, module: 4)
        let withInvert = try decode(unread, kind: .matrix, invert: true), without = try decode(unread, kind: .matrix, invert: false)
        XCTAssertEqual(withInvert.texts, [])
        XCTAssertEqual(withInvert.passes, without.passes)
    }

    /// A QR code whose upright read fails gets no frame-aligned passes when it gets the first
    /// pass only (a place missed on the calls before, `retryPassesEvery`); with every pass, one:
    /// after its two upright passes (plain and sharpened), the plain frame-aligned pass at its
    /// measured scale, without the sharpened and half-size ones.
    func testAnUnreadQRCodeOnTheFirstPassOnlyGetsItsUprightReadAlone() throws {
        let unread = try scene(CodeMatrix.qr(text: "UPRIGHT ONLY, ITS DATA SCRAMBLED").scrambledQRData(), inverted: false, module: 4)
        func passes(_ options: DetectorOptions) throws -> Int {
            let decoder = try RegionDecoder(symbologies: Symbology.allByDefault)
            let found = unread.image.pixels.withUnsafeBytes { raw in
                let luma = LumaImage(base: raw.baseAddress!, width: unread.image.width, height: unread.image.height, stride: unread.image.width)
                return decoder.decode(CodeLocator().region(around: unread.truth[0], kind: .matrix, in: luma), in: luma, options: options)
            }
            XCTAssertEqual(found.count, 0)
            return decoder.passes
        }
        XCTAssertEqual(try passes(DetectorOptions().firstPassOnly), 1)
        XCTAssertEqual(try passes(DetectorOptions()), 3)
    }

    /// A blob of texture (a 2D region outlined neither by finder patterns nor by a track) is scanned
    /// for 1D codes only when the detector says so (`MissLedger.blobScansLinear`).
    func testABlobIsScannedFor1DCodesOnlyWhenAsked() throws {
        var scene = try DetectScene(width: 400, height: 300)
        try scene.add(CodeMatrix.ean13("4006381333931"), x: 200, y: 150, module: 2, barHeight: 60)
        let blob = LocatedRegion(kind: .matrix, quad: scene.truth[0].grown(by: 1.3), axisDegrees: 0, moduleSize: 2, score: 1, verified: false)
        func texts(linearInBlob: Bool) throws -> [String] {
            let decoder = try RegionDecoder(symbologies: Symbology.allByDefault)
            return scene.image.pixels.withUnsafeBytes { raw in
                let luma = LumaImage(base: raw.baseAddress!, width: scene.image.width, height: scene.image.height, stride: scene.image.width)
                return decoder.decode(blob, in: luma, options: DetectorOptions(), linearInBlob: linearInBlob).map(\.text)
            }
        }
        XCTAssertEqual(try texts(linearInBlob: true), ["4006381333931"])
        XCTAssertEqual(try texts(linearInBlob: false), [])
    }

    func testTheMarginOfAPassImageIsDarkerOnlyAroundALightOnDarkCode() {
        var strip = LumaPlane(width: 100, height: 16)
        // Dark ends (quiet zone), bars alternating between.
        for y in 0..<16 { for x in 0..<100 { strip[x, y] = x < 10 || x >= 90 ? 20 : (x / 3) % 2 == 0 ? 230 : 20 } }
        XCTAssertTrue(strip.marginIsDarker(.ends, fraction: 0.05))
        strip.invert()
        XCTAssertFalse(strip.marginIsDarker(.ends, fraction: 0.05))
        // `.all` counts the top and bottom rows too: light there outweighs the dark ends.
        var square = LumaPlane(width: 40, height: 40)
        for y in 0..<40 { for x in 0..<40 { square[x, y] = y < 4 || y >= 36 ? 255 : x < 4 || x >= 36 ? 0 : 128 } }
        XCTAssertTrue(square.marginIsDarker(.ends, fraction: 0.1))
        XCTAssertFalse(square.marginIsDarker(.all, fraction: 0.1))
    }
}

final class StripSamplingTests: XCTestCase {
    /// The columns of a strip line sampled in fixed point are exactly those whose points lie well
    /// inside the frame, for lines crossing its edges at any angle.
    func testALinesColumnsInsideTheFrameAreThoseItsPointsSayAreInside() {
        let pixels = [UInt8](repeating: 128, count: 64 * 48)
        pixels.withUnsafeBytes { raw in
            let luma = LumaImage(base: raw.baseAddress!, width: 64, height: 48, stride: 64)
            var seen = Set<Int>()
            for i in 0..<400 {
                let angle = Double(i) * 0.37, step = 0.3 + Double(i % 7) * 0.4
                let x = -20 + Double((i * 13) % 100), y = -15 + Double((i * 29) % 80)
                let dx = cos(angle) * step, dy = sin(angle) * step
                let inside = RegionDecoder.columnsInside(luma, x: x, y: y, dx: dx, dy: dy, count: 120)
                let expected = (0..<120).filter { luma.holdsInside(x + dx * Double($0), y + dy * Double($0)) }
                XCTAssertEqual(Array(inside), expected, "line \(i)")
                seen.insert(inside.isEmpty ? 0 : inside.count == 120 ? 2 : 1)
            }
            XCTAssertEqual(seen, [0, 1, 2], "lines outside, crossing and inside")
        }
    }
}
