import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

final class CodeLocatorTests: XCTestCase {
    private func regions(_ scene: DetectScene) -> [LocatedRegion] {
        scene.image.pixels.withUnsafeBytes {
            CodeLocator().regions(in: LumaImage(base: $0.baseAddress!, width: scene.image.width, height: scene.image.height,
                                                stride: scene.image.width))
        }
    }

    func testFindsEveryGeneratedCodeOfEachSymbologyAtEachAngleWithItsKindAndModule() throws {
        let codes: [(CodeMatrix, LocatedRegion.Kind, Double)] = [
            (try CodeMatrix.qr(text: "LOCATE ME"), .matrix, 4),
            (try CodeMatrix.ean13("4006381333931"), .linear, 2),
            (try CodeMatrix.code128("ARBAR-128"), .linear, 2),
        ]
        for (matrix, kind, module) in codes {
            for rotation in [0.0, 30, 45, 90, 160, 300] {
                var scene = try DetectScene(width: 480, height: 360)
                try scene.add(matrix, x: 240, y: 180, module: module, rotation: rotation, barHeight: 60)
                // Verified: bars agreeing across their height (1D), three finder patterns (QR).
                let found = regions(scene).filter { $0.verified && $0.quad.contains(scene.truth[0].center) }
                let what = "\(matrix.symbology) at \(rotation)°"
                let r = try XCTUnwrap(found.first, "\(what): no region on the code")
                XCTAssertEqual(r.kind, kind, what)
                // Within a factor of two of the true module: enough to resample to 2–3 px per module.
                XCTAssertGreaterThan(r.moduleSize, module / 2, what)
                XCTAssertLessThan(r.moduleSize, module * 2, what)
                if kind == .matrix {
                    // The grid's turn from the cells' gradients (cos 4φ, sin 4φ), modulo 90°.
                    let d = abs((r.axisDegrees - rotation).remainder(dividingBy: 90))
                    XCTAssertLessThan(d, 5, "\(what): \(r.axisDegrees)°")
                }
                if kind == .linear {
                    // Across the bars, up to the code's own symmetry (a 1D code's axis is modulo 180°).
                    let d = abs((r.axisDegrees - rotation).remainder(dividingBy: 180))
                    XCTAssertLessThan(d, 3, what)
                    // The box spans the whole code.
                    for corner in scene.truth[0].corners {
                        let inner = scene.truth[0].center + (corner - scene.truth[0].center) * 0.9
                        XCTAssertTrue(r.quad.contains(inner), "\(what): \(r.quad.corners) misses \(inner)")
                    }
                }
            }
        }
    }

    func testLargeCodesWhoseSpacesAreWiderThanACellAreRead() throws {
        // Modules of 4.5–12 px (an EAN-13 close to the camera, or at 4K): its widest spaces (4 modules)
        // leave cells without an edge, so the finest level sees the code in pieces; a coarser
        // level's region that spans the whole code stands for them.
        for module in [4.5, 5, 6, 6.5, 7, 9, 10, 12] {
            for barHeight in [120.0, 215] {
                var scene = try DetectScene(width: Int(95 * module + 300), height: Int(barHeight + 200))
                try scene.add(try CodeMatrix.ean13("8951321769065"), x: Double(scene.image.width) / 2,
                              y: Double(scene.image.height) / 2, module: module, barHeight: barHeight)
                let covering = regions(scene).filter { r in
                    r.verified && scene.truth[0].corners.allSatisfy { r.quad.contains(scene.truth[0].center + ($0 - scene.truth[0].center) * 0.9) }
                }
                XCTAssertFalse(covering.isEmpty, "module \(module), bars \(barHeight) px: no verified region over the whole code")
                let detector = try BarcodeDetector(options: DetectorOptions(locate: .regions, threads: 1))
                XCTAssertEqual(scene.detect(detector).map(\.text), ["8951321769065"], "module \(module), bars \(barHeight) px")
            }
        }
    }

