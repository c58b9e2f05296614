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
}
