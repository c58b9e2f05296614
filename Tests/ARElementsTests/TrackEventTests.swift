import ARBridge
import ARCore
import ARGst
import CGStreamer
import CGstCheck
import Foundation
import XCTest

/// Track ids seen by the `track-added` / `track-removed` handlers.
private final class TrackSignalLog {
    var added: [UInt64] = []
    var removed: [UInt64] = []
}

private let onTrack: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GstStructure>?, UnsafeMutableRawPointer?) -> Void = {
    _, structure, data in
    let log = Unmanaged<TrackSignalLog>.fromOpaque(data!).takeUnretainedValue()
    var id: guint64 = 0
    var state: String = ""
    if let s = structure {
        _ = gst_structure_get_uint64(s, "track-id", &id)
        state = gst_structure_get_string(s, "state").map { String(cString: $0) } ?? ""
    }
    if state == "lost" { log.removed.append(UInt64(id)) } else { log.added.append(UInt64(id)) }
}

/// The `state` and `track-id` of every structure a tracking signal carried.
private final class TrackStructureLog {
    var entries: [(state: String, trackID: UInt64?)] = []
}

private let onAnyTrack: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GstStructure>?, UnsafeMutableRawPointer?) -> Void = {
    _, structure, data in
    let log = Unmanaged<TrackStructureLog>.fromOpaque(data!).takeUnretainedValue()
    guard let structure else { return }
    let s = StructureView(structure)
    log.entries.append((s.string("state") ?? "", s.uint64("track-id")))
}

final class TrackEventTests: XCTestCase {
    private let frameNs: UInt64 = 33_333_333

