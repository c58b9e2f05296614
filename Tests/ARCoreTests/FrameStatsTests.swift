import XCTest
@testable import ARCore

final class FrameStatsTests: XCTestCase {
    private let frame: UInt64 = 33_333_333

    func testOneReportPerIntervalOfStreamTimeWithRateTimesAndLateFrames() throws {
        var stats = FrameStats(intervalNanoseconds: 1_000_000_000)
        var reports: [FrameStats.Report] = []
        for i in 0..<90 {
            // Frame i takes i % 10 ms; every 30th frame 50 ms (longer than its 33 ms): late.
            let ms = i % 30 == 29 ? 50.0 : Double(i % 10)
            if let r = stats.record(ptsNanoseconds: UInt64(i) * frame, durationNanoseconds: frame, processMilliseconds: ms,
                                    decodeMilliseconds: i % 2 == 0 ? 4 : nil) {
                reports.append(r)
            }
        }
        XCTAssertEqual(reports.count, 3, "one report per second of stream time")
        let r = reports[0]
        XCTAssertEqual(r.frames, 30)
        XCTAssertEqual(r.fps, 30, accuracy: 0.01)
        XCTAssertEqual(r.processMedianMilliseconds, 4)
        XCTAssertEqual(r.processP95Milliseconds, 9)
        XCTAssertEqual(r.decodeMedianMilliseconds, 4)
        XCTAssertEqual(r.late, 1)
    }

    func testNoIntervalNoReportsAndASeekStartsAnew() {
        var off = FrameStats(intervalNanoseconds: 0)
        XCTAssertNil(off.record(ptsNanoseconds: 10 * frame, durationNanoseconds: frame, processMilliseconds: 1))
        var stats = FrameStats(intervalNanoseconds: 1_000_000_000)
        for i in 0..<20 { _ = stats.record(ptsNanoseconds: UInt64(100 + i) * frame, durationNanoseconds: frame, processMilliseconds: 1) }
        // Back to 0: the 20 frames before the seek are not counted in the next report.
        var report: FrameStats.Report?
        for i in 0..<30 where report == nil {
            report = stats.record(ptsNanoseconds: UInt64(i) * frame, durationNanoseconds: frame, processMilliseconds: 1)
        }
        XCTAssertEqual(report?.frames, 30)
        XCTAssertNil(report?.decodeMedianMilliseconds)
    }
}