    /// A label with fine bars laid over a large code's bars (a shelf label on a poster's code): a
    /// coarser level's region spans the large code and the label, but the label is a code of its
    /// own, not one of the large code's pieces, and is decoded at its own module.
    func testAFineLabelOverALargeCodesBarsIsKeptBesideIt() throws {
        var labelsRead = 0
        var kept = 0
        let offsets = [-150.0, -60, 60, 150]
        for dx in offsets {
            var scene = try DetectScene(width: 1400, height: 640)
            try scene.add(try CodeMatrix.ean13("8951321769065"), x: 700, y: 320, module: 9, barHeight: 420)
            try scene.add(try CodeMatrix.code128("LABEL-42"), x: 700 + dx, y: 300, module: 2.5, rotation: 4, barHeight: 70)
            let label = scene.truth[1]
            if regions(scene).contains(where: { $0.kind == .linear && $0.quad.contains(label.center) && $0.moduleSize < 5 }) { kept += 1 }
            let detector = try BarcodeDetector(options: DetectorOptions(locate: .regions, threads: 1))
            let read = scene.detect(detector).map(\.text)
            if read.contains("LABEL-42") { labelsRead += 1 }
        }
        XCTAssertEqual(kept, offsets.count, "a region of the label's own module")
        XCTAssertEqual(labelsRead, offsets.count)
    }

    func testTextAndStripesAreNotVerifiedCodes() throws {
        var scene = try DetectScene(width: 400, height: 300)
        // Text-like strokes: short dark dashes of varying length on rows, and coarse stripes.
        for row in stride(from: 20, to: 140, by: 14) {
            var x = 20
            var k = row
            while x < 380 {
                let w = 3 + (k * 7) % 9
                for y in row..<(row + 8) { for xx in x..<min(380, x + w) { scene.image[xx, y] = 30 } }
                x += w + 2 + (k * 5) % 6
                k += 3
            }
        }
        for x in stride(from: 40, to: 360, by: 40) { for y in 180..<280 { for xx in x..<(x + 18) { scene.image[xx, y] = 40 } } }
        XCTAssertEqual(regions(scene).filter(\.verified).map(\.kind), [], "nothing verified")
    }

    func testAnUnreadableBarCodeIsReportedLocated() throws {
        // An EAN-13 whose middle bars are damaged top to bottom: bars that agree across their
        // height (a code is there) that no pass can read.
        let good = try CodeMatrix.ean13("4006381333931")
        var modules: [Bool] = []
        for x in 0..<good.width { modules.append((40...52).contains(x) ? x % 3 == 0 : good.isDark(x: x, y: 0)) }
        let damaged = try CodeMatrix(width: good.width, height: 1, modules: modules, quietZoneModules: 10, symbology: "EAN-13")
        var scene = try DetectScene(width: 400, height: 300)
        try scene.add(damaged, x: 200, y: 150, module: 2, rotation: 20, barHeight: 60)
        let result = scene.image.pixels.withUnsafeBytes {
            try! BarcodeDetector(options: DetectorOptions(locate: .regions)).scan(
                LumaImage(base: $0.baseAddress!, width: scene.image.width, height: scene.image.height, stride: scene.image.width))
        }
        XCTAssertEqual(result.codes.map(\.text), [])
        XCTAssertEqual(result.located.map(\.kind), [.linear])
        XCTAssertTrue(result.located.first?.quad.contains(scene.truth[0].center) ?? false)
    }

    /// `quietFrames` (video): texture that no pass read is not measured again for that many calls
    /// while it stays in place, so a code printed there waits as long; without it, it is read at once.
    func testAnUnreadRegionIsLeftAloneForQuietFramesWhileItStaysInPlace() throws {
        var texture = try DetectScene(width: 400, height: 300)
        for y in 70..<230 { for x in 120..<280 { texture.image[x, y] = ((x / 4) * 7 + (y / 4) * 13) % 5 < 2 ? 40 : 210 } }
        var withCode = texture
        try withCode.add(CodeMatrix.qr(text: "UNDER QUIET"), x: 200, y: 150, module: 3)
        func readOn(quietFrames: Int) throws -> [Int] {
            var options = DetectorOptions(locate: .regions)
            options.quietFrames = quietFrames
            let detector = try BarcodeDetector(options: options)
            XCTAssertEqual(texture.detect(detector).count, 0)
            return (2...6).filter { _ in withCode.detect(detector).map(\.text) == ["UNDER QUIET"] }
        }
        XCTAssertEqual(try readOn(quietFrames: 3), [5, 6], "left alone on calls 2–4")
        XCTAssertEqual(try readOn(quietFrames: 0), [2, 3, 4, 5, 6])
    }

