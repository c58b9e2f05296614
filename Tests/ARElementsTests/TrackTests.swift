import ARCodeGen
import ARCore
@testable import ARElements
import ARGst
import ARVision
import XCTest

final class TrackTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000
    private let frameNs: UInt64 = 33_333_333

    func testIdsStayTheSameAcrossFramesWhileCodesMove() throws {
        let h = Harness("arbarcodetrack detect-mode=sync", caps: TestFrame(width: 320, height: 240).i420Caps)
        var idsByText: [String: Set<UInt64>] = [:]
        for i in 0..<8 {
            var f = TestFrame(width: 320, height: 240)
            f.addQR("LEFT", x: 70 + Double(i) * 4, y: 120, module: 3)
            f.addQR("RIGHT", x: 240, y: 80 + Double(i) * 5, module: 3)
            let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
            XCTAssertEqual(Set(regions.map(\.text)), ["LEFT", "RIGHT"], "frame \(i)")
            for r in regions {
                // Read on its turn, followed by the image motion on the frames between.
                XCTAssertTrue([.detected, .tracked].contains(r.state), "frame \(i): \(r.state)")
                idsByText[r.text, default: []].insert(try XCTUnwrap(r.trackID))
                assertQuad(r.quad, f.truth.first { $0.text == r.text }!.quad, within: 2)
            }
        }
        XCTAssertEqual(idsByText["LEFT"]?.count, 1)
        XCTAssertEqual(idsByText["RIGHT"]?.count, 1)
        XCTAssertNotEqual(idsByText["LEFT"], idsByText["RIGHT"])
    }

    func testALoopingSourceKeepsTheIdsOfCodesInPlaceUntilADiscont() throws {
        let h = Harness("arbarcodetrack detect-mode=sync", caps: TestFrame(width: 320, height: 240).i420Caps)
        var f = TestFrame(width: 320, height: 240)
        f.addQR("LEFT", x: 80, y: 120, module: 3)
        f.addQR("RIGHT", x: 240, y: 100, module: 3)
        var ids: [String: Set<UInt64>] = [:]
        // Three loops of frames 0…5: timestamps back to 0 without a discontinuity.
        for loop in 0..<3 {
            for i in 0..<6 {
                let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
                XCTAssertEqual(Set(regions.map(\.text)), ["LEFT", "RIGHT"], "loop \(loop) frame \(i)")
                XCTAssertTrue(Set(regions.map(\.state)).isSubset(of: [.detected, .tracked]), "loop \(loop) frame \(i)")
                for r in regions { ids[r.text, default: []].insert(try XCTUnwrap(r.trackID)) }
            }
        }
        XCTAssertEqual(ids["LEFT"]?.count, 1)
        XCTAssertEqual(ids["RIGHT"]?.count, 1)
        // A DISCONT buffer still starts afresh: new ids.
        let after = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0, discont: true)).regions
        XCTAssertEqual(after.count, 2)
        for r in after { XCTAssertFalse(ids[r.text]?.contains(try XCTUnwrap(r.trackID)) ?? true, r.text) }
    }

    /// `redecode-interval=3`: each of two still codes is read on the first frame, then on its turn
    /// (one frame in three, the two turns apart); `1` reads both on every frame; the default, 2, on
    /// every other frame, the two turns apart.
    func testTrackedCodesAreReDecodedOnTheirTurns() throws {
        var f = TestFrame(width: 320, height: 240)
        f.addQR("LEFT", x: 80, y: 120, module: 3)
        f.addQR("RIGHT", x: 240, y: 100, module: 3)
        for (interval, property) in [(3, " redecode-interval=3"), (1, " redecode-interval=1"), (2, "")] {
            let h = Harness("arbarcodetrack detect-mode=sync" + property, caps: f.i420Caps)
            var readOn: [UInt64: [Int]] = [:]
            for i in 0..<10 {
                let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
                XCTAssertEqual(regions.count, 2, "frame \(i)")
                for r in regions {
                    let id = try XCTUnwrap(r.trackID)
                    XCTAssertEqual(r.state, readOn[id] == nil || interval == 1 || (i + Int(id)) % interval == 0 ? .detected : .tracked,
                                   "interval \(interval), frame \(i), track \(id)")
                    if r.state == .detected { readOn[id, default: []].append(i) }
                }
            }
            XCTAssertEqual(readOn.keys.sorted(), [1, 2])
            XCTAssertEqual(readOn[1], [3: [0, 2, 5, 8], 2: [0, 1, 3, 5, 7, 9]][interval] ?? Array(0..<10))
            XCTAssertEqual(readOn[2], [3: [0, 1, 4, 7], 2: [0, 2, 4, 6, 8]][interval] ?? Array(0..<10))
        }
    }

    func testTrackOutlivesMissedDecodesUntilExpiryThenIsLostOnce() throws {
        let h = Harness("arbarcodetrack detect-mode=sync expiry=0.5", caps: TestFrame(width: 240, height: 240).i420Caps)
        var withCode = TestFrame(width: 240, height: 240)
        withCode.addQR("BLINK", x: 120, y: 120, module: 4)
        let blank = TestFrame(width: 240, height: 240)

        let first = try XCTUnwrap(h.process(withCode.i420, ptsNanoseconds: 0)).regions
        let id = try XCTUnwrap(first.first?.trackID)
        // Hidden for 0.4 s: still tracked, same id, last position.
        let hidden = try XCTUnwrap(h.process(blank.i420, ptsNanoseconds: 4 * second / 10)).regions
        XCTAssertEqual(hidden.map(\.trackID), [id])
        XCTAssertEqual(hidden.first?.state, .tracked)
        assertQuad(try XCTUnwrap(hidden.first).quad, withCode.truth[0].quad, within: 2)
        // Back within expiry: same id.
        let back = try XCTUnwrap(h.process(withCode.i420, ptsNanoseconds: 5 * second / 10)).regions
        XCTAssertEqual(back.map(\.trackID), [id])
        XCTAssertEqual(back.first?.state, .detected)
        // Gone for longer than expiry: reported lost once, then removed.
        let lost = try XCTUnwrap(h.process(blank.i420, ptsNanoseconds: 11 * second / 10)).regions
        XCTAssertEqual(lost.map(\.state), [.lost])
        XCTAssertEqual(lost.first?.trackID, id)
        XCTAssertEqual(try XCTUnwrap(h.process(blank.i420, ptsNanoseconds: 12 * second / 10)).regions.count, 0)
        // A new appearance after removal gets a new id.
        let again = try XCTUnwrap(h.process(withCode.i420, ptsNanoseconds: 13 * second / 10)).regions
        XCTAssertEqual(again.count, 1)
        XCTAssertNotEqual(again.first?.trackID, id)
    }

    /// A code no decode reads after frame 0 (no full scan, its re-decode due on frame 29) lives past
    /// `expiry` while its place looks like it, up to `follow-limit`; once it is gone, it is lost on
    /// its second frame gone. With `follow-limit=0`: lost at expiry (0.1 s: frame 4).
    func testAFollowedCodeOutlivesExpiryUnreadAndIsLostOnceGone() throws {
        var withCode = TestFrame(width: 240, height: 240)
        withCode.addQR("FOLLOW", x: 120, y: 120, module: 4)
        let blank = TestFrame(width: 240, height: 240)
        for limit in [1.0, 0] {
            let h = Harness("arbarcodetrack detect-mode=sync detect-interval=1000 redecode-interval=30 expiry=0.1 follow-limit=\(limit)",
                            caps: withCode.i420Caps)
            var states: [TrackState] = [], ids: Set<UInt64> = []
            for i in 0..<12 {
                let regions = try XCTUnwrap(h.process((i < 8 ? withCode : blank).i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
                XCTAssertLessThanOrEqual(regions.count, 1, "frame \(i)")
                states += regions.map(\.state)
                ids.formUnion(regions.compactMap(\.trackID))
            }
            XCTAssertEqual(ids.count, 1, "follow-limit=\(limit): one track")
            XCTAssertEqual(states, limit > 0 ? [.detected] + Array(repeating: .tracked, count: 8) + [.lost]
                                             : [.detected, .tracked, .tracked, .tracked, .lost], "follow-limit=\(limit)")
        }
    }

    func testACoveredCodeIsOccludedOnItsSecondCoveredFrameUnmovedAndComesBackUnderItsId() throws {
        var withCode = TestFrame(width: 240, height: 240)
        withCode.addQR("COVER", x: 120, y: 120, module: 4)
        // A box with print on it in front of the code: stripes, not the code's texture.
        var covered = withCode
        for y in 60..<180 { for x in 60..<180 { covered.image[x, y] = (x / 7 + y / 11) % 2 == 0 ? 50 : 190 } }
        for occlusion in [true, false] {
            // Every track read on every frame it can be: the states follow the cover frame by frame.
            let h = Harness("arbarcodetrack detect-mode=sync redecode-interval=1 occlusion=\(occlusion)", caps: withCode.i420Caps)
            var states: [TrackState] = []
            var ids: Set<UInt64> = []
            var quads: [Quad] = []
            for (i, f) in [withCode, withCode, covered, covered, covered, withCode].enumerated() {
                let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
                XCTAssertEqual(regions.count, 1, "frame \(i)")
                states += regions.map(\.state)
                ids.formUnion(regions.compactMap(\.trackID))
                quads += regions.map(\.quad)
            }
            // Within 0.1 s: the second covered frame.
            XCTAssertEqual(states, occlusion ? [.detected, .detected, .tracked, .occluded, .occluded, .detected]
                                             : [.detected, .detected, .tracked, .tracked, .tracked, .detected], "occlusion=\(occlusion)")
            XCTAssertEqual(ids.count, 1, "one id throughout")
            if occlusion { assertQuad(quads[3], quads[1], within: 0.5) }
        }
    }

    /// Async: a reading the worker made on the last frame the code was seen, collected after the
    /// code was covered, does not bring its occluded track back (it would be drawn over the cover).
    func testAnAsyncReadingMadeBeforeACodeWasCoveredDoesNotEndItsOcclusion() throws {
        var withCode = TestFrame(width: 240, height: 240)
        withCode.addQR("COVER", x: 120, y: 120, module: 4)
        var covered = withCode
        for y in 60..<180 { for x in 60..<180 { covered.image[x, y] = (x / 7 + y / 11) % 2 == 0 ? 50 : 190 } }
        let executor = SteppedExecutor()
        ArBarcodeTrack.workerExecutor = { executor }
        defer { ArBarcodeTrack.workerExecutor = nil }
        // Re-decoded on every frame: the states below follow each frame's reading. Stepped jobs run
        // between frames only, so no frame waits for one (`async-wait=0`, here and below).
        let h = Harness("arbarcodetrack detect-mode=async async-wait=0 redecode-interval=1", caps: withCode.i420Caps)
        func states(_ f: TestFrame, _ i: UInt64) throws -> [TrackState] {
            let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: i * frameNs)).regions
            XCTAssertTrue(regions.allSatisfy { $0.text == "COVER" && $0.trackID == 1 }, "frame \(i)")
            return regions.map(\.state)
        }
        XCTAssertEqual(try states(withCode, 0), [], "frame 0: its full scan is submitted")
        XCTAssertTrue(executor.runNext())
        XCTAssertEqual(try states(withCode, 1), [.detected], "frame 1: the scan of frame 0 collected; frame 1's submitted")
        XCTAssertEqual(try states(covered, 2), [.tracked])
        XCTAssertEqual(try states(covered, 3), [.occluded])
        // Frame 1's decode finishes now and is collected on frame 4, where the code is still covered.
        XCTAssertTrue(executor.runNext())
        XCTAssertEqual(try states(covered, 4), [.occluded], "a reading of frame 1 carried over the cover")
        XCTAssertTrue(executor.runNext(), "frame 4's decode: the cover, nothing read")
        XCTAssertEqual(try states(withCode, 5), [.occluded], "uncovered: its place looks like the code on one frame, not yet two")
        // Frame 5's full scan reads it (an occluded track's place is scanned afresh); then each full
        // scan re-decodes the tracked code too.
        var later: [TrackState] = []
        for i in UInt64(6)...9 {
            XCTAssertTrue(executor.runNext())
            later += try states(withCode, i)
        }
        XCTAssertEqual(later, [.detected, .detected, .detected, .detected], "read again under its id")
    }

    /// Async: a code that moved while covered is read again, on a frame before the one that
    /// collects the reading; its occluded track stood still, so the reading is carried by the
    /// image motion, and the track is drawn where the code is.
    func testAnAsyncReadingOfACodeThatMovedWhileCoveredIsCarriedToWhereItIsNow() throws {
        func frame(_ x: Double?) -> TestFrame {
            var f = TestFrame(width: 320, height: 240)
            // Print on the background, for the image motion to follow.
            for y in 0..<240 { for x in 0..<320 where (x / 9 + y / 13) % 3 == 0 { f.image[x, y] = 150 } }
            if let x { f.addQR("MOVES", x: x, y: 120, module: 4) } else {
                for y in 50..<190 { for x in 60..<260 { f.image[x, y] = (x / 7 + y / 11) % 2 == 0 ? 50 : 190 } }
            }
            return f
        }
        let executor = SteppedExecutor()
        ArBarcodeTrack.workerExecutor = { executor }
        defer { ArBarcodeTrack.workerExecutor = nil }
        let h = Harness("arbarcodetrack detect-mode=async async-wait=0", caps: frame(nil).i420Caps)
        func regions(_ f: TestFrame, _ i: UInt64) throws -> [BarcodeRegion] {
            let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: i * frameNs)).regions
            XCTAssertTrue(regions.allSatisfy { $0.text == "MOVES" && $0.trackID == 1 }, "frame \(i)")
            return regions
        }
        _ = try regions(frame(120), 0)
        XCTAssertTrue(executor.runNext())
        XCTAssertEqual(try regions(frame(120), 1).map(\.state), [.detected])
        // Covered: occluded on the second covered frame; the decodes submitted meanwhile read nothing.
        XCTAssertEqual(try regions(frame(nil), 2).map(\.state), [.tracked])
        XCTAssertTrue(executor.runNext())
        XCTAssertEqual(try regions(frame(nil), 3).map(\.state), [.occluded])
        XCTAssertTrue(executor.runNext())
        // Uncovered 16 px to the right, read there; collected one frame later, 8 px further on.
        _ = try regions(frame(136), 4)
        XCTAssertTrue(executor.runNext())
        let now = frame(144)
        let r = try XCTUnwrap(try regions(now, 5).first)
        XCTAssertEqual(r.state, .detected)
        assertQuad(r.quad, now.truth[0].quad, within: 2)
    }

    /// A code read once more as it fades out (H.264 leaves a faint ghost of it for a frame or two)
    /// keeps its crisp look: when only the print beneath is left, its place no longer looks like it.
    func testACodeReadAsAFaintGhostIsStillOccludedOnceItIsGone() throws {
        // Print on a light card (squares of 24 px), and the code on top of it.
        var print = TestFrame(width: 240, height: 240)
        for y in 0..<240 { for x in 0..<240 { print.image[x, y] = (x / 24 + y / 24) % 2 == 0 ? 205 : 245 } }
        var crisp = print
        crisp.addQR("GHOST", x: 120, y: 120, module: 4)
        // The code at 30 % of its contrast over the print: still read, a quarter as contrasted.
        let ghost = Self.ghost(of: crisp, over: print, contrast: 0.3)
        // Re-decoded on every frame: the states below follow each frame's reading.
        let h = Harness("arbarcodetrack detect-mode=sync redecode-interval=1", caps: crisp.i420Caps)
        // With the ghost's look kept, the print alone would look like it: `tracked` to the end.
        XCTAssertEqual(try states(of: "GHOST", h, [crisp, crisp, ghost, print, print, print]),
                       [.detected, .detected, .detected, .tracked, .occluded, .occluded])
    }

    /// `crisp` (a code drawn over `print`) faded to `contrast` of the code's own over `print`: its
    /// ghost in H.264's next frames after the code is gone.
    private static func ghost(of crisp: TestFrame, over print: TestFrame, contrast: Double) -> TestFrame {
        var ghost = print
        for i in ghost.image.pixels.indices {
            ghost.image.pixels[i] = UInt8(Double(print.image.pixels[i]) - Double(255 - Int(crisp.image.pixels[i])) * contrast)
        }
        return ghost
    }

    /// The states of `text`'s track (id 1, the only one) on `frames` pushed through `h`, one frame
    /// apart; with `executor`, its next job is run after each frame.
    private func states(of text: String, _ h: Harness, _ frames: [TestFrame], executor: SteppedExecutor? = nil) throws -> [TrackState] {
        var states: [TrackState] = []
        for (i, f) in frames.enumerated() {
            let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
            XCTAssertTrue(regions.allSatisfy { $0.text == text && $0.trackID == 1 }, "frame \(i)")
            states += regions.map(\.state)
            if let executor { XCTAssertTrue(executor.runNext(), "frame \(i)") }
        }
        return states
    }

    /// A Code 128 code over print of stripes across its bars (12 px, `dark` and 250; by default more
    /// contrast than its ghost's bars), the print alone, and the code's ghost at `ghostContrast` of
    /// its contrast (by default 35 %: still read on every scan line; its look unlike the code's, the
    /// print's like it). `down`: everything moved that many px down (along the bars); `band`: the
    /// stripes' width, px.
    private static func codeOverStripes(dark: UInt8 = 90, ghostContrast: Double = 0.35, down: Int = 0, band: Int = 12) throws
        -> (crisp: TestFrame, print: TestFrame, ghost: TestFrame) {
        var print = TestFrame(width: 320, height: 240)
        for y in 0..<240 { for x in 0..<320 { print.image[x, y] = ((y + 2 * band - down % (2 * band)) / band) % 2 == 0 ? dark : 250 } }
        var crisp = print
        _ = try CodeRenderer().render(CodeMatrix.code128("GHOST-128"),
                                      placement: CodePlacement(center: Point(x: 160, y: 120 + Double(down)), moduleSize: 2, barHeight: 60),
                                      into: &crisp.image)
        return (crisp, print, ghost(of: crisp, over: print, contrast: ghostContrast))
    }

    /// A code read once more in its ghost over strong print (H.264's next frame after its card is
    /// gone: the bars blended into what was behind them), on the frame its place first stops looking
    /// like it, keeps its crisp look: the print left there looks like the ghost, not like the code,
    /// and the track is occluded instead of drawn on the print until expiry.
    func testACodeReadInItsGhostOverStrongPrintIsOccludedOnceItIsGone() throws {
        let (crisp, print, ghost) = try Self.codeOverStripes()
        // Re-decoded on every frame: the states below follow each frame's reading.
        let h = Harness("arbarcodetrack detect-mode=sync redecode-interval=1", caps: crisp.i420Caps)
        // With the ghost's look taken, the print would look like it: `tracked` to the end.
        XCTAssertEqual(try states(of: "GHOST-128", h, [crisp, crisp, ghost, print, print, print]),
                       [.detected, .detected, .detected, .tracked, .occluded, .occluded])
    }

    /// An occluded code's place that looks only somewhat like it does not show it again: another
    /// card's blurred bars left where a code was can look as much like it. Here its own bars,
    /// smeared over 10 px (5 modules: similarity 0.5 to its look, not read), after two blank frames.
    func testAnOccludedCodeIsShownAgainOnlyWhereItsPlaceLooksClearlyLikeIt() throws {
        var crisp = TestFrame(width: 320, height: 240, background: 235)
        _ = try CodeRenderer().render(CodeMatrix.code128("GHOST-128"),
                                      placement: CodePlacement(center: Point(x: 160, y: 120), moduleSize: 2, barHeight: 60),
                                      into: &crisp.image)
        let blank = TestFrame(width: 320, height: 240, background: 235)
        var smeared = crisp
        for y in 0..<240 {
            for x in 0..<320 {
                let lo = max(0, x - 5), hi = min(319, x + 4)
                smeared.image[x, y] = UInt8((lo...hi).map { Int(crisp.image[$0, y]) }.reduce(0, +) / (hi - lo + 1))
            }
        }
        // Re-decoded on every frame: the states below follow each frame's reading.
        let h = Harness("arbarcodetrack detect-mode=sync redecode-interval=1", caps: crisp.i420Caps)
        var states: [TrackState] = []
        for (i, f) in [crisp, crisp, blank, blank, smeared, smeared, smeared].enumerated() {
            let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
            // The smeared bars are located (a 1D region not read), apart from the track.
            XCTAssertEqual(regions.filter { $0.state != .located }.map(\.text), ["GHOST-128"], "frame \(i)")
            states += regions.filter { $0.state != .located }.map(\.state)
        }
        // Ending the occlusion at the similarity that keeps a seen code seen (0.45): `tracked` from frame 5.
        XCTAssertEqual(states, [.detected, .detected, .tracked, .occluded, .occluded, .occluded, .occluded])
    }

    /// An occluded code's place on another code in view: here its own bars, broken in the middle
    /// (not read), pasted into a QR code that is read over them. Its place looks like it, but two
    /// codes cannot overlap: it stays occluded (shown again after two frames without that rule).
    func testAnOccludedCodeStaysOccludedWhereAnotherCodeInViewCoversItsPlace() throws {
        var alone = TestFrame(width: 400, height: 300)
        let quad = try CodeRenderer().render(CodeMatrix.code128("AB"),
                                             placement: CodePlacement(center: Point(x: 200, y: 150), moduleSize: 1.5, barHeight: 30),
                                             into: &alone.image)
        let blank = TestFrame(width: 400, height: 300)
        var cover = blank
        _ = try CodeRenderer().render(CodeMatrix.qr(text: "COVER", errorCorrection: .high),
                                      placement: CodePlacement(center: Point(x: 200, y: 150), moduleSize: 12), into: &cover.image)
        let xs = quad.corners.map(\.x), ys = quad.corners.map(\.y)
        for y in Int(ys.min()!)...Int(ys.max()!) {
            for x in Int(xs.min()!)...Int(xs.max()!) {
                cover.image[x, y] = abs(x - 200) < 3 ? 0 : alone.image[x, y]
            }
        }
        let h = Harness("arbarcodetrack detect-mode=sync redecode-interval=1", caps: alone.i420Caps)
        var states: [String] = []
        for (i, f) in [alone, alone, blank, blank, cover, cover, cover, cover].enumerated() {
            let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
            XCTAssertEqual(regions.filter { $0.text == "COVER" }.map(\.state), i < 4 ? [] : [.detected], "frame \(i)")
            states += regions.filter { $0.text == "AB" }.map { "\($0.state)" }
        }
        XCTAssertEqual(states, ["detected", "detected", "tracked", "occluded", "occluded", "occluded", "occluded", "occluded"])
    }

    /// A 1D code gone, another code's wide bars in its place (here drawn over it, so it is not
    /// read): their look correlates with the code's at 0.45–0.6 with twice its contrast. A place that
    /// much crisper than the code's look must look like it at 0.6: it is occluded after 2 frames
    /// (`tracked` to the end at 0.45).
    func testA1DCodesPlaceMuchCrisperThanItsLookMustLookClearlyLikeIt() throws {
        let (code, quad) = try Self.code128Frame("CRISP-128")
        // Bars 12 px wide every 30 px over the code.
        var wide = code
        let xs = quad.corners.map(\.x), ys = quad.corners.map(\.y)
        for y in Int(ys.min()!)...Int(ys.max()!) {
            for x in Int(xs.min()!)...Int(xs.max()!) where (x - Int(xs.min()!)) % 30 < 12 { wide.image[x, y] = 10 }
        }
        // The setup itself: a weak likeness at much more contrast.
        let look = try XCTUnwrap(Appearance(LumaPyramid(code.image, levelCount: 4), quad: quad))
        let place = try XCTUnwrap(Appearance(LumaPyramid(wide.image, levelCount: 4), quad: quad))
        XCTAssertGreaterThanOrEqual(place.similarity(to: look), Appearance.sameCodeSimilarity)
        XCTAssertLessThan(place.similarity(to: look), 0.6)
        XCTAssertGreaterThan(place.contrast, 1.6 * look.contrast)
        XCTAssertEqual(try trackedStates("CRISP-128", [code, code, wide, wide, wide, wide]).states,
                       [.detected, .detected, .tracked, .occluded, .occluded, .occluded])
    }

    /// A Code 128 `text` (1.5 px modules, bars 60 px tall) in the middle of a 320 × 240 frame of
    /// grey 235, and its outline.
    private static func code128Frame(_ text: String) throws -> (TestFrame, Quad) {
        var frame = TestFrame(width: 320, height: 240, background: 235)
        let quad = try CodeRenderer().render(CodeMatrix.code128(text),
                                             placement: CodePlacement(center: Point(x: 160, y: 120), moduleSize: 1.5, barHeight: 60),
                                             into: &frame.image)
        return (frame, quad)
    }

    /// The states of the one code `text` tracked over `frames` (sync, re-decoded on every frame;
    /// located regions left out), and its outline on the second frame.
    private func trackedStates(_ text: String, _ frames: [TestFrame]) throws -> (states: [TrackState], second: Quad?) {
        let h = Harness("arbarcodetrack detect-mode=sync redecode-interval=1", caps: frames[0].i420Caps)
        var states: [TrackState] = [], second: Quad?
        for (i, f) in frames.enumerated() {
            let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions.filter { $0.state != .located }
            XCTAssertEqual(regions.map(\.text), [text], "frame \(i)")
            states += regions.map(\.state)
            if i == 1 { second = regions.first?.quad }
        }
        return (states, second)
    }

    /// A 1D code gone, a faint print of most of it left in its place (the photo a card leaves
    /// behind, here its own print): its look correlates with the code's at 0.45–0.6 with under
    /// 1/1.6 of its contrast. It must look like it at 0.6 too: occluded after 2 frames.
    func testA1DCodesPlaceMuchFlatterThanItsLookMustLookClearlyLikeIt() throws {
        let (code, quad) = try Self.code128Frame("FLAT-128")
        // Left behind: a faint print of the code's left part, too little of it to read.
        var faint = code
        let xs = quad.corners.map(\.x), ys = quad.corners.map(\.y)
        let cut = Int(xs.min()! + (xs.max()! - xs.min()!) * 0.85)
        for y in Int(ys.min()!)...Int(ys.max()!) {
            for x in Int(xs.min()!)...Int(xs.max()!) {
                faint.image[x, y] = x < cut ? UInt8(235 - (235 - Int(code.image[x, y])) * 40 / 100) : 255
            }
        }
        let (states, tracked) = try trackedStates("FLAT-128", [code, code, faint, faint, faint, faint])
        XCTAssertEqual(states, [.detected, .detected, .tracked, .occluded, .occluded, .occluded])
        // The setup itself, where the code is tracked: a weak likeness at much less contrast.
        let at = try XCTUnwrap(tracked)
        let look = try XCTUnwrap(Appearance(LumaPyramid(code.image, levelCount: 4), quad: at))
        let place = try XCTUnwrap(Appearance(LumaPyramid(faint.image, levelCount: 4), quad: at))
        XCTAssertGreaterThanOrEqual(place.similarity(to: look), Appearance.sameCodeSimilarity)
        XCTAssertLessThan(place.similarity(to: look), 0.6)
        XCTAssertLessThan(1.6 * place.contrast, look.contrast)
    }

    /// A code read once more in a ghost strong enough to give its look (65 % of its contrast, over
    /// light stripes behind it), the print then left alone: at the look's coarse scale the print looks
    /// like that ghost, but along the code's middle line it changes shade a fraction as often as
    /// the bars do. The code standing still, blur does not explain it: occluded, not drawn on the
    /// print until expiry.
    func testA1DCodesPlaceThatLostItsBarsWhileStillIsOccluded() throws {
        let (crisp, print, ghost) = try Self.codeOverStripes(dark: 170, ghostContrast: 0.65)
        let h = Harness("arbarcodetrack detect-mode=sync redecode-interval=1", caps: crisp.i420Caps)
        XCTAssertEqual(try states(of: "GHOST-128", h, [crisp, crisp, ghost, print, print, print, print]),
                       [.detected, .detected, .detected, .tracked, .occluded, .occluded, .occluded])
    }

    /// As above with the scene moving down, along the bars, 8 px a frame: more than twice the bars'
    /// spacing, but motion along the bars does not blur them away, so their loss still counts.
    func testA1DCodesPlaceThatLostItsBarsWhileMovingAlongThemIsOccluded() throws {
        let frames = try (0..<7).map { try Self.codeOverStripes(dark: 170, ghostContrast: 0.65, down: 16 * $0, band: 24) }
        let h = Harness("arbarcodetrack detect-mode=sync redecode-interval=1", caps: frames[0].crisp.i420Caps)
        XCTAssertEqual(try states(of: "GHOST-128", h, [frames[0].crisp, frames[1].crisp, frames[2].ghost]
                                    + frames[3...].map(\.print)),
                       [.detected, .detected, .detected, .tracked, .occluded, .occluded, .occluded])
    }

    /// Async: the worker's reading of the ghost, made on the frame the code's place first stopped
    /// looking like it and collected on a later one, keeps the crisp look too.
    func testAnAsyncReadingOfACodesGhostKeepsItsCrispLook() throws {
        let (crisp, print, ghost) = try Self.codeOverStripes()
        let executor = SteppedExecutor()
        ArBarcodeTrack.workerExecutor = { executor }
        defer { ArBarcodeTrack.workerExecutor = nil }
        // Re-decoded on every frame: the states below follow each frame's reading.
        let h = Harness("arbarcodetrack detect-mode=async async-wait=0 redecode-interval=1", caps: crisp.i420Caps)
        // Each frame's scan (with the track's re-decode) is collected on the next; the ghost is read on
        // frame 4 and collected on frame 5, where the print does not look like the crisp code: the
        // track is occluded from frame 6 (with the ghost's look, `tracked` to the end).
        XCTAssertEqual(try states(of: "GHOST-128", h, [crisp, crisp, crisp, crisp, ghost, print, print, print, print], executor: executor),
                       [.detected, .detected, .detected, .detected, .detected, .occluded, .occluded, .occluded])
    }

    /// Async: a reading handed over early on the frame a code's place first stopped looking like
    /// it (a job that outlived that frame's wait, held there by `TrackDecodeWorker.partHandedOver`),
    /// then again with the job's whole result on the next frame, is one reading, not one on the
    /// next frame too: the old look stays. Here the code is printed inverted for a frame (a look
    /// unlike its own, read as H.264's ghost of a card is), then left inverted with its middle
    /// bars reversed (located, not read): occluded on its second such frame; with the inverted
    /// look taken from the second hand-over, `tracked` to the end.
    func testAnAsyncReadingHandedOverEarlyThenWithItsWholeResultCountsOnce() throws {
        var crisp = TestFrame(width: 320, height: 240, background: 235)
        _ = try CodeRenderer().render(CodeMatrix.code128("GHOST-128"),
                                      placement: CodePlacement(center: Point(x: 160, y: 120), moduleSize: 2, barHeight: 60),
                                      into: &crisp.image)
        var inverted = crisp
        for i in inverted.image.pixels.indices { inverted.image.pixels[i] = 255 - crisp.image.pixels[i] }
        var unreadable = inverted
        for y in 0..<240 { for x in 156..<164 { unreadable.image[x, y] = crisp.image[x, y] } }
        // Frame 2's job is held at its first part until frame 2 is out (then every part passes).
        let hold = PartHold()
        defer { hold.stop() }
        let h = Self.heldAsyncHarness(caps: crisp.i420Caps)
        var states: [TrackState] = []
        for (i, f) in [crisp, crisp, inverted, unreadable, unreadable, unreadable].enumerated() {
            if i == 2 { hold.arm() }
            let tracks = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * 2 * second)).regions.filter { $0.trackID != nil }
            if i == 2 {
                XCTAssertGreaterThan(hold.parts, 0, "frame 2's job handed over a part and was held")
                hold.release()
            }
            XCTAssertTrue(tracks.allSatisfy { $0.text == "GHOST-128" && $0.trackID == 1 }, "frame \(i)")
            states += tracks.map(\.state)
        }
        XCTAssertEqual(states, [.detected, .detected, .detected, .detected, .occluded, .occluded])
    }

    /// A code whose place stops looking like its last look while it is still read there on the
    /// next frame too (here: printed inverted in its place) takes its new look: when it is then
    /// not read (its finder patterns' middles rubbed out), its place still looks like it.
    func testACodeReadOnTwoFramesInARowWithANewLookTakesIt() throws {
        var crisp = TestFrame(width: 240, height: 240)
        crisp.addQR("NEW LOOK", x: 120, y: 120, module: 4)
        var inverted = crisp
        for i in inverted.image.pixels.indices { inverted.image.pixels[i] = 255 - crisp.image.pixels[i] }
        // Each finder pattern's 3 × 3 middle filled with its ring's colour: not read, the same look.
        var rubbed = inverted
        let corner = try XCTUnwrap(crisp.truth.first).quad.corners
        for (cx, cy) in [(corner[0].x + 14, corner[0].y + 14), (corner[1].x - 14, corner[1].y + 14), (corner[3].x + 14, corner[3].y - 14)] {
            for y in Int(cy) - 6..<Int(cy) + 6 { for x in Int(cx) - 6..<Int(cx) + 6 { rubbed.image[x, y] = 0 } }
        }
        let h = Harness("arbarcodetrack detect-mode=sync", caps: crisp.i420Caps)
        // Kept from its first frame to the end, the old look would have it occluded on the second rubbed frame.
        XCTAssertEqual(try states(of: "NEW LOOK", h, [crisp, crisp, inverted, inverted, rubbed, rubbed, rubbed]),
                       [.detected, .detected, .detected, .detected, .tracked, .tracked, .tracked])
    }

    /// Async with a 1 s wait (within half of a 0.5 fps frame, `caps` made so); tracks outlive a
    /// frame; re-decoded on every frame.
    private static func heldAsyncHarness(caps: String) -> Harness {
        Harness("arbarcodetrack detect-mode=async async-wait=1000 redecode-interval=1 expiry=10",
                caps: caps.replacingOccurrences(of: "framerate=30/1", with: "framerate=1/2"))
    }

    /// A Code 128 code "UNDER-128" (268 × 50 px, centred in 320 × 240), with `card`: covered by a
    /// blank white card (300 × 160 px), for codes to be drawn on.
    private static func codeUnderACard(card: Bool = false) throws -> TestFrame {
        var f = TestFrame(width: 320, height: 240)
        _ = try CodeRenderer().render(CodeMatrix.code128("UNDER-128"),
                                      placement: CodePlacement(center: Point(x: 160, y: 120), moduleSize: 2, barHeight: 50),
                                      into: &f.image)
        if card { for y in 40..<200 { for x in 10..<310 { f.image[x, y] = 255 } } }
        return f
    }

    /// "text state" of every track on `under`, `under`, `over`, `over` (sync), per frame, sorted.
    private func seenOnCard(_ under: TestFrame, _ over: TestFrame) throws -> [[String]] {
        // Re-decoded on every frame: the states below follow each frame's reading.
        let h = Harness("arbarcodetrack detect-mode=sync redecode-interval=1", caps: under.i420Caps)
        return try [under, under, over, over].enumerated().map { i, f in
            try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions.map { "\($0.text) \($0.state)" }.sorted()
        }
    }

    /// A card with a 1D code slid over a tracked 1D code, its bars at another angle: the place stops
    /// looking like the tracked code, the card's code is read there and tracked on that very frame,
    /// and the code underneath is occluded. A card whose bars lie along the tracked code's (as a
    /// misreading of that code would) waits for the occlusion, a frame later.
    func testA1DCardSlidOverATracked1DCodeAtAnotherAngleIsTrackedOnItsFirstFrame() throws {
        for (angle, expected) in [(20.0, ["OVER-128 detected", "UNDER-128 occluded"]), (0.0, ["UNDER-128 tracked"])] {
            let under = try Self.codeUnderACard()
            var over = try Self.codeUnderACard(card: true)
            _ = try CodeRenderer().render(CodeMatrix.code128("OVER-128"),
                                          placement: CodePlacement(center: Point(x: 160, y: 124), moduleSize: 2,
                                                                   rotationDegrees: angle, barHeight: 50),
                                          into: &over.image)
            let seen = try seenOnCard(under, over)
            XCTAssertEqual(seen[1], ["UNDER-128 detected"], "angle \(angle)")
            XCTAssertEqual(seen[2], expected, "angle \(angle): the first frame of the card")
            XCTAssertEqual(seen[3], ["OVER-128 detected", "UNDER-128 occluded"], "angle \(angle)")
        }
    }

    /// Async: the card's code read early in its first frame's scan, while the worker's reading of
    /// the code underneath, made on the frame before, reaches the same frame: the earlier reading
    /// does not keep the covered code in view, and the card's code is tracked on that frame, as in sync.
    func testAsyncACardsCodeReadEarlyIsTrackedOnItsFirstFrameOverAReadingCarriedFromBefore() throws {
        let under = try Self.codeUnderACard()
        var over = try Self.codeUnderACard(card: true)
        _ = try CodeRenderer().render(CodeMatrix.code128("OVER-128"),
                                      placement: CodePlacement(center: Point(x: 160, y: 124), moduleSize: 2, rotationDegrees: 20, barHeight: 50),
                                      into: &over.image)
        let jobs = JobsEnded()
        ArBarcodeTrack.workerExecutor = { jobs }
        defer { ArBarcodeTrack.workerExecutor = nil }
        // Frame 3's job is held at its first part (the card's code) until frame 3 is out.
        let hold = PartHold()
        defer { hold.stop() }
        let h = Self.heldAsyncHarness(caps: under.i420Caps)
        func seen(_ f: TestFrame, _ i: UInt64) throws -> [String] {
            try XCTUnwrap(h.process(f.i420, ptsNanoseconds: i * 2 * second)).regions.map { "\($0.text) \($0.state)" }.sorted()
        }
        XCTAssertEqual(try seen(under, 0), ["UNDER-128 detected"])
        XCTAssertEqual(try seen(under, 1), ["UNDER-128 detected"])
        // Frame 2 does not wait: its job (re-reading the code underneath) is collected on frame 3.
        h.set("arbarcodetrack", "async-wait", "0")
        XCTAssertEqual(try seen(under, 2), ["UNDER-128 tracked"])
        for job in 0..<3 { XCTAssertEqual(jobs.ended.wait(timeout: .now() + 30), .success, "job \(job) ended") }
        h.set("arbarcodetrack", "async-wait", "1000")
        hold.arm()
        let first = try seen(over, 3)
        XCTAssertGreaterThan(hold.parts, 0, "frame 3's job handed over a part and was held")
        hold.release()
        XCTAssertEqual(first, ["OVER-128 detected", "UNDER-128 occluded"], "the card's first frame")
        XCTAssertEqual(try seen(over, 4), ["OVER-128 detected", "UNDER-128 occluded"])
    }

    /// A QR card slid over a tracked 1D code occludes it on the card's first frame; a 1D reading
    /// along the covered code's bars there (what a misreading of it would be) is not let through
    /// with it on that frame.
    func testOnlyTheCoveringCodeIsLetThroughOnTheFirstFrameOfACard() throws {
        let under = try Self.codeUnderACard()
        var over = try Self.codeUnderACard(card: true)
        over.addQR("OVER QR", x: 70, y: 120, module: 3)
        _ = try CodeRenderer().render(CodeMatrix.code128("L1"),
                                      placement: CodePlacement(center: Point(x: 222, y: 120), moduleSize: 1.5, barHeight: 50),
                                      into: &over.image)
        let seen = try seenOnCard(under, over)
        XCTAssertEqual(seen[2], ["OVER QR detected", "UNDER-128 occluded"])
        XCTAssertEqual(seen[3], ["L1 detected", "OVER QR detected", "UNDER-128 occluded"])
    }

    func testACodeOnACardSlidIntoPlaceOverAnotherIsTrackedWhileTheOtherIsOccluded() throws {
        var under = TestFrame(width: 240, height: 240)
        under.addQR("UNDER", x: 120, y: 120, module: 4)
        // Another code's card over it: white, a little larger, another QR code in the middle.
        var over = under
        for y in 60..<184 { for x in 62..<186 { over.image[x, y] = 255 } }
        over.addQR("OVER CARD", x: 124, y: 122, module: 3, rotation: 10)
        let h = Harness("arbarcodetrack detect-mode=sync", caps: under.i420Caps)
        var last: [BarcodeRegion] = []
        for (i, f) in [under, under, over, over, over, over].enumerated() {
            last = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
        }
        // Within the 1 s expiry of the code underneath: the new code is followed, the old one hidden.
        XCTAssertEqual(last.first { $0.text == "OVER CARD" }?.state, .detected)
        XCTAssertEqual(last.first { $0.text == "UNDER" }?.state, .occluded)
    }

    func testArtrackAfterArbarcodedetectGivesStableIds() throws {
        let h = Harness("arbarcodedetect ! artrack", caps: TestFrame(width: 240, height: 240).i420Caps)
        var ids: Set<UInt64> = []
        for i in 0..<5 {
            var f = TestFrame(width: 240, height: 240)
            f.addQR("SPLIT", x: 100 + Double(i) * 6, y: 120, module: 4)
            let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
            XCTAssertEqual(regions.count, 1)
            ids.insert(try XCTUnwrap(regions.first?.trackID))
        }
        XCTAssertEqual(ids.count, 1)
    }

    func testTwinsWithTheSamePayloadAreSeparateTracks() throws {
        let h = Harness("arbarcodetrack detect-mode=sync", caps: TestFrame(width: 320, height: 200).i420Caps)
        var idAtLeft: Set<UInt64> = [], idAtRight: Set<UInt64> = []
        for i in 0..<4 {
            var f = TestFrame(width: 320, height: 200)
            f.addQR("TWIN", x: 80, y: 100 + Double(i) * 3, module: 3)
            f.addQR("TWIN", x: 240, y: 100 - Double(i) * 3, module: 3)
            let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
            XCTAssertEqual(regions.count, 2)
            for r in regions {
                if r.quad.center.x < 160 { idAtLeft.insert(r.trackID!) } else { idAtRight.insert(r.trackID!) }
            }
        }
        XCTAssertEqual(idAtLeft.count, 1)
        XCTAssertEqual(idAtRight.count, 1)
        XCTAssertTrue(idAtLeft.isDisjoint(with: idAtRight))
    }

    func testNewCodesAreFoundOnlyByTheFullScanEveryDetectIntervalFrames() throws {
        let h = Harness("arbarcodetrack detect-mode=sync detect-interval=3", caps: TestFrame(width: 240, height: 240).i420Caps)
        var f = TestFrame(width: 240, height: 240)
        f.addQR("INTERVAL", x: 120, y: 120, module: 4)
        let blank = TestFrame(width: 240, height: 240)
        var counts: [Int] = []
        for i in 0..<6 {
            let regions = try XCTUnwrap(h.process(i == 0 ? blank.i420 : f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
            counts.append(regions.count)
        }
        // Frame 0 (full scan) is blank; the code shows from frame 1 and is found by the scan on frame 3,
        // then re-decoded around its track on the frames between scans.
        XCTAssertEqual(counts, [0, 0, 0, 1, 1, 1])
    }

    /// Async: each frame's job scans the whole frame and re-decodes the tracked codes with it, so a
    /// code that shows up while another is tracked is reported on the frame after it appears when
    /// no frame waits for its job (`async-wait=0`, or a job that outlives its wait; when full scans
    /// alternated with region jobs, one frame in two waited a frame longer).
    func testAsyncANewCodeBesideATrackedOneIsReportedOnTheNextFrame() throws {
        var one = TestFrame(width: 320, height: 240)
        one.addQR("FIRST", x: 80, y: 120, module: 4)
        var two = one
        two.addQR("SECOND", x: 240, y: 120, module: 4)
        for appears in 3...4 {
            let executor = SteppedExecutor()
            ArBarcodeTrack.workerExecutor = { executor }
            defer { ArBarcodeTrack.workerExecutor = nil }
            let h = Harness("arbarcodetrack detect-mode=async async-wait=0", caps: one.i420Caps)
            var reported: [Int] = []
            for i in 0..<7 {
                let regions = try XCTUnwrap(h.process((i < appears ? one : two).i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
                if regions.contains(where: { $0.text == "SECOND" }) { reported.append(i) }
                XCTAssertTrue(executor.runNext(), "frame \(i): a job submitted")
            }
            XCTAssertEqual(reported.first, appears + 1, "shown from frame \(appears)")
        }
    }

    /// Async with a wait the jobs end within (`async-wait`, on the element's own worker thread): every
    /// reading reaches the frame it was made on, so codes are reported on the frame they appear on,
    /// from frame 0. (The wait, 1 s within half of a 0.5 fps frame, is far beyond a job on these small
    /// frames: the test waits for no clock.)
    func testAsyncWithAWaitTheJobsEndWithinCodesAreReportedOnTheFrameTheyAppearOn() throws {
        var one = TestFrame(width: 320, height: 240)
        one.addQR("FIRST", x: 80, y: 120, module: 4)
        var two = one
        two.addQR("SECOND", x: 240, y: 120, module: 4)
        let h = Harness("arbarcodetrack detect-mode=async async-wait=1000",
                        caps: one.i420Caps.replacingOccurrences(of: "framerate=30/1", with: "framerate=1/2"))
        var first: [Int] = [], second: [Int] = []
        for i in 0..<6 {
            let regions = try XCTUnwrap(h.process((i < 3 ? one : two).i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
            if regions.contains(where: { $0.text == "FIRST" }) { first.append(i) }
            if regions.contains(where: { $0.text == "SECOND" }) { second.append(i) }
        }
        XCTAssertEqual(first, Array(0..<6))
        XCTAssertEqual(second, Array(3..<6))
    }

    /// A full scan that outlives its frame's wait hands over what it has read so far: a code its
    /// first region decode read is reported on the frame it appears on, while the job is held
    /// (`TrackDecodeWorker.partHandedOver`) until after that frame. The job's whole result, on the
    /// next frame, keeps the same track.
    func testAsyncACodeReadBeforeTheScanEndsIsReportedOnItsFrame() throws {
        var code = TestFrame(width: 320, height: 240)
        code.addQR("EARLY", x: 160, y: 120, module: 4)
        // Held at its first part until frame 0 is out (then every part passes).
        let held = DispatchGroup(), parts = Counter()
        held.enter()
        var open = false
        defer { if !open { held.leave() } }
        ArBarcodeTrack.workerPartHandedOver = {
            parts.increment()
            _ = held.wait(timeout: .now() + 10)
        }
        defer { ArBarcodeTrack.workerPartHandedOver = nil }
        // A 1 s wait (within half of a 0.5 fps frame), which the held job outlives; tracks outlive a frame.
        let h = Harness("arbarcodetrack detect-mode=async async-wait=1000 expiry=10",
                        caps: code.i420Caps.replacingOccurrences(of: "framerate=30/1", with: "framerate=1/2"))
        let first = try XCTUnwrap(h.process(code.i420, ptsNanoseconds: 0)).regions
        XCTAssertGreaterThan(parts.value, 0, "the job handed over a part and was held")
        held.leave()
        open = true
        XCTAssertEqual(first.compactMap(\.text), ["EARLY"], "frame 0")
        let second = try XCTUnwrap(h.process(code.i420, ptsNanoseconds: 2_000_000_000)).regions
        XCTAssertEqual(second.compactMap(\.text), ["EARLY"], "frame 1")
        XCTAssertEqual(second.map(\.trackID), first.map(\.trackID))
    }

    /// A 1D reading on fewer lines than `confirm`, or one of an EAN-13 at the frame's edge, is not
    /// taken early: the whole scan holds it again, and one frame's reading must not count twice.
    func testOnlyReadingsThatStartATrackAloneAreTakenEarly() {
        let place = Quad(Rect(x: 10, y: 10, width: 40, height: 40))
        var oneLine = Detection(symbology: "EAN-13", text: "4006381333931", quad: place)
        oneLine.quality = 1
        var twoLines = oneLine
        twoLines.quality = 2
        let qr = Detection(symbology: "QR-Code", text: "QR", quad: place)
        XCTAssertEqual(ArBarcodeTrack.startingAlone([oneLine, twoLines, qr], confirm: 2).map(\.quality), [2, qr.quality])
        XCTAssertEqual(ArBarcodeTrack.startingAlone([oneLine, twoLines, qr], confirm: 3).map(\.text), ["QR"])
        var noLine = oneLine
        noLine.quality = 0
        XCTAssertEqual(ArBarcodeTrack.startingAlone([noLine], confirm: 1).count, 1, "counted as one line, as the tracker does")
        // Read at the frame's edge: an EAN-13 waits (it needs readings on several frames), a Code 128 does not.
        var atEdge = twoLines
        atEdge.atFrameEdge = true
        var code128 = atEdge
        code128.symbology = "CODE-128"
        XCTAssertEqual(ArBarcodeTrack.startingAlone([atEdge, code128], confirm: 2).map(\.symbology), ["CODE-128"])
    }

    /// A job that outlived its frame's wait is collected on the next frame, with that frame's own
    /// full scan when it ends within the wait: the newer scan stands for both, so a code gone by
    /// then is not drawn from the older reading.
    func testAsyncAFullScanOfThisFrameStandsForAnEarlierResult() throws {
        var code = TestFrame(width: 320, height: 240)
        code.addQR("FIRST", x: 80, y: 120, module: 4)
        let blank = TestFrame(width: 320, height: 240)
        let executor = InlineExecutor()
        ArBarcodeTrack.workerExecutor = { executor }
        defer { ArBarcodeTrack.workerExecutor = nil }
        let h = Harness("arbarcodetrack detect-mode=async async-wait=5", caps: code.i420Caps)
        // Frame 0's job is held past its wait, and ends before frame 1, where the code is gone.
        XCTAssertEqual(try XCTUnwrap(h.process(code.i420, ptsNanoseconds: 0)).regions.count, 0)
        XCTAssertTrue(executor.runNext())
        executor.inline = true
        XCTAssertEqual(try XCTUnwrap(h.process(blank.i420, ptsNanoseconds: frameNs)).regions.count, 0)
        // Frame 2's scan alone reads the code back.
        XCTAssertEqual(try XCTUnwrap(h.process(code.i420, ptsNanoseconds: 2 * frameNs)).regions.compactMap(\.text), ["FIRST"])
    }

    func testRegionReadingsOnlyConfirmTrackedCodes() {
        let place = Quad(Rect(x: 10, y: 10, width: 40, height: 40))
        let tracked = Track(id: 1, symbology: "EAN-13", payload: Array("4006381333931".utf8), quad: place, state: .tracked,
                            firstSeenNanoseconds: 0, lastDecodedNanoseconds: 0, quality: 1)
        let same = Detection(symbology: "EAN-13", text: "4006381333931", quad: place)
        let other = Detection(symbology: "EAN-13", text: "4006381333948", quad: place)
        let otherKind = Detection(symbology: "CODE-128", text: "4006381333931", quad: place)
        XCTAssertEqual(ArBarcodeTrack.confirming([same, other, otherKind], [tracked]).map(\.text), ["4006381333931"])
        XCTAssertEqual(ArBarcodeTrack.confirming([same], []).count, 0)
    }
}

/// A decode executor that runs work as it is handed over while `inline`, else holds it until `runNext`.
private final class InlineExecutor: DecodeExecutor, @unchecked Sendable {  // `held` and `isInline` are guarded by `lock`.
    private let lock = NSLock()
    private var held: [@Sendable () -> Void] = []
    private var isInline = false

    var inline: Bool {
        get { lock.withLock { isInline } }
        set { lock.withLock { isInline = newValue } }
    }

    func execute(_ work: @escaping @Sendable () -> Void) {
        if inline { work() } else { lock.withLock { held.append(work) } }
    }

    func shutdown() {}

    /// Runs the oldest held work on the caller's thread; false when none is held.
    func runNext() -> Bool {
        guard let work = lock.withLock({ held.isEmpty ? nil : held.removeFirst() }) else { return false }
        work()
        return true
    }
}

/// A count kept across threads.
private final class Counter: @unchecked Sendable {  // `count` is guarded by `lock`.
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }

    func decrement() { lock.withLock { count -= 1 } }

    var value: Int { lock.withLock { count } }
}

/// Runs jobs in turn on a queue of its own; `ended` is signalled as each ends.
private final class JobsEnded: DecodeExecutor, @unchecked Sendable {  // Its properties are immutable; the queue and semaphore are thread-safe.
    let queue = DispatchQueue(label: "jobs")
    let ended = DispatchSemaphore(value: 0)

    func execute(_ work: @escaping @Sendable () -> Void) {
        queue.async { [ended] in
            work()
            ended.signal()
        }
    }

    func shutdown() { queue.sync {} }
}

/// Holds the worker's job at each part it hands over while armed, until released
/// (`ArBarcodeTrack.workerPartHandedOver`, set from `init` to `stop`).
private final class PartHold: Sendable {
    private let held = DispatchGroup(), armed = Counter(), handedOver = Counter()

    init() {
        ArBarcodeTrack.workerPartHandedOver = { [held, armed, handedOver] in
            guard armed.value > 0 else { return }
            handedOver.increment()
            _ = held.wait(timeout: .now() + 10)
        }
    }

    func arm() {
        held.enter()
        armed.increment()
    }

    func release() {
        armed.decrement()
        held.leave()
    }

    /// Parts handed over while armed.
    var parts: Int { handedOver.value }

    func stop() { ArBarcodeTrack.workerPartHandedOver = nil }
}
