import XCTest
@testable import ARCore

final class TrackerTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    /// A 40 px square code with its top-left corner at (x, y).
    private func code(_ text: String, x: Double, y: Double, quality: Int = 0, symbology: String = "QR-Code") -> Detection {
        Detection(symbology: symbology, text: text, quad: Quad(Rect(x: x, y: y, width: 40, height: 40)), quality: quality)
    }

    func testFirstDetectionStartsTrackWithIdOne() {
        var tracker = Tracker()
        let update = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 0)
        XCTAssertEqual(update.added.map(\.id), [1])
        XCTAssertEqual(update.tracks.map(\.state), [.detected])
        XCTAssertEqual(update.tracks.first?.text, "A")
        XCTAssertEqual(update.updated, [])
        XCTAssertEqual(update.removed, [])
    }

    func testIdStaysStableWhileTheCodeMoves() {
        var tracker = Tracker()
        var ids: [UInt64] = []
        for frame in 0..<10 {
            let update = tracker.update(detections: [code("A", x: Double(frame) * 25, y: 10)],
                                        timestampNanoseconds: UInt64(frame) * 33 * ms)
            ids += update.tracks.map(\.id)
        }
        XCTAssertEqual(ids, Array(repeating: 1, count: 10))
    }

    func testMatchedTrackTakesTheNewQuadAndIsReportedUpdated() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("A", x: 0, y: 0, quality: 1)], timestampNanoseconds: 0)
        let moved = code("A", x: 30, y: 5, quality: 7)
        let update = tracker.update(detections: [moved], timestampNanoseconds: 40 * ms)
        XCTAssertEqual(update.updated.map(\.id), [1])
        XCTAssertEqual(update.added, [])
        XCTAssertEqual(update.tracks.first?.quad, moved.quad)
        XCTAssertEqual(update.tracks.first?.quality, 7)
        XCTAssertEqual(update.tracks.first?.firstSeenNanoseconds, 0)
        XCTAssertEqual(update.tracks.first?.lastDecodedNanoseconds, 40 * ms)
    }

    func testDifferentPayloadsGetDifferentIds() {
        var tracker = Tracker()
        let update = tracker.update(detections: [code("A", x: 0, y: 0), code("B", x: 100, y: 0)], timestampNanoseconds: 0)
        XCTAssertEqual(update.tracks.map(\.id), [1, 2])
        XCTAssertEqual(update.tracks.map(\.text), ["A", "B"])
    }

    func testSamePayloadWithAnotherSymbologyIsAnotherTrack() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("123", x: 0, y: 0, quality: 2, symbology: "EAN-13")], timestampNanoseconds: 0)
        let update = tracker.update(detections: [code("123", x: 0, y: 0, quality: 2, symbology: "Code-128")],
                                    timestampNanoseconds: 40 * ms)
        XCTAssertEqual(update.added.map(\.id), [2])
        XCTAssertEqual(update.tracks.map(\.state), [.tracked, .detected])
    }

    func testTwinsWithSamePayloadKeepSeparateIds() {
        var tracker = Tracker()
        let first = tracker.update(detections: [code("TWIN", x: 0, y: 0), code("TWIN", x: 300, y: 0)],
                                   timestampNanoseconds: 0)
        XCTAssertEqual(first.tracks.map(\.id), [1, 2])
        // Both move right by 20 px; given in the opposite order, each keeps the id of the nearer track.
        let second = tracker.update(detections: [code("TWIN", x: 320, y: 0), code("TWIN", x: 20, y: 0)],
                                    timestampNanoseconds: 40 * ms)
        XCTAssertEqual(second.tracks.map(\.id), [1, 2])
        XCTAssertEqual(second.tracks.map(\.quad.topLeft.x), [20, 320])
        XCTAssertEqual(second.added, [])
    }

    /// Twins in view, one track's motion not measured on a frame (its flow lost): the twin read far
    /// from it starts its own track instead of taking the first one's id (a jump across the frame).
    /// Within 2(n + 1) times its size, n frames after its place was last measured, the reading is its code.
    func testATwinReadFarFromATrackWhoseMotionWasLostStartsItsOwnTrack() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("TWIN", x: 0, y: 0)], timestampNanoseconds: 0)
        tracker.advance(motions: [1: Homography(matrix: [1, 0, 5, 0, 1, 0, 0, 0, 1])!])
        _ = tracker.update(detections: [], timestampNanoseconds: 33 * ms)
        tracker.advance(motions: [:])
        // 400 px away: ten sizes, one frame after its place was measured.
        let far = tracker.update(detections: [code("TWIN", x: 405, y: 0)], timestampNanoseconds: 66 * ms)
        XCTAssertEqual(far.added.map(\.id), [2])
        XCTAssertEqual(far.tracks.first { $0.id == 1 }?.state, .tracked)
        XCTAssertEqual(far.tracks.first { $0.id == 1 }?.quad.topLeft.x ?? 0, 9, accuracy: 1e-9)
        // Two frames unmeasured: 200 px away (five sizes, within six) is the first code, moved.
        tracker.advance(motions: [:])
        let near = tracker.update(detections: [code("TWIN", x: 200, y: 0), code("TWIN", x: 405, y: 0)],
                                  timestampNanoseconds: 99 * ms)
        XCTAssertEqual(near.added, [])
        XCTAssertEqual(near.tracks.map(\.quad.topLeft.x), [200, 405])
    }

    /// Two strips of one code cut by the frame's edge, read on one frame: the second overlaps the
    /// track the first confirms (its centre outside that thin strip) and starts no track of its own.
    func testASecondReadingOverlappingItsCodesTrackStartsNoTrack() {
        var tracker = Tracker()
        func strip(_ y0: Double, _ y1: Double) -> Detection {
            Detection(symbology: "EAN-13", text: "1029626488244",
                      quad: Quad([Point(x: 1660, y: y0), Point(x: 1914, y: y0 + 40), Point(x: 1911, y: y1 + 40), Point(x: 1657, y: y1)])!,
                      quality: 3)
        }
        _ = tracker.update(detections: [strip(207, 226)], timestampNanoseconds: 0)
        let update = tracker.update(detections: [strip(209, 228), strip(222, 246)], timestampNanoseconds: 33 * ms)
        XCTAssertEqual(update.tracks.map(\.id), [1])
        XCTAssertEqual(update.added, [])
    }

    /// A strip of a code cut by the frame's edge (incomplete outline) beside its track, apart from
    /// it, starts no track; a complete twin stacked as close does.
    func testAStripOfACodeCutByTheEdgeNearItsTrackStartsNoTrackButAStackedTwinDoes() {
        func strip(_ y: Double, complete: Bool) -> Detection {
            Detection(symbology: "EAN-13", payload: Array("1029626488244".utf8),
                      quad: Quad(Rect(x: 1660, y: y, width: 258, height: 20)), quality: 3, outlineComplete: complete)
        }
        for complete in [false, true] {
            var tracker = Tracker()
            _ = tracker.update(detections: [strip(200, complete: false)], timestampNanoseconds: 0)
            let update = tracker.update(detections: [strip(202, complete: false), strip(250, complete: complete)],
                                        timestampNanoseconds: 33 * ms)
            XCTAssertEqual(update.added.count, complete ? 1 : 0, complete ? "a twin" : "a strip of the same code")
        }
    }

    func testOneTwinHiddenLeavesTheOtherDetectedAndItselfTracked() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("TWIN", x: 0, y: 0), code("TWIN", x: 300, y: 0)], timestampNanoseconds: 0)
        let update = tracker.update(detections: [code("TWIN", x: 290, y: 0)], timestampNanoseconds: 40 * ms)
        XCTAssertEqual(update.tracks.map(\.id), [1, 2])
        XCTAssertEqual(update.tracks.map(\.state), [.tracked, .detected])
        XCTAssertEqual(update.tracks[0].quad.topLeft, Point(x: 0, y: 0))
    }

    func testUndecodedTrackKeepsItsLastQuadAsTracked() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("A", x: 50, y: 60)], timestampNanoseconds: 0)
        let update = tracker.update(detections: [], timestampNanoseconds: 100 * ms)
        XCTAssertEqual(update.tracks.map(\.state), [.tracked])
        XCTAssertEqual(update.tracks.first?.quad.topLeft, Point(x: 50, y: 60))
        XCTAssertEqual(update.removed, [])
    }

    func testOcclusionWithinExpiryKeepsIdWhereverTheCodeReappears() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 0)
        for t in 1...9 { _ = tracker.update(detections: [], timestampNanoseconds: UInt64(t) * 100 * ms) }
        // Back after 1.0 s exactly (not more than the expiry), far away.
        let update = tracker.update(detections: [code("A", x: 500, y: 400)], timestampNanoseconds: 1000 * ms)
        XCTAssertEqual(update.tracks.map(\.id), [1])
        XCTAssertEqual(update.tracks.map(\.state), [.detected])
        XCTAssertEqual(update.updated.map(\.id), [1])
    }

    func testExpiryReportsExactlyOneLostThenForgetsTheTrack() {
        var tracker = Tracker(configuration: TrackerConfiguration(expiryNanoseconds: 500 * ms))
        _ = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 0)
        var states: [[TrackState]] = []
        var removedIDs: [[UInt64]] = []
        for t in stride(from: 100, through: 800, by: 100) {
            let update = tracker.update(detections: [], timestampNanoseconds: UInt64(t) * ms)
            states.append(update.tracks.map(\.state))
            removedIDs.append(update.removed.map(\.id))
        }
        // 100..500 ms: within expiry; 600 ms: 600 > 500 → lost once; then gone.
        XCTAssertEqual(states, [[.tracked], [.tracked], [.tracked], [.tracked], [.tracked], [.lost], [], []])
        XCTAssertEqual(removedIDs, [[], [], [], [], [], [1], [], []])
        XCTAssertEqual(tracker.liveTracks, [])
    }

    func testCodeReturningAfterExpiryGetsANewId() {
        var tracker = Tracker(configuration: TrackerConfiguration(expiryNanoseconds: 500 * ms))
        _ = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 0)
        let update = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 501 * ms)
        XCTAssertEqual(update.tracks.map(\.id), [1, 2])
        XCTAssertEqual(update.tracks.map(\.state), [.lost, .detected])
        XCTAssertEqual(update.removed.map(\.id), [1])
        XCTAssertEqual(update.added.map(\.id), [2])
    }

    func testIdsAreNeverReusedAfterReset() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("A", x: 0, y: 0), code("B", x: 100, y: 0)], timestampNanoseconds: 0)
        tracker.reset()
        XCTAssertEqual(tracker.liveTracks, [])
        let update = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 0)
        XCTAssertEqual(update.tracks.map(\.id), [3])
        XCTAssertEqual(update.added.map(\.id), [3])
    }

    func testMaxTracksDropsDetectionsBeyondTheLimit() {
        var tracker = Tracker(configuration: TrackerConfiguration(maxTracks: 2))
        let first = tracker.update(detections: [code("A", x: 0, y: 0), code("B", x: 100, y: 0), code("C", x: 200, y: 0)],
                                   timestampNanoseconds: 0)
        XCTAssertEqual(first.tracks.map(\.text), ["A", "B"])
        // Still full while A and B live: C stays out even alone in view.
        let second = tracker.update(detections: [code("C", x: 200, y: 0)], timestampNanoseconds: 40 * ms)
        XCTAssertEqual(second.tracks.map(\.text), ["A", "B"])
        XCTAssertEqual(second.added, [])
    }

    func testSlotFreedByExpiryIsAvailableOnTheSameFrame() {
        var tracker = Tracker(configuration: TrackerConfiguration(expiryNanoseconds: 100 * ms, maxTracks: 1))
        _ = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 0)
        let update = tracker.update(detections: [code("B", x: 0, y: 0)], timestampNanoseconds: 200 * ms)
        XCTAssertEqual(update.tracks.map(\.text), ["A", "B"])
        XCTAssertEqual(update.tracks.map(\.state), [.lost, .detected])
    }

    func testAnotherPayloadReadOnALiveTracksCodeIsAMisreading() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 0)
        // A second, wrong reading on the same code, same frame: no track for it.
        let misread = Detection(symbology: "QR-Code", text: "B", quad: Quad(Rect(x: 25, y: 10, width: 10, height: 10)))
        var update = tracker.update(detections: [code("A", x: 2, y: 0), misread], timestampNanoseconds: 33 * ms)
        XCTAssertEqual(update.tracks.map(\.text), ["A"])
        XCTAssertEqual(update.added, [])
        // Beside the code it is another code.
        let beside = Detection(symbology: "QR-Code", text: "B", quad: Quad(Rect(x: 60, y: 0, width: 40, height: 40)))
        update = tracker.update(detections: [code("A", x: 4, y: 0), beside], timestampNanoseconds: 66 * ms)
        XCTAssertEqual(update.added.map(\.text), ["B"])
        // A code replaced in place: the old track holds the place until it expires, then the new
        // code starts its own.
        update = tracker.update(detections: [code("C", x: 4, y: 0)], timestampNanoseconds: 99 * ms)
        XCTAssertEqual(update.added, [])
        XCTAssertEqual(update.tracks.map(\.text), ["A", "B"])
        update = tracker.update(detections: [code("C", x: 4, y: 0)], timestampNanoseconds: 1_100 * ms)
        XCTAssertEqual(update.added.map(\.text), ["C"])
    }

    /// A card slid over a corner of a tracked code (camera seed 31: a Code 128 card over a large
    /// UPC-A photo, their bars a few degrees apart): the card's reading has its centre just on the
    /// track, but a third of its outline lies on the code and a tenth of the code's on it. It is
    /// another code, not a misreading of the tracked one: confirmed by its two lines, it starts a track.
    func testACardOverACornerOfATrackedCodeIsAnotherCode() {
        var tracker = Tracker()
        let photo = Detection(symbology: "UPC-A", text: "089044400033", quad: Quad(Rect(x: 300, y: 200, width: 360, height: 300)), quality: 3)
        let card = Detection(symbology: "CODE-128", text: "C128-CARD", quad: Quad(Rect(x: 160, y: 160, width: 300, height: 100)), quality: 2)
        XCTAssertEqual(tracker.update(detections: [photo], timestampNanoseconds: 0).added.map(\.text), ["089044400033"])
        XCTAssertTrue(photo.quad.contains(card.quad.center))
        XCTAssertFalse(card.liesOn(photo.quad))
        let update = tracker.update(detections: [photo, card], timestampNanoseconds: 33 * ms)
        XCTAssertEqual(update.added.map(\.text), ["C128-CARD"])
        XCTAssertEqual(update.tracks.map(\.text), ["089044400033", "C128-CARD"])
    }

    /// A reading over a tracked code with an outline far larger than the code's (a fit run past its
    /// ends), its centre on the track and the code's outline wholly inside it, lies on the code: a
    /// misreading, though under a fifth of its own outline is on the track.
    func testAnOversizedReadingOverALiveTracksCodeIsAMisreading() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 0)
        let long = Detection(symbology: "QR-Code", text: "B", quad: Quad(Rect(x: -50, y: -10, width: 140, height: 60)))
        XCTAssertLessThan(long.quad.share(inside: Quad(Rect(x: 0, y: 0, width: 40, height: 40))), 0.25)
        let update = tracker.update(detections: [code("A", x: 0, y: 0), long], timestampNanoseconds: 33 * ms)
        XCTAssertEqual(update.added, [])
        XCTAssertEqual(update.tracks.map(\.text), ["A"])
        // With an incomplete outline, its centre alone decides.
        var part = Detection(symbology: "QR-Code", text: "B", quad: Quad(Rect(x: 8, y: 28, width: 60, height: 20)))
        XCTAssertFalse(part.liesOn(Quad(Rect(x: 0, y: 0, width: 40, height: 40))))
        part.outlineComplete = false
        XCTAssertTrue(part.liesOn(Quad(Rect(x: 0, y: 0, width: 40, height: 40))))
    }

    func testA1DReadingOnAQRCodesTrackIsALabelOverItNotAMisreading() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("QR", x: 0, y: 0)], timestampNanoseconds: 0)
        let label = { (quality: Int) in
            Detection(symbology: "CODE-128", text: "LABEL", quad: Quad(Rect(x: 10, y: 15, width: 50, height: 20)), quality: quality)
        }
        // Confirmed as any 1D reading: one line, then the same reading at the same place.
        var update = tracker.update(detections: [code("QR", x: 0, y: 0), label(1)], timestampNanoseconds: 33 * ms)
        XCTAssertEqual(update.added, [])
        update = tracker.update(detections: [code("QR", x: 0, y: 0), label(1)], timestampNanoseconds: 66 * ms)
        XCTAssertEqual(update.added.map(\.text), ["LABEL"])
        // A 1D track's code read as another 1D payload there is still a misreading.
        let other = Detection(symbology: "CODE-128", text: "LABEL2", quad: Quad(Rect(x: 20, y: 15, width: 50, height: 20)), quality: 3)
        update = tracker.update(detections: [code("QR", x: 0, y: 0), label(1), other], timestampNanoseconds: 99 * ms)
        XCTAssertEqual(update.added, [])
    }

    func testDuplicateDetectionsAtTheSamePlaceAreMergedKeepingTheBestQuality() {
        var tracker = Tracker()
        let update = tracker.update(detections: [code("A", x: 0, y: 0, quality: 2), code("A", x: 5, y: 3, quality: 9)],
                                    timestampNanoseconds: 0)
        XCTAssertEqual(update.tracks.count, 1)
        XCTAssertEqual(update.tracks.first?.quality, 9)
        XCTAssertEqual(update.tracks.first?.quad.topLeft, Point(x: 5, y: 3))
    }

    func testSamePayloadSideBySideIsNotMerged() {
        var tracker = Tracker()
        // Side 40 px: centres 45 px apart do not overlap.
        let update = tracker.update(detections: [code("A", x: 0, y: 0), code("A", x: 45, y: 0)], timestampNanoseconds: 0)
        XCTAssertEqual(update.tracks.map(\.id), [1, 2])
    }

    func testOverlappingReadingsOfOneCodeAreMerged() {
        var tracker = Tracker()
        let update = tracker.update(detections: [code("A", x: 0, y: 0), code("A", x: 15, y: 0)], timestampNanoseconds: 0)
        XCTAssertEqual(update.tracks.map(\.id), [1])
    }

    func testLoopingTimestampsKeepTheIdsOfCodesThatStayInPlace() {
        var tracker = Tracker()
        var ids: Set<UInt64> = []
        var removed = 0
        // Three loops of 0…29 frames (pts back to 0 each time, no reset), two codes in place.
        for _ in 0..<3 {
            for frame in 0..<30 {
                let update = tracker.update(detections: [code("A", x: 0, y: 0), code("B", x: 100, y: 0)],
                                            timestampNanoseconds: UInt64(frame) * 33 * ms)
                ids.formUnion(update.tracks.map(\.id))
                removed += update.removed.count
            }
        }
        XCTAssertEqual(ids, [1, 2])
        XCTAssertEqual(removed, 0)
    }

    func testTimestampGoingBackKeepsTrackAgesAndExpiry() {
        var tracker = Tracker(configuration: TrackerConfiguration(expiryNanoseconds: 500 * ms))
        _ = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 5_000 * ms)
        _ = tracker.update(detections: [], timestampNanoseconds: 5_300 * ms)
        // Back to 1 s: the track was decoded 300 ms before, and still is.
        let back = tracker.update(detections: [], timestampNanoseconds: 1_000 * ms)
        XCTAssertEqual(back.tracks.map(\.id), [1])
        XCTAssertEqual(back.tracks.map(\.state), [.tracked])
        XCTAssertEqual(back.tracks.first?.lastDecodedNanoseconds, 700 * ms)
        XCTAssertEqual(tracker.update(detections: [], timestampNanoseconds: 1_100 * ms).tracks.map(\.state), [.tracked])
        // 500 ms after its last decode it expires as usual.
        let late = tracker.update(detections: [], timestampNanoseconds: 1_250 * ms)
        XCTAssertEqual(late.removed.map(\.id), [1])
    }

    func testDetectionsBeyondMaxTracksAreCountedAsRefused() {
        var tracker = Tracker(configuration: TrackerConfiguration(maxTracks: 1))
        let codes = [code("A", x: 0, y: 0), code("B", x: 100, y: 0), code("C", x: 200, y: 0)]
        let first = tracker.update(detections: codes, timestampNanoseconds: 0)
        XCTAssertEqual(first.added.map(\.text), ["A"])
        XCTAssertEqual(first.refused, 2)
        // A is matched; B and C still find no room.
        XCTAssertEqual(tracker.update(detections: codes, timestampNanoseconds: 33 * ms).refused, 2)
        XCTAssertEqual(tracker.update(detections: [codes[0]], timestampNanoseconds: 66 * ms).refused, 0)
    }

    func testResetAfterTimestampGoingBackStartsNewIds() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 5_000 * ms)
        tracker.reset()
        let update = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 1_000 * ms)
        XCTAssertEqual(update.tracks.map(\.id), [2])
    }

    func testDetectionTextReadsBytesThatAreNotUTF8AsShiftJISOrLatin1() {
        let quad = Quad(Rect(x: 0, y: 0, width: 1, height: 1))
        // 0xFF is neither UTF-8 nor Shift JIS: ISO 8859-1.
        XCTAssertEqual(Detection(symbology: "QR-Code", payload: [0x41, 0xFF, 0x42], quad: quad).text, "A\u{FF}B")
        // "日本" in Shift JIS: a QR code's text; another symbology's is ISO 8859-1.
        XCTAssertEqual(Detection(symbology: "QR-Code", payload: [0x93, 0xFA, 0x96, 0x7B], quad: quad).text, "日本")
        XCTAssertEqual(Detection(symbology: "CODE-128", payload: [0x93, 0xFA], quad: quad).text, "\u{93}\u{FA}")
        // Shift JIS text with a backslash and a tilde: ASCII, as zxing-cpp reads them (not ¥ and ‾);
        // a trail byte 0x5C stays part of its character ("表" is 0x95 0x5C).
        let url = Array("http\\://a/~b ".utf8) + [0x83, 0x82, 0x95, 0x5C]
        XCTAssertEqual(Detection(symbology: "QR-Code", payload: url, quad: quad).text, "http\\://a/~b モ表")
        // Latin-1 text that only CP932 would take for Shift JIS ("Björk": 0xF6 0x72) stays Latin-1.
        XCTAssertEqual(Detection(symbology: "QR-Code", payload: Array("Bj".utf8) + [0xF6] + Array("rk".utf8), quad: quad).text, "Björk")
    }

    func testPartialOutlineConfirmsTheTrackWithoutShrinkingIt() {
        var tracker = Tracker()
        let full = code("A", x: 100, y: 100)
        _ = tracker.update(detections: [full], timestampNanoseconds: 0)
        // A reading clipped to a sliver inside the code: the track keeps its size.
        var sliver = Detection(symbology: "QR-Code", text: "A", quad: Quad(Rect(x: 110, y: 115, width: 20, height: 4)))
        sliver.outlineComplete = false
        let update = tracker.update(detections: [sliver], timestampNanoseconds: 40 * ms)
        XCTAssertEqual(update.updated.map(\.id), [1])
        XCTAssertEqual(update.tracks.first?.state, .detected)
        XCTAssertEqual(update.tracks.first?.quad, full.quad)
    }

    func testPartialOutlineOutsideTheTrackMovesItThereKeepingItsSize() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("A", x: 100, y: 100)], timestampNanoseconds: 0)
        var sliver = Detection(symbology: "QR-Code", text: "A", quad: Quad(Rect(x: 150, y: 118, width: 20, height: 4)))
        sliver.outlineComplete = false
        let update = tracker.update(detections: [sliver], timestampNanoseconds: 40 * ms)
        let quad = update.tracks.first!.quad
        XCTAssertEqual(quad.center.x, 160, accuracy: 1e-9)
        XCTAssertEqual(quad.center.y, 120, accuracy: 1e-9)
        XCTAssertEqual(quad.meanSide, 40, accuracy: 1e-9)
    }

    func testPartialOutlineAsLongAsTheCodeCentresTheTrackKeepingItsSize() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("A", x: 100, y: 100)], timestampNanoseconds: 0)
        // A 1D-like reading: the code's full length, a few pixels tall, 6 px further right.
        var line = Detection(symbology: "QR-Code", text: "A", quad: Quad(Rect(x: 106, y: 118, width: 40, height: 4)))
        line.outlineComplete = false
        let quad = tracker.update(detections: [line], timestampNanoseconds: 40 * ms).tracks.first!.quad
        XCTAssertEqual(quad.center.x, 126, accuracy: 1e-9)
        XCTAssertEqual(quad.center.y, 120, accuracy: 1e-9)
        XCTAssertEqual(quad.meanSide, 40, accuracy: 1e-9)
    }

    /// A partial reading of a code the image motion followed onto this frame confirms its track
    /// where it is; unfollowed, the track moves onto the reading.
    func testAPartialOutlineConfirmsAFollowedTrackWithoutMovingIt() {
        for followed in [true, false] {
            var tracker = Tracker()
            _ = tracker.update(detections: [code("A", x: 100, y: 100)], timestampNanoseconds: 0)
            tracker.advance(motions: followed ? [1: Homography(matrix: [1, 0, 5, 0, 1, 0, 0, 0, 1])!] : [:])
            var line = Detection(symbology: "QR-Code", text: "A", quad: Quad(Rect(x: 130, y: 118, width: 40, height: 4)))
            line.outlineComplete = false
            let update = tracker.update(detections: [line], timestampNanoseconds: 40 * ms)
            XCTAssertEqual(update.tracks.map(\.state), [.detected])
            XCTAssertEqual(update.tracks.first?.quad.center.x ?? 0, followed ? 125 : 150, accuracy: 1e-9, followed ? "followed" : "not followed")
        }
    }

    func testCompleteOutlineWinsOverAPartialReadingOfTheSameCode() {
        var tracker = Tracker()
        let full = code("A", x: 100, y: 100)
        var sliver = Detection(symbology: "QR-Code", text: "A", quad: Quad(Rect(x: 110, y: 115, width: 20, height: 4)), quality: 9)
        sliver.outlineComplete = false
        let update = tracker.update(detections: [sliver, full], timestampNanoseconds: 0)
        XCTAssertEqual(update.tracks.map(\.quad), [full.quad])
    }

    func testAMotionThatFoldsOrBlowsUpAQuadIsNotAPlausibleMove() {
        let square = Quad(Rect(x: 0, y: 0, width: 40, height: 40))
        XCTAssertTrue(square.translated(dx: 5, dy: -3).isPlausibleMove(from: square))
        let folded = Quad(topLeft: square.topLeft, topRight: square.bottomRight, bottomRight: square.topRight,
                          bottomLeft: square.bottomLeft)
        XCTAssertFalse(folded.isPlausibleMove(from: square))
        XCTAssertFalse(square.scaled(sx: 2, sy: 2).isPlausibleMove(from: square))
    }

    func testAnOutlineKeepsItsEdgeDirectionsWhenItOnlyMovesScalesOrTurnsALittle() {
        let bar = Quad(Rect(x: 100, y: 100, width: 200, height: 60))
        let turned = Homography(matrix: [cos(0.15), -sin(0.15), 30, sin(0.15), cos(0.15), -20, 0, 0, 1])!.apply(bar)
        XCTAssertTrue(turned.keepsEdgeDirections(of: bar, maxTurn: Tracker.maxEdgeTurn))
        XCTAssertTrue(bar.scaled(sx: 1, sy: 1.8).keepsEdgeDirections(of: bar, maxTurn: Tracker.maxEdgeTurn), "taller bars, same shape")
        // The same quad listed from another corner.
        let relisted = Quad(topLeft: bar.topRight, topRight: bar.bottomRight, bottomRight: bar.bottomLeft, bottomLeft: bar.topLeft)
        XCTAssertTrue(relisted.keepsEdgeDirections(of: bar, maxTurn: Tracker.maxEdgeTurn))
        // Sides leaning onto a neighbour's bars (a fit over a card beside the code).
        let leaning = Quad(topLeft: Point(x: 0, y: 110), topRight: Point(x: 300, y: 100), bottomRight: Point(x: 340, y: 160),
                           bottomLeft: Point(x: 90, y: 165))
        XCTAssertFalse(leaning.keepsEdgeDirections(of: bar, maxTurn: Tracker.maxEdgeTurn))
    }

    /// A code followed in the image, whose shape two outlines agreed on, keeps it against one outline
    /// of another shape; a second one in a row replaces it.
    func testAFollowedCodeOfKnownShapeIsConfirmedNotReshapedByOneOutlineOfAnotherShape() {
        let bar = Quad(Rect(x: 100, y: 100, width: 200, height: 60))
        let leaning = Quad(topLeft: Point(x: 0, y: 110), topRight: Point(x: 300, y: 100), bottomRight: Point(x: 340, y: 160),
                           bottomLeft: Point(x: 90, y: 165))
        let still = [UInt64(1): Homography(matrix: [1, 0, 0, 0, 1, 0, 0, 0, 1])!]
        func reading(_ quad: Quad) -> Detection { Detection(symbology: "EAN-13", text: "4006381333931", quad: quad) }
        var tracker = Tracker(configuration: TrackerConfiguration(confirmReadings: 1))
        _ = tracker.update(detections: [reading(bar)], timestampNanoseconds: 0)
        tracker.advance(motions: still)
        _ = tracker.update(detections: [reading(bar)], timestampNanoseconds: 33 * ms)
        tracker.advance(motions: still)
        let once = tracker.update(detections: [reading(leaning)], timestampNanoseconds: 66 * ms).tracks
        XCTAssertEqual(once.map(\.state), [.detected], "the reading confirms the track")
        XCTAssertEqual(once.first?.quad, bar)
        tracker.advance(motions: still)
        XCTAssertEqual(tracker.update(detections: [reading(leaning)], timestampNanoseconds: 99 * ms).tracks.first?.quad, leaning)
        // A new track's first shape is not known yet: the next outline replaces it, whatever its shape.
        var fresh = Tracker(configuration: TrackerConfiguration(confirmReadings: 1))
        _ = fresh.update(detections: [reading(leaning)], timestampNanoseconds: 0)
        fresh.advance(motions: still)
        XCTAssertEqual(fresh.update(detections: [reading(bar)], timestampNanoseconds: 33 * ms).tracks.first?.quad, bar)
    }

    func testAnOccludedTrackIsReportedOccludedUnmovedAndComesBackUnderItsId() throws {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 0)
        tracker.advance(motions: [1: Homography(matrix: [1, 0, 5, 0, 1, 0, 0, 0, 1])!])
        let moved = tracker.update(detections: [], timestampNanoseconds: 33 * ms).tracks
        XCTAssertEqual(moved.map(\.state), [.tracked])
        tracker.markOccluded([1])
        // Neither a measured motion nor coasting moves it while occluded.
        tracker.advance(motions: [1: Homography(matrix: [1, 0, 7, 0, 1, 0, 0, 0, 1])!])
        let hidden = tracker.update(detections: [], timestampNanoseconds: 66 * ms).tracks
        XCTAssertEqual(hidden.map(\.state), [.occluded])
        XCTAssertEqual(hidden.first?.quad, moved.first?.quad)
        tracker.advance(motions: [:])
        XCTAssertEqual(tracker.update(detections: [], timestampNanoseconds: 99 * ms).tracks.first?.quad, moved.first?.quad)
        // Read again elsewhere (the camera moved while it was covered): the same track, seen.
        let back = tracker.update(detections: [code("A", x: 200, y: 0)], timestampNanoseconds: 500 * ms)
        XCTAssertEqual(back.tracks.map(\.id), [1])
        XCTAssertEqual(back.tracks.map(\.state), [.detected])
        XCTAssertEqual(tracker.occludedIDs, [])
    }

    func testAnOccludedTrackExpiresAndBlocksNoOtherCodeAtItsPlace() {
        var tracker = Tracker()
        _ = tracker.update(detections: [code("OLD", x: 0, y: 0)], timestampNanoseconds: 0)
        tracker.markOccluded([1])
        // The label was replaced: another code where the occluded one was starts its own track.
        let replaced = tracker.update(detections: [code("NEW", x: 2, y: 0)], timestampNanoseconds: 33 * ms)
        XCTAssertEqual(replaced.added.map(\.text), ["NEW"])
        XCTAssertEqual(replaced.tracks.first { $0.id == 1 }?.state, .occluded)
        // Occluded tracks still expire.
        _ = tracker.update(detections: [code("NEW", x: 2, y: 0)], timestampNanoseconds: 600 * ms)
        let later = tracker.update(detections: [code("NEW", x: 2, y: 0)], timestampNanoseconds: 1100 * ms)
        XCTAssertEqual(later.removed.map(\.id), [1])
    }

    /// Frames 100 ms apart; expiry 250 ms, follow limit 600 ms. `followed(n)`: whether the track's
    /// motion is measured and its place is marked as looking like its code on frame n.
    private func states(followed: (Int) -> Bool, occludedOn: Set<Int> = [], frames: Int = 9) -> [TrackState] {
        var tracker = Tracker(configuration: TrackerConfiguration(expiryNanoseconds: 250 * ms, followLimitNanoseconds: 600 * ms))
        _ = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 0)
        var states: [TrackState] = []
        for n in 1...frames {
            tracker.advance(motions: followed(n) ? [1: Homography(matrix: [1, 0, 2, 0, 1, 0, 0, 0, 1])!] : [:])
            if occludedOn.contains(n) { tracker.markOccluded([1]) }
            tracker.markFollowed(followed(n) ? [1] : [])
            states += tracker.update(detections: [], timestampNanoseconds: UInt64(n) * 100 * ms).tracks.map(\.state)
        }
        return states
    }

    func testATrackFollowedInTheImageOutlivesItsExpiryUpToTheFollowLimit() {
        // Unread, followed on every frame: past expiry (250 ms) it lives until 600 ms, lost at 700.
        XCTAssertEqual(states { _ in true }, [.tracked, .tracked, .tracked, .tracked, .tracked, .tracked, .lost])
        // Not followed: lost at 300 ms, as with expiry alone.
        XCTAssertEqual(states { _ in false }, [.tracked, .tracked, .lost])
        // Followed up to 300 ms: it lives one frame more (400 ms: the flow can miss a frame), lost at 500.
        XCTAssertEqual(states { $0 <= 3 }, [.tracked, .tracked, .tracked, .tracked, .lost])
        // Occluded from 300 ms: not seen whatever the flow measured (300 ms: the frame after one it was seen on).
        XCTAssertEqual(states(followed: { _ in true }, occludedOn: [3, 4, 5]), [.tracked, .tracked, .occluded, .lost])
        // Marked seen without a motion measured on the frame: not followed, lost at 300 ms.
        var still = Tracker(configuration: TrackerConfiguration(expiryNanoseconds: 250 * ms, followLimitNanoseconds: 600 * ms))
        _ = still.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 0)
        var unmeasured: [TrackState] = []
        for n in 1...4 {
            still.advance(motions: [:])
            still.markFollowed([1])
            unmeasured += still.update(detections: [], timestampNanoseconds: UInt64(n) * 100 * ms).tracks.map(\.state)
        }
        XCTAssertEqual(unmeasured, [.tracked, .tracked, .lost])
        // A follow limit no longer than expiry: expiry alone.
        var tracker = Tracker(configuration: TrackerConfiguration(expiryNanoseconds: 250 * ms, followLimitNanoseconds: 250 * ms))
        _ = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 0)
        var last: [TrackState] = []
        for n in 1...3 {
            tracker.advance(motions: [1: Homography(matrix: [1, 0, 2, 0, 1, 0, 0, 0, 1])!])
            tracker.markFollowed([1])
            last = tracker.update(detections: [], timestampNanoseconds: UInt64(n) * 100 * ms).tracks.map(\.state)
        }
        XCTAssertEqual(last, [.lost])
    }

    func testAReadingAfterExpiryContinuesAFollowedTrackUnderItsId() {
        var tracker = Tracker(configuration: TrackerConfiguration(expiryNanoseconds: 250 * ms, followLimitNanoseconds: 600 * ms))
        _ = tracker.update(detections: [code("A", x: 0, y: 0)], timestampNanoseconds: 0)
        for n in 1...4 {
            tracker.advance(motions: [1: Homography(matrix: [1, 0, 10, 0, 1, 0, 0, 0, 1])!])
            tracker.markFollowed([1])
            _ = tracker.update(detections: [], timestampNanoseconds: UInt64(n) * 100 * ms)
        }
        // Not marked seen on the reading's frame (the frame after one it was): still live, it takes the reading.
        tracker.advance(motions: [1: Homography(matrix: [1, 0, 10, 0, 1, 0, 0, 0, 1])!])
        let read = tracker.update(detections: [code("A", x: 50, y: 0)], timestampNanoseconds: 500 * ms)
        XCTAssertEqual(read.tracks.map(\.id), [1])
        XCTAssertEqual(read.tracks.map(\.state), [.detected])
        XCTAssertEqual(read.tracks.first?.lastDecodedNanoseconds, 500 * ms)
    }
}
