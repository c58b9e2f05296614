import ARCore
import XCTest

final class RedecodeScheduleTests: XCTestCase {
    /// Frames on which track `id` is due over `frames`, reading it whenever it is due and `reads` says so.
    private func dueFrames(_ schedule: inout RedecodeSchedule, id: UInt64, frames: Range<UInt64>,
                           reads: (UInt64) -> Bool = { _ in true }) -> [UInt64] {
        var out: [UInt64] = []
        for f in frames where schedule.isDue(id, frame: f) {
            out.append(f)
            if reads(f) { schedule.read([id], frame: f) }
        }
        return out
    }

    func testIntervalOneReDecodesEveryFrame() {
        var s = RedecodeSchedule(interval: 1)
        XCTAssertEqual(dueFrames(&s, id: 5, frames: 0..<6), [0, 1, 2, 3, 4, 5])
    }

    func testANewTrackIsDueAtOnceThenOnItsTurns() {
        var s = RedecodeSchedule(interval: 3)
        // Never read: due. Read on frame 1, then due on (frame + id) % 3 == 0: frames 2, 5, 8.
        XCTAssertEqual(dueFrames(&s, id: 7, frames: 1..<10), [1, 2, 5, 8])
    }

    func testTurnsAreStaggeredByTrackID() {
        var s = RedecodeSchedule(interval: 2)
        s.read([1, 2], frame: 0)
        XCTAssertEqual(dueFrames(&s, id: 1, frames: 1..<5), [1, 3])
        XCTAssertEqual(dueFrames(&s, id: 2, frames: 1..<5), [2, 4])
    }

    func testAMissedTurnIsRetriedOnEveryFrameUntilRead() {
        var s = RedecodeSchedule(interval: 3)
        s.read([3], frame: 0)
        // Turns at 3, 6, …; the read on 3 fails, so 4 and 5 retry; read on 5, next turn 6.
        XCTAssertEqual(dueFrames(&s, id: 3, frames: 1..<10, reads: { $0 != 3 && $0 != 4 }), [3, 4, 5, 6, 9])
    }

    func testForgottenAndResetTracksAreDueAgain() {
        var s = RedecodeSchedule(interval: 4)
        s.read([1, 2], frame: 10)
        XCTAssertFalse(s.isDue(1, frame: 12))
        s.forget([1])
        XCTAssertTrue(s.isDue(1, frame: 12))
        XCTAssertFalse(s.isDue(2, frame: 12))
        s.reset()
        XCTAssertTrue(s.isDue(2, frame: 12))
    }

    func testFramesBeforeTheLastReadingAreDue() {
        // A restarted frame count (flush without reset) never skips a track.
        var s = RedecodeSchedule(interval: 5)
        s.read([1], frame: 100)
        XCTAssertTrue(s.isDue(1, frame: 3))
    }
}