    /// `retryPassesEvery` (video): a place no pass read on two calls in a row gets the first pass
    /// only, and every pass on one such call in that many; a light-on-dark code (read by the
    /// inverted pass only) printed there then waits for that call, and keeps every pass once read.
    func testAPlaceMissedTwiceGetsEveryPassOnlyOnItsTurn() throws {
        func inverted(_ matrix: CodeMatrix) throws -> DetectScene {
            var scene = try DetectScene(width: 400, height: 300)
            try scene.add(matrix, x: 200, y: 150, module: 2, rotation: 20, barHeight: 60)
            for i in scene.image.pixels.indices { scene.image.pixels[i] = 255 - scene.image.pixels[i] }
            return scene
        }
        let good = try CodeMatrix.ean13("4006381333931")
        // The same code with its middle bars damaged: located there, read by no pass.
        let damaged = try CodeMatrix(width: good.width, height: 1,
                                     modules: (0..<good.width).map { (40...52).contains($0) ? $0 % 3 == 0 : good.isDark(x: $0, y: 0) },
                                     quietZoneModules: 10, symbology: "EAN-13")
        let unreadable = try inverted(damaged), readable = try inverted(good)
        func readOn(every: Int) throws -> [Int] {
            var options = DetectorOptions(locate: .regions)
            options.retryPassesEvery = every
            let detector = try BarcodeDetector(options: options)
            XCTAssertEqual(unreadable.detect(detector).count + unreadable.detect(detector).count, 0)
            return (3...7).filter { _ in readable.detect(detector).map(\.text) == ["4006381333931"] }
        }
        XCTAssertEqual(try readOn(every: 4), [5, 6, 7], "first pass only on calls 3 and 4 (misses 2 and 3), every pass on the 4th miss")
        XCTAssertEqual(try readOn(every: 0), [3, 4, 5, 6, 7])
    }

    /// `retryPassesEvery` (video): a tracked QR code's place no pass read on 6 calls in a row
    /// rests: it is decoded on one such call in that many only, so a code readable there from call
    /// 8 on is read on call 10 (its 9th miss), and on every call once read.
    func testATrackedQRCodesPlaceMissedSixTimesIsDecodedOnlyOnItsTurn() throws {
        let good = try CodeMatrix.qr(text: "RESTING PLACE, ITS DATA SCRAMBLED")
        let scrambled = try good.scrambledQRData()
        func scene(_ matrix: CodeMatrix) throws -> DetectScene {
            var scene = try DetectScene(width: 300, height: 300)
            try scene.add(matrix, x: 150, y: 150, module: 4, rotation: 10)
            return scene
        }
        let unreadable = try scene(scrambled), readable = try scene(good)
        // Decoded where a track expects a QR code (`BarcodeDetector.detect(_:in:kinds:)`).
        func tracked(_ scene: DetectScene, _ detector: BarcodeDetector) -> [String] {
            scene.image.pixels.withUnsafeBytes {
                detector.detect(LumaImage(base: $0.baseAddress!, width: 300, height: 300, stride: 300),
                                in: [readable.truth[0]], kinds: [.matrix]).map(\.text)
            }
        }
        func readOn(every: Int) throws -> [Int] {
            var options = DetectorOptions(locate: .regions)
            options.retryPassesEvery = every
            let detector = try BarcodeDetector(options: options)
            for _ in 1...7 { XCTAssertEqual(tracked(unreadable, detector), []) }
            return (8...11).filter { _ in tracked(readable, detector) == ["RESTING PLACE, ITS DATA SCRAMBLED"] }
        }
        XCTAssertEqual(try readOn(every: 3), [10, 11], "resting on calls 8 and 9 (misses 7 and 8)")
        XCTAssertEqual(try readOn(every: 0), [8, 9, 10, 11])
        // Not tracked (located on the whole frame): a new code there is read at once.
        var options = DetectorOptions(locate: .regions)
        options.retryPassesEvery = 3
        let detector = try BarcodeDetector(options: options)
        for _ in 1...7 { XCTAssertEqual(unreadable.detect(detector).count, 0) }
        XCTAssertEqual(readable.detect(detector).map(\.text), ["RESTING PLACE, ITS DATA SCRAMBLED"])
    }

