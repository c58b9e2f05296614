import ARCore
import ARStyle
import XCTest

final class OverlayTimelineTests: XCTestCase {
    let frame = 0.04
    let code = CodeSighting(info: CodeInfo(symbology: "QR-Code", text: "A", trackID: 1),
                            quad: Quad(Rect(x: 0, y: 0, width: 10, height: 10)), detected: true)

    func testNewOverlaysFadeInFromTheirFirstFrame() {
        var t = OverlayTimeline(expirySeconds: 1, fadeSeconds: 0.2)
        let first = t.update([code], at: 10, frameSeconds: frame)
        XCTAssertEqual(first.created.count, 1)
        XCTAssertEqual(first.visible.first?.opacity ?? 0, 0.2, accuracy: 1e-9)
        XCTAssertEqual(t.update([code], at: 10.08, frameSeconds: frame).visible.first?.opacity ?? 0, 0.6, accuracy: 1e-9)
        XCTAssertEqual(t.update([code], at: 10.2, frameSeconds: frame).visible.first?.opacity, 1)
    }

    func testOverlaysStayForTheExpiryThenFadeOutAndAreRemoved() {
        var t = OverlayTimeline(expirySeconds: 1, fadeSeconds: 0.2)
        _ = t.update([code], at: 0, frameSeconds: frame)
        _ = t.update([code], at: 0.5, frameSeconds: frame)
        let held = t.update([], at: 1.5, frameSeconds: frame)
        XCTAssertEqual(held.visible.first?.opacity, 1)
        XCTAssertEqual(held.visible.first?.present, false)
        XCTAssertEqual(t.update([], at: 1.6, frameSeconds: frame).visible.first?.opacity ?? 0, 0.5, accuracy: 1e-9)
        let gone = t.update([], at: 1.71, frameSeconds: frame)
        XCTAssertTrue(gone.visible.isEmpty)
        XCTAssertEqual(gone.removed.count, 1)
    }

    func testATrackersTrackedFramesMoveTheOverlayAndExtendIt() {
        var t = OverlayTimeline(expirySeconds: 1, fadeSeconds: 0)
        XCTAssertEqual(t.update([code], at: 0, frameSeconds: frame).created.count, 1)
        var moved = code
        moved.detected = false
        for at in [0.9, 1.5, 2.9] {
            moved.quad = moved.quad.translated(dx: 5, dy: 0)
            let changes = t.update([moved], at: at, frameSeconds: frame)
            XCTAssertEqual(changes.visible.first?.quad, moved.quad, "\(at) s")
            XCTAssertTrue(changes.created.isEmpty)
        }
        XCTAssertEqual(t.update([], at: 3.9, frameSeconds: frame).visible.count, 1, "1 s after it was last in view")
        XCTAssertTrue(t.update([], at: 3.91, frameSeconds: frame).visible.isEmpty)
    }

    func testWithoutATrackIdOnlyDetectionsExtendTheOverlay() {
        var t = OverlayTimeline(expirySeconds: 1, fadeSeconds: 0)
        var read = code
        read.info.trackID = nil
        _ = t.update([read], at: 0, frameSeconds: frame)
        read.detected = false
        XCTAssertEqual(t.update([read], at: 0.9, frameSeconds: frame).visible.count, 1)
        XCTAssertTrue(t.update([read], at: 1.01, frameSeconds: frame).visible.isEmpty)
    }

    func testALostTrackFadesOutAtOnceAndIsRemoved() {
        var t = OverlayTimeline(expirySeconds: 1, fadeSeconds: 0.2)
        _ = t.update([code], at: 0, frameSeconds: frame)
        var lost = code
        lost.detected = false
        lost.lost = true
        // The lost frame shows one frame's worth of fade, then it goes on fading and is removed.
        let first = t.update([lost], at: 0.5, frameSeconds: frame)
        XCTAssertEqual(first.visible.first?.opacity ?? 0, 0.8, accuracy: 1e-9)
        XCTAssertTrue(first.updated.isEmpty, "not on the frame any more")
        XCTAssertEqual(t.update([], at: 0.6, frameSeconds: frame).visible.first?.opacity ?? 0, 0.3, accuracy: 1e-9)
        let gone = t.update([], at: 0.66, frameSeconds: frame)
        XCTAssertTrue(gone.visible.isEmpty)
        XCTAssertEqual(gone.removed.map(\.key), [.track(1)])
        XCTAssertTrue(t.isEmpty)
        // A lost track never seen by the overlay makes none.
        XCTAssertTrue(t.update([lost], at: 0.7, frameSeconds: frame).created.isEmpty)
        XCTAssertTrue(t.isEmpty)
    }

    func testWithoutFadeOverlaysAreFullyOpaqueUntilTheyExpire() {
        XCTAssertEqual(OverlayTimeline.opacity(firstSeen: 0, lastSeen: 0, at: 0, frameSeconds: frame, expiry: 1, fade: 0), 1)
        XCTAssertEqual(OverlayTimeline.opacity(firstSeen: 0, lastSeen: 0, at: 1, frameSeconds: frame, expiry: 1, fade: 0), 1)
        XCTAssertNil(OverlayTimeline.opacity(firstSeen: 0, lastSeen: 0, at: 1.001, frameSeconds: frame, expiry: 1, fade: 0))
    }

    func testAnOccludedCodeFadesOutAtOnceAndBackInWhenSeenAgain() {
        var t = OverlayTimeline(expirySeconds: 1, fadeSeconds: 0.2)
        _ = t.update([code], at: 0, frameSeconds: frame)
        XCTAssertEqual(t.update([code], at: 0.2, frameSeconds: frame).visible.first?.opacity, 1)
        var hidden = code
        hidden.detected = false
        hidden.occluded = true
        // The first occluded frame shows one frame's worth of fade, then it goes on fading.
        XCTAssertEqual(t.update([hidden], at: 0.24, frameSeconds: frame).visible.first?.opacity ?? 0, 0.8, accuracy: 1e-9)
        XCTAssertEqual(t.update([hidden], at: 0.34, frameSeconds: frame).visible.first?.opacity ?? 0, 0.3, accuracy: 1e-9)
        let gone = t.update([hidden], at: 0.5, frameSeconds: frame)
        XCTAssertTrue(gone.visible.isEmpty, "not drawn while occluded")
        XCTAssertTrue(gone.removed.isEmpty, "kept until expiry")
        // Seen again: fades back in.
        XCTAssertEqual(t.update([code], at: 0.6, frameSeconds: frame).visible.first?.opacity ?? 0, 0.2, accuracy: 1e-9)
    }
}
