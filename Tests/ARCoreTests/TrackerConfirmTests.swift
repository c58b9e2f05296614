import XCTest
@testable import ARCore

final class TrackerConfirmTests: XCTestCase {
    private let frame: UInt64 = 33_333_333

    private func ean(_ text: String, x: Double, lines: Int) -> Detection {
        Detection(symbology: "EAN-13", text: text, quad: Quad(Rect(x: x, y: 50, width: 120, height: 60)), quality: lines)
    }

    func testASingleLine1DReadingStartsNoTrack() {
        var tracker = Tracker()
        let update = tracker.update(detections: [ean("4006381333931", x: 100, lines: 1)], timestampNanoseconds: 0)
        XCTAssertEqual(update.tracks, [])
        XCTAssertEqual(update.added, [])
    }

    func testTwoAgreeingLinesOnOneFrameStartATrack() {
        var tracker = Tracker()
        let update = tracker.update(detections: [ean("4006381333931", x: 100, lines: 2)], timestampNanoseconds: 0)
        XCTAssertEqual(update.added.map(\.text), ["4006381333931"])
    }

    func testTheSameReadingAtTheSamePlaceOnTheNextFrameConfirmsIt() {
        var tracker = Tracker()
        XCTAssertEqual(tracker.update(detections: [ean("4006381333931", x: 100, lines: 1)], timestampNanoseconds: 0).added, [])
        let second = tracker.update(detections: [ean("4006381333931", x: 108, lines: 1)], timestampNanoseconds: frame)
        XCTAssertEqual(second.added.map(\.text), ["4006381333931"])
        XCTAssertEqual(second.added.first?.id, 1)
    }

    func testSingleReadingsElsewhereOrOfAnotherPayloadDoNotConfirmEachOther() {
        var tracker = Tracker()
        XCTAssertEqual(tracker.update(detections: [ean("4006381333931", x: 100, lines: 1)], timestampNanoseconds: 0).added, [])
        // Another place (a misread elsewhere), then another payload at the first place.
        XCTAssertEqual(tracker.update(detections: [ean("4006381333931", x: 600, lines: 1)], timestampNanoseconds: frame).added, [])
        XCTAssertEqual(tracker.update(detections: [ean("4006381333948", x: 100, lines: 1)], timestampNanoseconds: 2 * frame).added, [])
    }

    func testAQRCodeNeedsOneReading() {
        var tracker = Tracker()
        let qr = Detection(symbology: "QR-Code", text: "QR", quad: Quad(Rect(x: 0, y: 0, width: 40, height: 40)), quality: 1)
        XCTAssertEqual(tracker.update(detections: [qr], timestampNanoseconds: 0).added.map(\.text), ["QR"])
    }

    func testConfirmOneTakesSingleReadingsAtOnce() {
        var tracker = Tracker(configuration: TrackerConfiguration(confirmReadings: 1))
        XCTAssertEqual(tracker.update(detections: [ean("4006381333931", x: 100, lines: 1)], timestampNanoseconds: 0).added.count, 1)
    }

    func testAContradictingReadingNeitherRenamesATrackNorStartsOne() {
        var tracker = Tracker()
        _ = tracker.update(detections: [ean("4006381333931", x: 100, lines: 4)], timestampNanoseconds: 0)
        // Frames where the code is read wrongly (well confirmed, even) and not read rightly.
        for k in 1...5 {
            let update = tracker.update(detections: [ean("4006381333948", x: 102, lines: 3)], timestampNanoseconds: UInt64(k) * frame)
            XCTAssertEqual(update.added, [], "frame \(k)")
            XCTAssertEqual(update.tracks.map(\.id), [1], "frame \(k)")
            XCTAssertEqual(update.tracks.map(\.text), ["4006381333931"], "frame \(k)")
        }
    }

    func testAnotherCodeInTheSamePlaceIsTrackedOnceTheOldTrackExpired() {
        var tracker = Tracker(configuration: TrackerConfiguration(expiryNanoseconds: 100_000_000))
        _ = tracker.update(detections: [ean("4006381333931", x: 100, lines: 4)], timestampNanoseconds: 0)
        var added: [String] = []
        for k in 1...8 {
            added += tracker.update(detections: [ean("4006381333948", x: 100, lines: 3)], timestampNanoseconds: UInt64(k) * frame).added.map(\.text)
        }
        XCTAssertEqual(added, ["4006381333948"])
    }