    /// A tracked code (skipped) inside a textured blob is not searched again: its cells join no
    /// blob, so its finder patterns make no region; without the skip they do.
    func testATrackedCodesCellsJoinNoBlob() throws {
        var scene = try DetectScene(width: 420, height: 300)
        for y in 40..<260 { for x in 40..<380 { scene.image[x, y] = ((x / 3) * 7 + (y / 3) * 13) % 5 < 2 ? 40 : 210 } }
        try scene.add(CodeMatrix.qr(text: "TRACKED IN TEXTURE"), x: 210, y: 150, module: 3)
        let qr = scene.truth[0]
        func regions(skipping: [Quad]) -> [LocatedRegion] {
            scene.image.pixels.withUnsafeBytes {
                CodeLocator().regions(in: LumaImage(base: $0.baseAddress!, width: 420, height: 300, stride: 420), skipping: skipping.map { KnownCode(quad: $0) })
            }
        }
        XCTAssertTrue(regions(skipping: []).contains { $0.outlinedByFinderPatterns && $0.quad.contains(qr.center) })
        XCTAssertFalse(regions(skipping: [qr]).contains { $0.outlinedByFinderPatterns }, "\(regions(skipping: [qr]))")
    }

    /// Three finder patterns of other codes (alone on texture, no timing patterns between them)
    /// make a right isosceles triangle around a tracked QR code. They outline no code: a code holds
    /// no tracked one. Without the tracked code the triangle overlaps the code's own outline, and is
    /// no region either.
    func testFinderPatternsOfOtherCodesAroundATrackedCodeOutlineNoCode() throws {
        var scene = try DetectScene(width: 600, height: 600)
        for y in 40..<560 { for x in 40..<560 { scene.image[x, y] = ((x / 3) * 7 + (y / 3) * 13) % 5 < 2 ? 40 : 210 } }
        // Each pattern 7 modules of 4 px, in a light margin of one module.
        for (cx, cy) in [(120, 120), (480, 120), (120, 480)] {
            for y in -18..<18 {
                for x in -18..<18 {
                    let ring = max(abs(x < 0 ? x + 1 : x), abs(y < 0 ? y + 1 : y)) / 4
                    scene.image[cx + x, cy + y] = ring == 1 || ring == 3 || ring == 4 ? 220 : 30
                }
            }
        }
        try scene.add(CodeMatrix.qr(text: "TRACKED AMONG PATTERNS"), x: 300, y: 300, module: 3)
        let qr = scene.truth[0]
        func around(skipping: [KnownCode]) -> [LocatedRegion] {
            scene.image.pixels.withUnsafeBytes {
                CodeLocator().regions(in: LumaImage(base: $0.baseAddress!, width: 600, height: 600, stride: 600), skipping: skipping)
            }.filter { r in r.kind == .matrix && qr.corners.allSatisfy(r.quad.contains) }
        }
        XCTAssertEqual(around(skipping: [KnownCode(quad: qr, kind: .matrix)]).count, 0, "\(around(skipping: [KnownCode(quad: qr, kind: .matrix)]))")
        XCTAssertFalse(around(skipping: []).contains { $0.outlinedByFinderPatterns && abs($0.quad.signedArea) > 4 * abs(qr.signedArea) })
    }

