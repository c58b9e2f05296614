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

    func testTrackedFramesMoveTheOverlayButOnlyDetectionsExtendIt() {
        var t = OverlayTimeline(expirySeconds: 1, fadeSeconds: 0)
        _ = t.update([code], at: 0, frameSeconds: frame)
        var moved = code
        moved.detected = false
        moved.quad = moved.quad.translated(dx: 5, dy: 0)
        XCTAssertEqual(t.update([moved], at: 0.9, frameSeconds: frame).visible.first?.quad, moved.quad)
        XCTAssertTrue(t.update([moved], at: 1.01, frameSeconds: frame).visible.isEmpty)
    }

    func testWithoutFadeOverlaysAreFullyOpaqueUntilTheyExpire() {
        XCTAssertEqual(OverlayTimeline.opacity(firstSeen: 0, lastDetected: 0, at: 0, frameSeconds: frame, expiry: 1, fade: 0), 1)
        XCTAssertEqual(OverlayTimeline.opacity(firstSeen: 0, lastDetected: 0, at: 1, frameSeconds: frame, expiry: 1, fade: 0), 1)
        XCTAssertNil(OverlayTimeline.opacity(firstSeen: 0, lastDetected: 0, at: 1.001, frameSeconds: frame, expiry: 1, fade: 0))
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
