import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

/// Codes whose bars the localizer merged with what lies beside them.
final class MergedRegionTests: XCTestCase {
    /// A Code 128 40 px tall with random vertical stripes filling the 200 px below it, as a striped
    /// background right under a code looks.
    private func codeOverStripes(rows: Int = 200) throws -> DetectScene {
        var scene = try DetectScene(width: 420, height: 120 + rows)
        try scene.add(CodeMatrix.code128("MERGED-128"), x: 210, y: 60, module: 2, barHeight: 40)
        var state: UInt64 = 99
        var x = 40, dark = true
        while x < 380 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let w = 2 + Int((state >> 33) % 4) * 2
            for xx in x..<min(380, x + w) {
                for y in 82..<(82 + rows) { scene.image[xx, y] = dark ? 40 : 200 }
            }
            x += w
            dark.toggle()
        }
        return scene
    }

    func testAReadingOnOneGroupOfLinesIsConfirmedInANarrowerWindow() throws {
        let scene = try codeOverStripes()
        // One region over the code and the stripes (as the localizer makes when their cells join).
        let merged = LocatedRegion(kind: .linear, quad: Quad(topLeft: Point(x: 20, y: 38), topRight: Point(x: 400, y: 38),
                                                              bottomRight: Point(x: 400, y: 282), bottomLeft: Point(x: 20, y: 282)),
                                   axisDegrees: 0, moduleSize: 2, score: 1, verified: false)
        let detector = try BarcodeDetector(options: DetectorOptions(locate: .regions, threads: 1))
        let found = scene.image.pixels.withUnsafeBytes {
            detector.decodeRefined([merged], in: LumaImage(base: $0.baseAddress!, width: scene.image.width,
                                                           height: scene.image.height, stride: scene.image.width))
        }
        XCTAssertEqual(found.first?.map(\.text), ["MERGED-128"])
        XCTAssertGreaterThanOrEqual(found.first?.first?.quality ?? 0, 2, "confirmed on this frame")
    }

    func testATallRegionNoPassReadIsReadHalfByHalf() throws {
        // A frame of a camera-like clip (H.264, motion blur): a Code 128 card over a photo of
        // another barcode, their bars one region, in which no strip pass reads anything.
        let merged = LocatedRegion(kind: .linear, quad: Quad(topLeft: Point(x: 7.9, y: 79.2), topRight: Point(x: 566.5, y: 8.0),
                                                              bottomRight: Point(x: 616.1, y: 397.4), bottomLeft: Point(x: 57.6, y: 468.6)),
                                   axisDegrees: -7, moduleSize: 2.28, score: 1, verified: false)
        let found = try refined(merged, inFixture: "merged-1d-region.pgm", width: 624, height: 476)
        XCTAssertEqual(found.map(\.text), ["C128-7-5"])
        XCTAssertGreaterThanOrEqual(found.first?.quality ?? 0, 2)
    }

    /// A frame of a camera-like clip (camera seed 37, frame 32, H.264): a Code 128 card's first
    /// frame, its bars in one region with an EAN-13 card's and more (9 modules per strip line).
    /// Its lines average the card's leaning bars away; its upper half reads the card.
    func testARegionOfCodesMergedSideBySideIsReadHalfByHalf() throws {
        let merged = LocatedRegion(kind: .linear, quad: Quad(topLeft: Point(x: -16.8, y: 28.2), topRight: Point(x: 873.5, y: 46.1),
                                                              bottomRight: Point(x: 867.3, y: 355.5), bottomLeft: Point(x: -23.0, y: 337.6)),
                                   axisDegrees: 1, moduleSize: 2.22, score: 1, verified: true)
        XCTAssertLessThan(merged.quad.topLeft.distance(to: merged.quad.bottomLeft), BarcodeDetector.tallRegion * 890,
                          "not tall for its length: merged side by side")
        let found = try refined(merged, inFixture: "merged-1d-codes.pgm", width: 900, height: 380)
        XCTAssertEqual(found.map(\.text), ["C128-37-2"])
        XCTAssertGreaterThanOrEqual(found.first?.quality ?? 0, 2)
    }

    /// A frame of a camera-like clip (camera seed 31, frame 98, H.264): a Code 128 card's first
    /// frame, half blended into the frame before, in one region with EAN-13 cards (lines of 6.5
    /// modules). The region's lines read an EAN-13 only, over under half of it; its halves read
    /// the card too.
    func testARegionReadOverUnderHalfOfItIsReadHalfByHalfToo() throws {
        let merged = LocatedRegion(kind: .linear, quad: Quad(topLeft: Point(x: 7.4, y: 67.5), topRight: Point(x: 1086.9, y: 6.2),
                                                              bottomRight: Point(x: 1104.4, y: 314.0), bottomLeft: Point(x: 24.8, y: 375.3)),
                                   axisDegrees: -3, moduleSize: 2.96, score: 1, verified: true)
        let found = try refined(merged, inFixture: "merged-1d-codes-read.pgm", width: 1110, height: 380)
        let card = try XCTUnwrap(found.first { $0.text == "C128-31-8" })
        XCTAssertGreaterThanOrEqual(card.quality, 2)
        XCTAssertTrue(found.contains { $0.text == "1587580402718" })
    }

    /// The same frame with the clip's tracks (camera seed 31, frame 98): the tracked codes' cells
    /// left out, the card lies in a region of merged codes twice as tall for its module (strip lines
    /// of 12 modules), whose halves are still too tall (6 modules) to read it; its quarters read it.
    func testARegionOfMergedCodesIsCutUntilItsLinesAreShortEnough() throws {
        let merged = LocatedRegion(kind: .linear, quad: Quad(topLeft: Point(x: 6, y: 57), topRight: Point(x: 781, y: 6),
                                                              bottomRight: Point(x: 810, y: 442), bottomLeft: Point(x: 34, y: 493)),
                                   axisDegrees: -3.8, moduleSize: 2.21, score: 1, verified: false)
        let lineModules = merged.quad.topLeft.distance(to: merged.quad.bottomLeft) / (Double(RegionDecoder.stripRows) * merged.moduleSize)
        XCTAssertGreaterThanOrEqual(lineModules / 2, BarcodeDetector.mergedRows, "halves still too tall")
        let found = try refined(merged, inFixture: "merged-1d-codes-tall.pgm", width: 820, height: 500)
        XCTAssertTrue(found.contains { $0.text == "C128-31-8" }, "\(found.map(\.text))")
    }

    /// What `decodeRefined` reads in `region` of the fixture `name` (`width` × `height`), one thread.
    private func refined(_ region: LocatedRegion, inFixture name: String, width: Int, height: Int) throws -> [Detection] {
        let pixels = try fixture(name, width: width, height: height)
        let detector = try BarcodeDetector(options: DetectorOptions(locate: .regions, threads: 1))
        return pixels.withUnsafeBytes {
            detector.decodeRefined([region], in: LumaImage(base: $0.baseAddress!, width: width, height: height, stride: width))
        }.first ?? []
    }

    /// A frame of a camera-like clip (H.264, motion blur): a blurred QR code half under a tracked
    /// Code 128 card. The localizer does not outline it by its finder patterns: only a blob of
    /// texture around both holds it. Returns a scan of it (the codes' text) and the QR code's text.
    private func blobAroundTrackedCode() throws -> (scan: (BarcodeDetector) -> [String], qr: String) {
        let pixels = try fixture("blob-around-tracked-code.pgm", width: 700, height: 720)
        let tracked = Quad(topLeft: Point(x: 203, y: 139), topRight: Point(x: 492, y: 190),
                           bottomRight: Point(x: 493, y: 300), bottomLeft: Point(x: 164, y: 241))
        let scan = { (detector: BarcodeDetector) in
            pixels.withUnsafeBytes {
                detector.scan(LumaImage(base: $0.baseAddress!, width: 700, height: 720, stride: 700), skipping: [tracked]).codes.map(\.text)
            }
        }
        return (scan, "http://google.com/gwt/n?u=bluenile.com")
    }

    func testABlobWrappedAroundATrackedCodeIsDecodedOnItsTurnForTheCodesBesideIt() throws {
        let (scan, qr) = try blobAroundTrackedCode()
        var video = DetectorOptions(locate: .regions, threads: 1)
        video.retryPassesEvery = 3
        let detector = try BarcodeDetector(options: video)
        // Video: on one call in 6 (twice `retryPassesEvery`) only; the tracked code read there is
        // left to its re-decode.
        XCTAssertEqual((1...12).map { _ in scan(detector) }, (1...12).map { $0 % 6 == 0 ? [qr] : [] })
        // Stills: on every call.
        let still = try BarcodeDetector(options: DetectorOptions(locate: .regions, threads: 1))
        XCTAssertEqual(scan(still), [qr])
    }

    /// `reset` (a flush, a warm-up) forgets the calls made: the blob's turns start again as a new detector's.
    func testAResetDetectorScansAsANewOne() throws {
        let (scan, qr) = try blobAroundTrackedCode()
        var video = DetectorOptions(locate: .regions, threads: 1)
        video.retryPassesEvery = 3
        let detector = try BarcodeDetector(options: video)
        XCTAssertEqual((1...3).map { _ in scan(detector) }, [[], [], []])
        // Places that went unread on those calls, counted in the miss ledger.
        let pixels = try fixture("blob-around-tracked-code.pgm", width: 700, height: 720)
        let located = pixels.withUnsafeBytes { detector.locate(LumaImage(base: $0.baseAddress!, width: 700, height: 720, stride: 700)) }
        let missed = located.filter { detector.misses.misses(at: $0) > 0 }
        XCTAssertFalse(missed.isEmpty)
        detector.reset()
        XCTAssertEqual(missed.map { detector.misses.misses(at: $0) }, missed.map { _ in 0 })
        XCTAssertEqual((1...12).map { _ in scan(detector) }, (1...12).map { $0 % 6 == 0 ? [qr] : [] })
    }

    func testABlobAroundATrackedCodeCountsNoMissAndTakesItsTurnByTheTrackedCode() throws {
        // The frame above read for SQ codes only (2D, none there): the blob around the tracked card reads nothing.
        let pixels = try fixture("blob-around-tracked-code.pgm", width: 700, height: 720)
        let tracked = Quad(topLeft: Point(x: 203, y: 139), topRight: Point(x: 492, y: 190),
                           bottomRight: Point(x: 493, y: 300), bottomLeft: Point(x: 164, y: 241))
        var video = DetectorOptions(locate: .regions, threads: 1)
        video.retryPassesEvery = 3
        let detector = try BarcodeDetector(symbologies: Symbology.parseList("sqcode"), options: video)
        try pixels.withUnsafeBytes {
            let luma = LumaImage(base: $0.baseAddress!, width: 700, height: 720, stride: 700)
            let blob = try XCTUnwrap(detector.locate(luma).first { $0.isBlob && $0.quad.contains(tracked.center) })
            for call in 1...6 {
                XCTAssertEqual(detector.scan(luma, skipping: [tracked]).codes.map(\.text), [])
                // Decoded on call 6 without its place's misses deciding how: it counts none.
                XCTAssertEqual(detector.misses.misses(at: blob), 0, "call \(call)")
            }
        }
        // Turns: one call in twice `every`, blobs around different tracked codes on different calls.
        XCTAssertEqual((1...12).filter { BarcodeDetector.aroundTrackedTurn(UInt64($0), every: 3, phase: 0) }, [6, 12])
        XCTAssertEqual((1...12).filter { BarcodeDetector.aroundTrackedTurn(UInt64($0), every: 3, phase: 2) }, [4, 10])
        XCTAssertEqual((1...3).filter { BarcodeDetector.aroundTrackedTurn(UInt64($0), every: 0, phase: 1) }, [1, 2, 3])
    }

    func testAWindowIsCutAcrossTheBarsAroundThePointInsideTheRegion() throws {
        let r = LocatedRegion(kind: .linear, quad: Quad(topLeft: Point(x: 0, y: 0), topRight: Point(x: 100, y: 0),
                                                         bottomRight: Point(x: 100, y: 80), bottomLeft: Point(x: 0, y: 80)),
                              axisDegrees: 0, moduleSize: 2, score: 1, verified: false)
        let w = try XCTUnwrap(r.window(across: 0.25, around: Point(x: 30, y: 40)))
        XCTAssertEqual(w.quad.topLeft.y, 30, accuracy: 1e-9)
        XCTAssertEqual(w.quad.bottomRight.y, 50, accuracy: 1e-9)
        XCTAssertEqual(w.quad.topRight.x, 100, accuracy: 1e-9, "the whole length along the bars' axis")
        // Near the edge: the window stays inside the region.
        let top = try XCTUnwrap(r.window(across: 0.5, around: Point(x: 30, y: 2)))
        XCTAssertEqual(top.quad.topLeft.y, 0, accuracy: 1e-9)
        XCTAssertEqual(top.quad.bottomLeft.y, 40, accuracy: 1e-9)
        XCTAssertNil(r.window(across: 0.05, around: Point(x: 30, y: 40)), "under 8 px")
    }

    func testARegionTakingInATrackedCodeAmongMoreIsDecodedButTheTrackedCodeIsNot() throws {
        var scene = try DetectScene(width: 420, height: 200)
        try scene.add(CodeMatrix.code128("NEW-128"), x: 210, y: 100, module: 2, barHeight: 60)
        let detector = try BarcodeDetector(options: DetectorOptions(locate: .regions, threads: 1))
        let luma = { (body: (LumaImage) -> DetectorResult) in
            scene.image.pixels.withUnsafeBytes {
                body(LumaImage(base: $0.baseAddress!, width: scene.image.width, height: scene.image.height, stride: scene.image.width))
            }
        }
        // A small track near the code's left end: its centre lies in the code's region, which is far larger.
        let small = Quad(topLeft: Point(x: 80, y: 85), topRight: Point(x: 100, y: 85), bottomRight: Point(x: 100, y: 105),
                         bottomLeft: Point(x: 80, y: 105))
        XCTAssertEqual(luma { detector.scan($0, skipping: [small]) }.codes.map(\.text), ["NEW-128"])
        // A track over the code itself: left to its re-decode.
        XCTAssertEqual(luma { detector.scan($0, skipping: [scene.truth[0]]) }.codes.map(\.text), [])
    }

    func testAQRCodeOutlinedByItsFinderPatternsIsDecodedWithATrackedCodeOverItsCorner() throws {
        var scene = try DetectScene(width: 420, height: 300)
        try scene.add(CodeMatrix.qr(text: "UNDER A CARD'S CORNER"), x: 210, y: 150, module: 3)
        let qr = scene.truth[0]
        let detector = try BarcodeDetector(options: DetectorOptions(locate: .regions, threads: 1))
        let scan = { (skipping: [Quad]) in
            scene.image.pixels.withUnsafeBytes {
                detector.scan(LumaImage(base: $0.baseAddress!, width: 420, height: 300, stride: 420), skipping: skipping).codes.map(\.text)
            }
        }
        // A tracked card's corner over the code's bottom-right, where it has no finder pattern: the
        // track's centre lies in the code's region, the code's patterns outside the track.
        let c = qr.bottomRight * 0.8 + qr.center * 0.2
        let card = Quad(topLeft: c + Point(x: -8, y: -8), topRight: c + Point(x: 8, y: -8),
                        bottomRight: c + Point(x: 8, y: 8), bottomLeft: c + Point(x: -8, y: 8))
        XCTAssertEqual(scan([card]), ["UNDER A CARD'S CORNER"])
        // A track over the code itself: left to its re-decode.
        XCTAssertEqual(scan([qr]), [])
    }

    func testARegionIsLeftToATrackedCodeWhenItIsThatCode() {
        func region(_ kind: LocatedRegion.Kind, _ rect: Rect, finders: Bool = false) -> LocatedRegion {
            var r = LocatedRegion(kind: kind, quad: Quad(rect), axisDegrees: 0, moduleSize: 2, score: 1, verified: true)
            r.outlinedByFinderPatterns = finders
            return r
        }
        let tracked = KnownCode(quad: Quad(Rect(x: 100, y: 100, width: 200, height: 100)))
        // Its centre on the code: the code (with its quiet zones), or a part of it.
        XCTAssertTrue(BarcodeDetector.isTrackedCode(region(.linear, Rect(x: 80, y: 90, width: 240, height: 120)), trackedAt: tracked))
        XCTAssertTrue(BarcodeDetector.isTrackedCode(region(.linear, Rect(x: 50, y: 120, width: 400, height: 60)), trackedAt: tracked))
        // Holding the code's centre, under twice its area, but under half of it on the code: the
        // bars of a code beside it merged with it (camera seed 31: a card over a tracked UPC-A code).
        let merged = region(.linear, Rect(x: 60, y: 25, width: 300, height: 130))
        XCTAssertLessThan(merged.quad.area, 2 * tracked.quad.area)
        XCTAssertFalse(BarcodeDetector.isTrackedCode(merged, trackedAt: tracked))
        // A 2D region holding the code's centre: the code, unless outlined by finder patterns.
        XCTAssertTrue(BarcodeDetector.isTrackedCode(region(.matrix, Rect(x: 160, y: 0, width: 300, height: 300)), trackedAt: tracked))
        XCTAssertFalse(BarcodeDetector.isTrackedCode(region(.matrix, Rect(x: 160, y: 0, width: 300, height: 300), finders: true), trackedAt: tracked))
        // Of a known kind: a region of another kind is another code (a 1D label over a tracked QR code).
        let onCode = Rect(x: 80, y: 90, width: 240, height: 120)
        let qr = KnownCode(quad: tracked.quad, kind: .matrix), linear = KnownCode(quad: tracked.quad, kind: .linear)
        XCTAssertFalse(BarcodeDetector.isTrackedCode(region(.linear, onCode), trackedAt: qr))
        XCTAssertTrue(BarcodeDetector.isTrackedCode(region(.linear, onCode), trackedAt: linear))
        XCTAssertTrue(BarcodeDetector.isTrackedCode(region(.matrix, onCode), trackedAt: qr))
    }

    func testA1DLabelOverATrackedQRCodeIsReadWhenTheTrackedCodesKindIsKnown() throws {
        var scene = try DetectScene(width: 480, height: 320)
        try scene.add(CodeMatrix.qr(text: "UNDER A LABEL"), x: 200, y: 150, module: 4)
        let qr = scene.truth[0]
        // The label's centre on the QR code's lower right, its bars reaching past the code.
        let c = qr.bottomRight * 0.3 + qr.center * 0.7
        try scene.add(CodeMatrix.code128("LABEL-128"), x: c.x, y: c.y, module: 2, barHeight: 50)
        XCTAssertTrue(qr.contains(scene.truth[1].center))
        let detector = try BarcodeDetector(options: DetectorOptions(locate: .regions, threads: 1))
        let scan = { (known: KnownCode) in
            scene.image.pixels.withUnsafeBytes {
                detector.scan(LumaImage(base: $0.baseAddress!, width: 480, height: 320, stride: 480), skipping: [known],
                              expecting: [], kinds: []).result
            }
        }
        let read = scan(KnownCode(quad: qr, kind: .matrix))
        XCTAssertEqual(read.codes.map(\.text), ["LABEL-128"])
        XCTAssertEqual(read.located, [], "nothing located on the tracked code")
        // Of unknown kind, the tracked code takes in whatever lies on it.
        XCTAssertEqual(scan(KnownCode(quad: qr)).codes.map(\.text), [])
        // A tracked 1D code there: the reading is its own.
        XCTAssertEqual(scan(KnownCode(quad: qr, kind: .linear)).codes.map(\.text), [])
    }
}