    /// A QR code inside a ring of texture (apart from it) is searched by two blobs, its own and the
    /// ring's, whose box reaches over it: both outline it by its finder patterns, and it is one region.
    func testAQRCodeTwoBlobsReachOverIsOneRegion() throws {
        var scene = try DetectScene(width: 480, height: 400)
        for y in 40..<360 {
            for x in 40..<440 where !((140..<340).contains(x) && (100..<300).contains(y)) {
                scene.image[x, y] = ((x / 3) * 7 + (y / 3) * 13) % 5 < 2 ? 40 : 210
            }
        }
        try scene.add(CodeMatrix.qr(text: "ONE REGION"), x: 240, y: 200, module: 3)
        let outlines = regions(scene).filter { $0.outlinedByFinderPatterns && $0.quad.contains(scene.truth[0].center) }
        XCTAssertEqual(outlines.count, 1, "\(outlines.map(\.quad))")
    }

    /// Coarser levels the caller already has (a tracker's pyramid) are used as given: the same
    /// regions as computed ones; blank ones lose the code only a coarser level sees.
    func testTheCallersHalvingsServeTheCoarserLevels() throws {
        var scene = try DetectScene(width: 1400, height: 700)
        try scene.add(CodeMatrix.ean13("4006381333931"), x: 700, y: 350, module: 9, barHeight: 300)
        func regions(_ halvings: [LumaPlane]) -> [LocatedRegion] {
            scene.image.pixels.withUnsafeBytes {
                CodeLocator().regions(in: LumaImage(base: $0.baseAddress!, width: 1400, height: 700, stride: 1400), halvings: halvings)
            }
        }
        let computed = regions([])
        XCTAssertTrue(computed.contains { $0.kind == .linear && $0.verified && $0.quad.contains(scene.truth[0].center) })
        let half = scene.image.halved()
        XCTAssertEqual(regions([half, half.halved()]), computed)
        let blank = [LumaPlane(width: 700, height: 350, fill: 200), LumaPlane(width: 350, height: 175, fill: 200)]
        XCTAssertFalse(regions(blank).contains { $0.kind == .linear && $0.verified && $0.quad.contains(scene.truth[0].center) })
    }

    func testRegionDecodingReadsEachSymbologyAndTheSameWithOneOrFourThreads() throws {
        var scene = try DetectScene(width: 900, height: 600)
        try scene.add(CodeMatrix.qr(text: "THREADS QR"), x: 150, y: 150, module: 4, rotation: 10)
        try scene.add(CodeMatrix.ean13("4006381333931"), x: 600, y: 150, module: 2, rotation: 35, barHeight: 60)
        try scene.add(CodeMatrix.code128("THREADS-128"), x: 250, y: 450, module: 2, rotation: 100, barHeight: 50)
        try scene.add(CodeMatrix.qr(text: "SECOND QR"), x: 700, y: 450, module: 3, rotation: 250)
        var outputs: [[Detection]] = []
        for threads in [1, 4] {
            let detector = try BarcodeDetector(options: DetectorOptions(locate: .regions, threads: threads))
            let found = scene.detect(detector)
            XCTAssertEqual(Set(found.map(\.text)), ["THREADS QR", "4006381333931", "THREADS-128", "SECOND QR"], "\(threads) threads")
            outputs.append(found)
        }
        XCTAssertEqual(outputs[0], outputs[1], "same detections in the same order")
    }

    func testBlurredBarsAreReadFromStripsAveragedAlongTheBars() throws {
        var scene = try DetectScene(width: 400, height: 300)
        try scene.add(CodeMatrix.code128("BLUR-128"), x: 200, y: 150, module: 2, rotation: 0, barHeight: 60)
        // Noise of ±30 grey levels on every pixel: a single scan line is unreliable, a band's mean is not.
        var state: UInt64 = 12345
        for y in 0..<scene.image.height {
            for x in 0..<scene.image.width {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let n = Int((state >> 33) % 61) - 30
                scene.image[x, y] = UInt8(max(0, min(255, Int(scene.image[x, y]) + n)))
            }
        }
        let found = scene.detect(try BarcodeDetector(options: DetectorOptions(locate: .regions)))
        XCTAssertEqual(found.map(\.text), ["BLUR-128"])
        XCTAssertGreaterThanOrEqual(found.first?.quality ?? 0, 2, "several bands agree")
    }

