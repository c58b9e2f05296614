import XCTest
@testable import ARCore

/// The lifecycle shared by every kind of target: ids, states, expiry, the cap, reports, reset.
final class TargetTrackerTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    /// A core whose targets are plain names.
    private func core(expiryMs: UInt64 = 100, maxTracks: Int = 8) -> TargetTracker<String> {
        TargetTracker(expiryNanoseconds: expiryMs * ms, maxTracks: maxTracks)
    }

    func testIdsStartAtOneAndAreNeverReusedAfterExpiryOrReset() {
        var tracker = core()
        tracker.clock(0)
        XCTAssertEqual(tracker.start("a"), 1)
        XCTAssertEqual(tracker.start("b"), 2)
        tracker.clock(500 * ms)
        XCTAssertEqual(tracker.expire().map(\.id), [1, 2])
        XCTAssertEqual(tracker.start("a again"), 3)
        tracker.reset()
        tracker.clock(0)
        XCTAssertEqual(tracker.start("after reset"), 4)
        XCTAssertNotNil(tracker.remove(id: 4))
        XCTAssertEqual(tracker.start("after remove"), 5)
    }

    func testACallersIdIsKeptAndLaterIdsFollowIt() {
        var tracker = core()
        XCTAssertEqual(tracker.start("note", id: 7), 7)
        XCTAssertEqual(tracker.start("next"), 8)
        XCTAssertEqual(tracker.start("earlier", id: 3), 3)
        XCTAssertEqual(tracker.entries.map(\.id), [3, 7, 8])
        XCTAssertEqual(tracker.start("next"), 9)
    }

    func testATrackExpiresOnlyAfterMoreThanTheExpiryUnseenAndIsReportedLostOnce() {
        var tracker = core(expiryMs: 100)
        tracker.clock(0)
        _ = tracker.start("a")
        _ = tracker.report()
        tracker.clock(100 * ms)
        XCTAssertEqual(tracker.expire().count, 0, "exactly the expiry unseen: still alive")
        guard !tracker.entries.isEmpty else { return XCTFail("expired at exactly the expiry") }
        tracker.see(0, as: .tracked)
        tracker.clock(200 * ms)
        XCTAssertEqual(tracker.expire().count, 0, "seeing it started the expiry over")
        tracker.clock(200 * ms + 1)
        let lost = tracker.expire()
        XCTAssertEqual(lost.map(\.state), [.lost])
        let report = tracker.report()
        XCTAssertEqual(report.removed.map(\.id), [1])
        XCTAssertEqual(report.tracks.map(\.state), [.lost])
        XCTAssertTrue(tracker.entries.isEmpty)
        tracker.clock(300 * ms)
        XCTAssertEqual(tracker.report().tracks.count, 0, "a lost track is reported once")
    }

    func testMaxTracksRefusesAndCountsUntilASlotIsFree() {
        var tracker = core(expiryMs: 100, maxTracks: 2)
        tracker.clock(0)
        XCTAssertEqual(tracker.start("a"), 1)
        tracker.clock(50 * ms)
        XCTAssertEqual(tracker.start("b"), 2)
        XCTAssertTrue(tracker.isFull)
        XCTAssertNil(tracker.start("c"))
        tracker.refuse(2)
        XCTAssertEqual(tracker.report().refused, 3)
        XCTAssertEqual(tracker.report().refused, 0, "refusals are counted per report")
        tracker.clock(120 * ms)
        tracker.expire()
        XCTAssertEqual(tracker.start("c"), 3, "the slot of the expired track is free, the id is new")
    }

    func testReportsListAddedUpdatedAndRemovedSortedById() {
        var tracker = core(expiryMs: 100)
        tracker.clock(0)
        _ = tracker.start("a", id: 5)
        _ = tracker.start("b", id: 2)
        _ = tracker.start("c")
        var report = tracker.report()
        XCTAssertEqual(report.added.map(\.id), [2, 5, 6])
        XCTAssertEqual(report.updated.map(\.id), [])
        XCTAssertEqual(report.tracks.map(\.target), ["b", "a", "c"])

        tracker.clock(80 * ms)
        tracker.see(2)
        tracker.see(0, as: .tracked)
        tracker.setState(.occluded, at: 1)
        _ = tracker.start("d")
        report = tracker.report()
        XCTAssertEqual(report.added.map(\.id), [7])
        XCTAssertEqual(report.updated.map(\.id), [2, 6])
        XCTAssertEqual(report.tracks.map(\.state), [.tracked, .occluded, .detected, .detected])

        tracker.clock(150 * ms)
        tracker.expire()
        report = tracker.report()
        XCTAssertEqual(report.removed.map(\.id), [5], "unseen since 0 ms; the others were seen at 80 ms")
        XCTAssertEqual(report.tracks.map(\.id), [2, 5, 6, 7])
        XCTAssertEqual(report.tracks.map(\.state), [.tracked, .lost, .detected, .detected])

        tracker.clock(181 * ms)
        tracker.expire()
        report = tracker.report()
        XCTAssertEqual(report.removed.map(\.id), [2, 6, 7])
        XCTAssertEqual(report.tracks.map(\.state), [.lost, .lost, .lost])
    }

    func testResetForgetsWithoutReportingAndRestartsTheClock() {
        var tracker = core()
        tracker.clock(1_000 * ms)
        _ = tracker.start("a")
        tracker.reset()
        XCTAssertTrue(tracker.entries.isEmpty)
        let report = tracker.report()
        XCTAssertEqual(report.tracks.count + report.added.count + report.removed.count, 0)
        XCTAssertEqual(tracker.clock(0), 0, "after a reset an earlier time is no jump back")
    }

    func testATimestampGoingBackKeepsEveryTracksAge() {
        var tracker = core(expiryMs: 100)
        tracker.clock(1_000 * ms)
        _ = tracker.start("a")
        tracker.clock(1_060 * ms)
        XCTAssertEqual(tracker.clock(20 * ms), 1_040 * ms)
        XCTAssertEqual(tracker.entries.first?.lastSeenNanoseconds, 0, "60 ms old, clamped at 0")
        tracker.clock(100 * ms)
        XCTAssertEqual(tracker.expire().count, 0)
        tracker.clock(100 * ms + 1)
        XCTAssertEqual(tracker.expire().map(\.id), [1])
    }

    func testTargetsChangeInPlaceAndKeepTheirTimes() {
        var tracker = core()
        tracker.clock(10 * ms)
        _ = tracker.start("a")
        tracker.clock(30 * ms)
        tracker.modify(0) { $0 += "!" }
        tracker.updateTargets { $0 = $0.uppercased() }
        XCTAssertEqual(tracker[0].target, "A!")
        XCTAssertEqual(tracker[0].firstSeenNanoseconds, 10 * ms)
        XCTAssertEqual(tracker[0].lastSeenNanoseconds, 10 * ms, "changing a target is not seeing it")
    }
}
