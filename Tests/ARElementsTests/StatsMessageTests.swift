import ARCore
import CGStreamer
import Foundation
import XCTest

/// `stats-interval`: periodic `arbarcode-stats` element messages.
final class StatsMessageTests: XCTestCase {
    /// The `arbarcode-stats` messages of a run, as structures.
    private func stats(_ launch: String) throws -> [UnsafeMutablePointer<GstStructure>] {
        let result = runPipelineFull(launch)
        XCTAssertNil(result.error?.message)
        return result.elementMessages.filter { $0.hasPrefix("arbarcode-stats") }.compactMap { gst_structure_from_string($0, nil) }
    }

    private func int(_ s: UnsafeMutablePointer<GstStructure>, _ field: String) -> Int? {
        var v: Int32 = 0
        return gst_structure_get_int(s, field, &v) != 0 ? Int(v) : nil
    }

    private func double(_ s: UnsafeMutablePointer<GstStructure>, _ field: String) -> Double? {
        var v = 0.0
        return gst_structure_get_double(s, field, &v) != 0 ? v : nil
    }

    func testTheTrackerReportsFramesRateDecodeTimesAndTracksEverySecondOfStreamTime() throws {
        let lines = temporaryPath("stats.jsonl")
        let messages = try stats("arcodesrc num-buffers=75 seed=3 codes=4 enter-leave=false ! video/x-raw,width=320,height=240,framerate=30/1 "
                                 + "! arbarcodetrack detect-mode=sync stats-interval=1 ! arexport location=\(lines) ! fakesink")
        let records = try String(contentsOfFile: lines, encoding: .utf8).split(separator: "\n").map { try FrameRecord(jsonLine: String($0)) }
        defer { messages.forEach { gst_structure_free($0) } }
        // 75 frames at 30 fps: two whole seconds.
        XCTAssertEqual(messages.count, 2)
        for (k, m) in messages.enumerated() {
            XCTAssertEqual(int(m, "frames"), 30)
            XCTAssertEqual(try XCTUnwrap(double(m, "fps")), 30, accuracy: 0.01)
            XCTAssertNotNil(double(m, "process-ms-median"))
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(double(m, "process-ms-p95")), try XCTUnwrap(double(m, "process-ms-median")))
            XCTAssertNotNil(double(m, "decode-ms-median"), "sync mode decodes on every frame")
            XCTAssertNotNil(int(m, "late"))
            // The tracks on the interval's last frame (frame 29, 59), as arexport wrote them.
            let last = records[30 * k + 29].objects.filter { $0.state != .lost && $0.state != .located }
            XCTAssertGreaterThan(last.count, 0)
            XCTAssertEqual(int(m, "tracks"), last.count)
            XCTAssertEqual(int(m, "occluded"), last.filter { $0.state == .occluded }.count)
        }
    }

    func testReachingMaxTracksWarnsOnceAndCountsTheRefusedCodesInTheStats() throws {
        let result = runPipelineFull("arcodesrc num-buffers=60 seed=3 codes=4 enter-leave=false ! video/x-raw,width=320,height=240,framerate=30/1 "
                                     + "! arbarcodetrack detect-mode=sync max-tracks=1 stats-interval=1 ! fakesink")
        XCTAssertNil(result.error?.message)
        let warnings = result.warnings.filter { $0.contains("max-tracks") }
        XCTAssertEqual(warnings.count, 1, "\(result.warnings)")
        XCTAssertTrue(warnings.first?.contains("max-tracks (1) reached") ?? false, "\(warnings)")
        let messages = result.elementMessages.filter { $0.hasPrefix("arbarcode-stats") }.compactMap { gst_structure_from_string($0, nil) }
        defer { messages.forEach { gst_structure_free($0) } }
        XCTAssertEqual(messages.count, 2)
        let refused = messages.compactMap { int($0, "tracks-refused") }
        XCTAssertEqual(refused.count, 2)
        // Three codes refused on every frame: the count grows with the frames.
        XCTAssertGreaterThan(refused.first ?? 0, 0)
        XCTAssertGreaterThan(refused.last ?? 0, refused.first ?? 0)
        XCTAssertEqual(messages.map { int($0, "tracks") }, [1, 1])
    }

    func testTheDetectorAndArtrackReportTooAndNothingIsPostedByDefault() throws {
        let detect = try stats("arcodesrc num-buffers=30 seed=3 codes=2 enter-leave=false ! video/x-raw,width=320,height=240,framerate=30/1 "
                               + "! arbarcodedetect stats-interval=0.5 ! artrack stats-interval=1 ! fakesink")
        defer { detect.forEach { gst_structure_free($0) } }
        // arbarcodedetect: two half seconds (codes counted); artrack: one second (tracks counted).
        XCTAssertEqual(detect.filter { int($0, "codes") != nil }.map { int($0, "frames") }, [15, 15])
        XCTAssertEqual(detect.filter { int($0, "tracks") != nil }.map { int($0, "frames") }, [30])
        let quiet = try stats("arcodesrc num-buffers=30 ! arbarcodetrack ! fakesink")
        XCTAssertEqual(quiet.count, 0)
    }

    func testTheOverlayReportsItsTimeAndCodesAndDrawsAStatsPanel() throws {
        let messages = try stats("arcodesrc num-buffers=30 seed=3 codes=2 enter-leave=false ! video/x-raw,width=320,height=240,framerate=30/1 "
                                 + "! arbarcodetrack detect-mode=sync ! aroverlay stats-interval=1 ! fakesink")
        defer { messages.forEach { gst_structure_free($0) } }
        XCTAssertEqual(messages.count, 1)
        XCTAssertEqual(messages.first.flatMap { int($0, "frames") }, 30)
        XCTAssertNotNil(messages.first.flatMap { int($0, "codes") })
        XCTAssertNotNil(messages.first.flatMap { double($0, "process-ms-p95") })
    }
}