    func testStripsOfBarsCutByTheFrameEdgeKeepTheLinesInsideTheFrame() throws {
        // A tilted region whose top third lies above the frame: cut to the rows inside it.
        let q = Quad(topLeft: Point(x: 10, y: -20), topRight: Point(x: 210, y: -10), bottomRight: Point(x: 207, y: 50),
                     bottomLeft: Point(x: 7, y: 40))
        let u = (q.topRight - q.topLeft).normalised, d = (q.bottomLeft - q.topLeft).normalised
        let cut = RegionDecoder.clippedAcross(q, u: u, d: d, width: 300, height: 100)
        // The bars' ends (15 % and 85 % along) are inside the frame on the cut's top edge.
        for f in [0.15, 0.85] {
            let p = cut.topLeft + (cut.topRight - cut.topLeft) * f
            XCTAssertGreaterThanOrEqual(p.y, -1e-9)
        }
        XCTAssertEqual(cut.bottomLeft.y, 40, accuracy: 1e-9, "the bottom stays")
        XCTAssertGreaterThan(cut.topLeft.y, q.topLeft.y + 15, "the top moved down to the frame")
        // A region inside the frame is left as it is.
        let inside = Quad(topLeft: Point(x: 10, y: 10), topRight: Point(x: 210, y: 20), bottomRight: Point(x: 207, y: 80),
                          bottomLeft: Point(x: 7, y: 70))
        XCTAssertEqual(RegionDecoder.clippedAcross(inside, u: u, d: d, width: 300, height: 100), inside)
    }

    func testBarsCutByTheFrameEdgeAreReadOnSeveralLines() throws {
        // A Code 128 whose upper half runs off the top of the frame, tilted 8°: strip rows past the
        // edge would be white. Cut to the frame, three of the strip's four row groups read it (two
        // when the strip keeps rows past the edge).
        var scene = try DetectScene(width: 400, height: 120)
        try scene.add(CodeMatrix.code128("EDGE-128"), x: 200, y: 0, module: 2, rotation: 8, barHeight: 70)
        let found = scene.detect(try BarcodeDetector(options: DetectorOptions(locate: .regions)))
        XCTAssertEqual(found.map(\.text), ["EDGE-128"])
        XCTAssertGreaterThanOrEqual(found.first?.quality ?? 0, 3, "read by the bands inside the frame")
    }

    /// A QR code turned 35° on a card laid over the top of a poster's bars: its upright box, outlined
    /// by its finder patterns, reaches over the bars' centre. It is a code of its own, not the bars'
    /// surroundings; a blob there is (camera seed 31, frame 0).
    func testAQRCodeOutlinedByFinderPatternsOverA1DCodesCentreIsKept() {
        let bars = LocatedRegion(kind: .linear, quad: Quad(Rect(x: 900, y: 410, width: 470, height: 280)), axisDegrees: 5,
                                 moduleSize: 5, score: 146, verified: true)
        let box = Quad(Rect(x: 933, y: 221, width: 374, height: 361))
        let qr = LocatedRegion(kind: .matrix, quad: box, axisDegrees: 35, moduleSize: 11, score: 40, verified: false,
                               outlinedByFinderPatterns: true)
        let blob = LocatedRegion(kind: .matrix, quad: box, axisDegrees: 0, moduleSize: 4, score: 40, verified: false)
        XCTAssertEqual(CodeLocator.withoutBlobsAroundLinear([bars, qr]), [bars, qr])
        XCTAssertEqual(CodeLocator.withoutBlobsAroundLinear([bars, blob]), [bars])
    }