    func testAddedAndRemovedTracksAreAnnouncedBySignalsAndBusMessages() throws {
        let h = Harness("arbarcodetrack detect-mode=sync expiry=0.2", caps: TestFrame(width: 200, height: 200).i420Caps)
        let element = gst_harness_find_element(h.h, "arbarcodetrack")!
        defer { gst_object_unref(UnsafeMutableRawPointer(element)) }
        let bus = gst_bus_new()!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        gst_element_set_bus(element, bus)
        let log = TrackSignalLog()
        for name in ["track-added", "track-removed"] {
            _ = g_signal_connect_data(UnsafeMutableRawPointer(element), name, unsafeBitCast(onTrack, to: GCallback.self),
                                      Unmanaged.passUnretained(log).toOpaque(), nil, GConnectFlags(rawValue: 0))
        }
        var f = TestFrame(width: 200, height: 200)
        f.addQR("EVENTS", x: 100, y: 100, module: 4)
        let blank = TestFrame(width: 200, height: 200)
        let id = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0)?.regions.first?.trackID)
        _ = h.process(f.i420, ptsNanoseconds: frameNs)
        _ = h.process(blank.i420, ptsNanoseconds: 2 * frameNs)
        _ = h.process(blank.i420, ptsNanoseconds: 12 * frameNs)  // past expiry: lost
        XCTAssertEqual(log.added, [id])
        XCTAssertEqual(log.removed, [id])

        var lists: [(added: Int, removed: Int)] = []
        while let msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT) {
            defer { gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self)) }
            let s = StructureView(gst_message_get_structure(msg)!)
            XCTAssertEqual(s.name, "arbarcode-tracks")
            XCTAssertFalse(s.has("updated"), "updates are off by default")
            lists.append((s.structures("added").count, s.structures("removed").count))
            if let added = s.structures("added").first {
                XCTAssertEqual(added.string("data"), "EVENTS")
                XCTAssertEqual(added.uint64("track-id"), id)
                XCTAssertEqual(added.doubles("quad")?.count, 8)
            }
        }
        XCTAssertEqual(lists.map(\.added), [1, 0], "one message when added, one when removed")
        XCTAssertEqual(lists.map(\.removed), [0, 1])
    }

    func testLocatedRegionsPassThroughArtrackButAreNeverAnnounced() throws {
        let h = OverlayHarness("artrack expiry=0.2 message-updates=true")
        let element = h.element("artrack")
        let bus = gst_bus_new()!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        gst_element_set_bus(element, bus)
        let log = TrackStructureLog()
        for name in ["track-added", "track-updated", "track-removed"] {
            _ = g_signal_connect_data(UnsafeMutableRawPointer(element), name, unsafeBitCast(onAnyTrack, to: GCallback.self),
                                      Unmanaged.passUnretained(log).toOpaque(), nil, GConnectFlags(rawValue: 0))
        }
        let detected = BarcodeRegion(trackID: nil, symbology: "QR-Code", payload: Array("TRACK ME".utf8),
                                     quad: Quad(Rect(x: 40, y: 40, width: 60, height: 60)), state: .detected, quality: 1)
        let located = BarcodeRegion(locatedClass: "1D", quad: Quad(Rect(x: 180, y: 100, width: 90, height: 30)))
        for i in 0..<3 {
            let out = try XCTUnwrap(h.push(h.black, codes: [detected, located], seconds: Double(i) * 0.04))
            XCTAssertEqual(out.regions.filter { $0.state == .located }, [located], "frame \(i): the located region passes through")
            XCTAssertEqual(out.regions.filter { $0.state != .located }.count, 1, "frame \(i): one track")
        }
        // Only the located region left, then past expiry: the track is removed, the region still passes.
        for t in [0.12, 1.0] {
            let out = try XCTUnwrap(h.push(h.black, codes: [located], seconds: t))
            XCTAssertEqual(out.regions.filter { $0.state == .located }, [located])
        }

        XCTAssertFalse(log.entries.isEmpty, "the track was announced")
        XCTAssertFalse(log.entries.contains { $0.state == "located" }, "no signal for a located region")
        XCTAssertTrue(log.entries.allSatisfy { $0.trackID != nil }, "every signal names a track")
        var announced: [String] = []
        while let msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT) {
            defer { gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self)) }
            let s = StructureView(gst_message_get_structure(msg)!)
            for list in ["added", "updated", "removed"] {
                announced += s.structures(list).map { $0.string("state") ?? "" }
                XCTAssertTrue(s.structures(list).allSatisfy { $0.has("track-id") }, list)
            }
        }
        XCTAssertFalse(announced.isEmpty, "the track was in the messages")
        XCTAssertFalse(announced.contains("located"), "no message lists a located region")
        XCTAssertEqual(announced.filter { $0 == "lost" }.count, 1, "the track's removal")
    }

    /// An EAN-13 read at the frame's left edge by two lines (`arbarcodedetect`'s partial outline
    /// of a code the edge may cut short, `at-frame-edge`) is tracked only once read on three
    /// frames: `artrack` passes the mark on to its tracker.
    func testAnEANReadOnlyAtTheFrameEdgeIsTrackedOnItsThirdFrame() throws {
        let h = OverlayHarness("artrack")
        var cut = BarcodeRegion(trackID: nil, symbology: "EAN-13", payload: Array("3118092990844".utf8),
                                quad: Quad(Rect(x: 0, y: 100, width: 120, height: 40)), state: .detected, quality: 2)
        cut.outlineComplete = false
        cut.atFrameEdge = true
        var tracked: [Int] = []
        for i in 0..<3 {
            let out = try XCTUnwrap(h.push(h.black, codes: [cut], seconds: Double(i) * 0.04))
            tracked.append(out.regions.filter { $0.trackID != nil }.count)
        }
        XCTAssertEqual(tracked, [0, 0, 1])
    }

    func testFlushForgetsEveryTrack() throws {
        let h = Harness("arbarcodetrack detect-mode=sync", caps: TestFrame(width: 200, height: 200).i420Caps)
        var f = TestFrame(width: 200, height: 200)
        f.addQR("FLUSH", x: 100, y: 100, module: 4)
        let blank = TestFrame(width: 200, height: 200)
        let id = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0)?.regions.first?.trackID)
        XCTAssertEqual(h.process(blank.i420, ptsNanoseconds: frameNs)?.regions.count, 1, "still followed before the flush")
        XCTAssertTrue(gst_harness_push_event(h.h, gst_event_new_flush_start()) != 0)
        XCTAssertTrue(gst_harness_push_event(h.h, gst_event_new_flush_stop(1)) != 0)
        let segment = UnsafeMutablePointer<GstSegment>.allocate(capacity: 1)
        defer { segment.deallocate() }
        gst_segment_init(segment, GST_FORMAT_TIME)
        _ = gst_harness_push_event(h.h, gst_event_new_segment(segment))
        XCTAssertEqual(h.process(blank.i420, ptsNanoseconds: 2 * frameNs)?.regions.count, 0, "nothing carried over the flush")
        let again = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 3 * frameNs)?.regions.first?.trackID)
        XCTAssertGreaterThan(again, id, "ids are never reused")
    }

    func testIdSurvivesMotionAndAShortOcclusion() throws {
        let h = Harness("arbarcodetrack detect-mode=sync detect-interval=2", caps: TestFrame(width: 320, height: 200).i420Caps)
        var ids: Set<UInt64> = []
        var states: [TrackState] = []
        for i in 0..<12 {
            var f = TestFrame(width: 320, height: 200)
            // Hidden on frames 5...7, moving 5 px per frame throughout.
            if !(5...7).contains(i) { f.addQR("MOVER", x: 80 + Double(i) * 5, y: 100, module: 3) }
            let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
            XCTAssertEqual(regions.count, 1, "frame \(i)")
            ids.formUnion(regions.compactMap(\.trackID))
            states.append(regions.first?.state ?? .lost)
        }
        XCTAssertEqual(ids.count, 1)
        // Gone from its place: occluded from the second frame it is not there.
        XCTAssertEqual(Array(states[5...7]), [.tracked, .occluded, .occluded])
        XCTAssertEqual(states.last, .detected)
    }

    func testSyncModeGivesIdenticalOutputOnEveryRun() throws {
        var runs: [String] = []
        for k in 0..<2 {
            let path = temporaryPath("sync-\(k).jsonl")
            XCTAssertNil(runPipeline("arcodesrc num-buffers=24 seed=3 codes=4 ! video/x-raw,format=GRAY8,width=320,height=240 "
                                     + "! arbarcodetrack detect-mode=sync detect-interval=4 ! arexport location=\(path) ! fakesink"))
            runs.append(try String(contentsOfFile: path, encoding: .utf8))
        }
        XCTAssertEqual(runs[0], runs[1])
        let records = try runs[0].split(separator: "\n").map { try FrameRecord(jsonLine: String($0)) }
        XCTAssertEqual(records.count, 24)
        XCTAssertFalse(records.allSatisfy { $0.objects.isEmpty }, "codes are found")
    }

    func testAsyncModeReportsOnlyRealCodesWithUniqueIds() throws {
        let h = Harness("arbarcodetrack detect-mode=async", caps: TestFrame(width: 200, height: 200).i420Caps)
        var f = TestFrame(width: 200, height: 200)
        f.addQR("ASYNC", x: 100, y: 100, module: 4)
        for i in 0..<10 {
            // Whether the worker has finished by now depends on timing; what is reported must be right regardless.
            let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
            XCTAssertLessThanOrEqual(regions.count, 1)
            for r in regions {
                XCTAssertEqual(r.text, "ASYNC")
                XCTAssertEqual(r.trackID, 1)
            }
        }
    }

    func testDecodeWorkerRunsBelowTheStreamingThread() throws {
        let h = Harness("arbarcodetrack detect-mode=async", caps: TestFrame(width: 200, height: 200).i420Caps)
        var f = TestFrame(width: 200, height: 200)
        f.addQR("NICE", x: 100, y: 100, module: 4)
        // The worker names itself and lowers its priority before its first job: once a decoded
        // result is back, both are done (a busy machine may take many frames to get there).
        var decoded = false
        for i in 0..<1_000 where !decoded {
            decoded = h.process(f.i420, ptsNanoseconds: UInt64(i) * 33_333_333)?.regions.contains { $0.text == "NICE" } ?? false
            if !decoded { usleep(10_000) }
        }
        XCTAssertTrue(decoded, "the worker decoded the code")
        // Each thread's nice value is field 19 of /proc/self/task/TID/stat (after the name's ")").
        func nice(_ tid: String) throws -> Int? {
            let stat = try String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8)
            guard let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return Int(fields[16])
        }
        var workers: [Int] = []
        for tid in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") {
            let name = try String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8)
            if name.hasPrefix("arbarcodetrack") { workers.append(try XCTUnwrap(nice(tid))) }
        }
        XCTAssertFalse(workers.isEmpty, "the decode worker is running")
        XCTAssertEqual(Set(workers), [10], "decode workers run at nice 10")
        XCTAssertEqual(try nice(String(getpid())), 0, "the process (and the test's streaming thread) stays at 0")
    }
}