    /// An Interleaved 2 of 5 reading with one digit pair changed beside a tracked ITF code (its
    /// centre outside the track, within the track grown to twice its size; the track occluded or
    /// not) is a misreading of it; farther away, or with two pairs changed, or of a symbology with a
    /// check character, it is another code.
    func testAnITFReadingWithOneDigitPairChangedBesideAnITFTrackStartsNoTrack() {
        func reading(_ symbology: String, _ text: String, y: Double) -> Detection {
            Detection(symbology: symbology, text: text, quad: Quad(Rect(x: 100, y: y, width: 400, height: 40)), quality: 3)
        }
        XCTAssertTrue(Detection.isMisreading(Array("3018108394".utf8), of: Array("3018108390".utf8), symbology: "I2/5"))
        XCTAssertTrue(Detection.isMisreading(Array("3018108490".utf8), of: Array("3018108390".utf8), symbology: "I2/5"), "digits 7 and 8: one pair")
        XCTAssertFalse(Detection.isMisreading(Array("3018208394".utf8), of: Array("3018108390".utf8), symbology: "I2/5"), "two pairs")
        XCTAssertFalse(Detection.isMisreading(Array("30181083".utf8), of: Array("3018108390".utf8), symbology: "I2/5"), "another length")
        XCTAssertFalse(Detection.isMisreading(Array("3018108394".utf8), of: Array("3018108390".utf8), symbology: "CODE-39"))
        for occluded in [false, true] {
            var tracker = Tracker()
            let track = reading("I2/5", "3018108390", y: 100)
            _ = tracker.update(detections: [track], timestampNanoseconds: 0)
            if occluded { tracker.markOccluded([1]) }
            // 30 px above the track (its centre outside it, inside it grown twice): held back.
            XCTAssertEqual(tracker.update(detections: [reading("I2/5", "3018108394", y: 70)], timestampNanoseconds: frame).added, [],
                           "occluded \(occluded)")
            // Two heights above (outside the track grown twice), or two pairs changed: another code.
            XCTAssertEqual(tracker.update(detections: [reading("I2/5", "3018108394", y: 20)], timestampNanoseconds: 2 * frame).added.map(\.text),
                           ["3018108394"], "occluded \(occluded)")
            XCTAssertEqual(tracker.update(detections: [reading("I2/5", "3018208394", y: 140)], timestampNanoseconds: 3 * frame).added.map(\.text),
                           ["3018208394"], "occluded \(occluded)")
        }
        // Code 39 (no rule: one pair changed is another code's payload).
        var tracker = Tracker()
        _ = tracker.update(detections: [reading("CODE-39", "3018108390", y: 100)], timestampNanoseconds: 0)
        XCTAssertEqual(tracker.update(detections: [reading("CODE-39", "3018108394", y: 70)], timestampNanoseconds: frame).added.map(\.text),
                       ["3018108394"])
    }

    /// An EAN-13 reading at the frame's left edge (`atFrameEdge`), read by two lines on each frame
    /// (a code half out of the frame, cut short by the edge and misread), then partial readings of
    /// it clear of the edge (a scan line inside the cut code): it starts no track on two frames,
    /// and does on the third (a code that stays at the edge). A complete outline clear of the edge
    /// starts it at once. A Code 128 reading (a stop character ends it) starts one at once.
    func testAGuardEndedReadingAtTheFrameEdgeNeedsThreeFramesOrAWholeOutlineClearOfIt() {
        func reading(_ symbology: String = "EAN-13", x: Double, complete: Bool = false) -> Detection {
            Detection(symbology: symbology, payload: Array("3118092990844".utf8), quad: Quad(Rect(x: x, y: 240, width: 233, height: 87)),
                      quality: 2, outlineComplete: complete, atFrameEdge: x < 2)
        }
        var tracker = Tracker()
        XCTAssertEqual(tracker.update(detections: [reading(x: 0)], timestampNanoseconds: 0).added, [])
        XCTAssertEqual(tracker.update(detections: [reading(x: 50)], timestampNanoseconds: frame).added, [])
        XCTAssertEqual(tracker.update(detections: [reading(x: 56)], timestampNanoseconds: 2 * frame).added.map(\.text), ["3118092990844"])

        var entering = Tracker()
        XCTAssertEqual(entering.update(detections: [reading(x: 0)], timestampNanoseconds: 0).added, [])
        XCTAssertEqual(entering.update(detections: [reading(x: 10, complete: true)], timestampNanoseconds: frame).added.count, 1)

        // Read clear of the edge first: partial readings start a track as before.
        var inside = Tracker()
        XCTAssertEqual(inside.update(detections: [reading(x: 50)], timestampNanoseconds: 0).added.count, 1)

        var code128 = Tracker()
        XCTAssertEqual(code128.update(detections: [reading("CODE-128", x: 0)], timestampNanoseconds: 0).added.count, 1)
    }

    /// An outline touches the frame's edge when a corner lies within 2 px of it, or outside it.
    func testAnOutlineTouchesTheEdgeWithinTwoPixels() {
        let bounds = Rect(x: 0, y: 0, width: 640, height: 480)
        let bar = { (x: Double, y: Double) in Quad(Rect(x: x, y: y, width: 200, height: 60)) }
        XCTAssertFalse(bar(2, 100).touchesEdge(of: bounds))
        XCTAssertTrue(bar(1.5, 100).touchesEdge(of: bounds))
        XCTAssertTrue(bar(-50, 100).touchesEdge(of: bounds))
        XCTAssertFalse(bar(438, 100).touchesEdge(of: bounds), "2 px from the right edge")
        XCTAssertTrue(bar(439, 100).touchesEdge(of: bounds))
        XCTAssertTrue(bar(100, 1).touchesEdge(of: bounds), "the top edge")
        XCTAssertTrue(bar(100, 419).touchesEdge(of: bounds), "the bottom edge")
        XCTAssertFalse(bar(100, 418).touchesEdge(of: bounds))
    }
}