    func testACardOverlappingABarCodeDoesNotTurnItsOutline() throws {
        // A generated clip's frame where another code's card lies over the corner of an EAN-13:
        // gradients near where the strip reads the code run along the card's edge; the region's
        // axis, measured over the whole code, does not.
        let clip = try CodeClip(CodeClipOptions(width: 640, height: 360, seed: 1))
        let (image, truth) = clip.frame(at: 29)
        let expected = try XCTUnwrap(truth.first { $0.payload == Array("8357102339555".utf8) })
        let found = image.pixels.withUnsafeBytes {
            try! BarcodeDetector(options: DetectorOptions(locate: .regions)).detect(
                LumaImage(base: $0.baseAddress!, width: image.width, height: image.height, stride: image.width))
        }
        let code = try XCTUnwrap(found.first { $0.text == "8357102339555" })
        let turn = abs((code.quad.rotationDegrees - expected.quad.rotationDegrees).remainder(dividingBy: 180))
        XCTAssertLessThan(turn, 4, "outline along the code: \(code.quad.corners) vs \(expected.quad.corners)")
        XCTAssertGreaterThan(code.quad.topLeft.distance(to: code.quad.bottomLeft), 0.5 * expected.quad.topLeft.distance(to: expected.quad.bottomLeft),
                             "as tall as the bars")
    }
}

final class FinderPatternSearchTests: XCTestCase {
    /// A finder pattern (7 × 7 modules of 3 px) anywhere along a row, across the search's 16- and
    /// 64-pixel words and up to the box's right edge (its last dark run closed by the row's end),
    /// in boxes of widths that are no multiple of either, is found once, at its centre.
    func testAPatternIsFoundWhereverItLiesAlongTheRows() throws {
        for (k, left) in stride(from: 0, to: 130, by: 3).enumerated() {
            let width = 151 + k % 5, height = 40
            var pixels = [UInt8](repeating: 220, count: width * height)
            let x0 = min(left, width - 21), y0 = 9
            for y in 0..<21 {
                for x in 0..<21 {
                    let ring = max(abs(x / 3 - 3), abs(y / 3 - 3))
                    if ring != 2 { pixels[(y0 + y) * width + x0 + x] = 30 }
                }
            }
            let found = pixels.withUnsafeBytes { raw in
                FinderPattern.find(in: LumaImage(base: raw.baseAddress!, width: width, height: height, stride: width),
                                   box: Rect(x: 0, y: 0, width: Double(width), height: Double(height)))
            }
            XCTAssertEqual(found.count, 1, "pattern at x \(x0) in a box \(width) px wide")
            if let f = found.first {
                XCTAssertEqual(f.centre.x, Double(x0) + 10.5, accuracy: 1, "x \(x0)")
                XCTAssertEqual(f.centre.y, Double(y0) + 10.5, accuracy: 1, "x \(x0)")
                XCTAssertEqual(f.moduleSize, 3, accuracy: 0.5)
            }
        }
    }
}

final class GradientSumsTests: XCTestCase {
    /// The vector gradient sums equal the pixel-by-pixel ones on random rows: every grey level
    /// and sign of the products, thresholds from none to all.
    func testVectorSumsEqualThePixelLoop() {
        var state: UInt64 = 11
        for trial in 0..<500 {
            let bytes = (0..<(3 * 20)).map { _ -> UInt8 in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                // Extremes often: the largest products and magnitudes.
                let v = UInt8(truncatingIfNeeded: state >> 33)
                return trial % 3 == 0 ? (v & 1 == 0 ? 0 : 255) : v
            }
            let threshold = [-1, 0, 40, 255, 509, 510, 600][trial % 7]
            bytes.withUnsafeBytes { raw in
                // Rows of 20 bytes: above, the row itself, below; pixel 0 at byte 1 of each.
                let above = raw.baseAddress! + 1, row = raw.baseAddress! + 21, below = raw.baseAddress! + 41
                var want = (0, 0, 0, 0)
                for x in stride(from: 0, to: 16, by: 2) {
                    let gx = Int(row.load(fromByteOffset: x + 1, as: UInt8.self)) - Int(row.load(fromByteOffset: x - 1, as: UInt8.self))
                    let gy = Int(below.load(fromByteOffset: x, as: UInt8.self)) - Int(above.load(fromByteOffset: x, as: UInt8.self))
                    if abs(gx) + abs(gy) > threshold {
                        want.0 += gx * gx; want.1 += gy * gy; want.2 += gx * gy; want.3 += 1
                    }
                }
                let got = CodeLocator.gradientSums(left: row - 1, above: above, below: below, threshold: threshold)
                XCTAssertTrue(got == want, "trial \(trial): \(got) against \(want)")
            }
        }
    }
}
