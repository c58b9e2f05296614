import ARCore
import ARDetect
@testable import ARElements
import ARVision
import XCTest

/// arbarcodetrack's decode worker on a stepped executor: the frame a result comes from and the
/// frame that collects it, exactly.
final class TrackDecodeWorkerTests: XCTestCase {
    private let executor = SteppedExecutor()

    private func job(frame: UInt64, text: String) throws -> TrackDecodeWorker.Job {
        var f = TestFrame(width: 200, height: 200)
        f.addQR(text, x: 100, y: 100, module: 4)
        let plane = LumaPlane(width: f.width, height: f.height, pixels: f.image.pixels)
        return TrackDecodeWorker.Job(plane: plane, frame: frame, kind: .full, options: DetectorOptions())
    }

    private func texts(_ result: TrackDecodeWorker.Result) -> [String] {
        result.detections.map { String(decoding: $0.payload, as: UTF8.self) }
    }

    func testAFullScanSubmittedOnFrameFiveReachesTheFrameThatCollectsIt() throws {
        let worker = TrackDecodeWorker(decoder: try TrackDecoder(symbologies: nil), executor: executor)
        XCTAssertTrue(worker.submit(try job(frame: 5, text: "FIVE")))
        XCTAssertFalse(worker.submit(try job(frame: 6, text: "SIX")), "frame 6: one decode in flight")
        XCTAssertNil(worker.takeResult(), "frame 6: not decoded yet")
        XCTAssertTrue(executor.runNext())
        let result = try XCTUnwrap(worker.takeResult(), "frame 7: the worker delivered")
        XCTAssertEqual(result.frame, 5)
        XCTAssertTrue(result.full)
        XCTAssertEqual(texts(result), ["FIVE"])
        worker.stop()
        XCTAssertTrue(executor.shutDown)
    }

    /// A live frame waits for a full scan's first decodes (`DecodeWait`): its readings are ready
    /// when they end, before the scan does; a region job's when it ends.
    func testAFullScansReadingsAreReadyWhenItsFirstDecodesEnd() throws {
        // A clock one millisecond later on every reading: the times count the readings before them.
        let ticks = Ticks()
        let worker = TrackDecodeWorker(decoder: try TrackDecoder(symbologies: nil), executor: executor, clock: { ticks.next() * 1_000_000 })
        XCTAssertTrue(worker.submit(try job(frame: 1, text: "READY")))
        XCTAssertTrue(executor.runNext())
        let full = try XCTUnwrap(worker.takeResult())
        XCTAssertEqual(texts(full), ["READY"])
        XCTAssertGreaterThan(full.readyMilliseconds, 0)
        XCTAssertLessThan(full.readyMilliseconds, full.milliseconds, "ready when the first decodes ended, before the scan's end")
        let read = full.detections[0]
        let track = Track(id: 1, symbology: read.symbology, payload: read.payload, quad: read.quad, state: .detected,
                          firstSeenNanoseconds: 0, lastDecodedNanoseconds: 0, quality: read.quality)
        var regions = try job(frame: 2, text: "READY")
        regions.kind = .regions
        regions.tracks = [track]
        XCTAssertTrue(worker.submit(regions))
        XCTAssertTrue(executor.runNext())
        let tracked = try XCTUnwrap(worker.takeResult())
        XCTAssertEqual(tracked.tracked.map { String(decoding: $0.payload, as: UTF8.self) }, ["READY"])
        XCTAssertEqual(tracked.readyMilliseconds, tracked.milliseconds, "a region job: ready when it ends")
        worker.stop()
    }

    func testAFlushBeforeTheWorkerStartsDropsTheFramesBeforeIt() throws {
        let worker = TrackDecodeWorker(decoder: try TrackDecoder(symbologies: nil), executor: executor)
        XCTAssertTrue(worker.submit(try job(frame: 1, text: "BEFORE")))
        worker.cancel()
        XCTAssertTrue(worker.submit(try job(frame: 2, text: "AFTER")))
        while executor.runNext() {}
        let result = try XCTUnwrap(worker.takeResult())
        XCTAssertEqual(result.frame, 2)
        XCTAssertEqual(texts(result), ["AFTER"])
        XCTAssertNil(worker.takeResult())
        worker.stop()
    }

    /// A flush also makes the worker's decoder forget the frames before: after it, its scans go as
    /// a new detector's (the blob's turns on calls 6 and 12, `BlobAroundTrackedCode`).
    func testAfterAFlushTheWorkersScansGoAsANewDetectorsDo() throws {
        let fixture = try BlobAroundTrackedCode()
        let worker = TrackDecodeWorker(decoder: try TrackDecoder(symbologies: nil, options: fixture.options), executor: executor)
        let scan = { (frame: UInt64) -> [String] in
            XCTAssertTrue(worker.submit(TrackDecodeWorker.Job(plane: fixture.plane, frame: frame, kind: .full, skipping: [fixture.tracked],
                                                              options: fixture.options)))
            XCTAssertTrue(self.executor.runNext())
            return self.texts(try XCTUnwrap(worker.takeResult()))
        }
        for frame in 1...3 { XCTAssertEqual(try scan(UInt64(frame)), []) }
        worker.cancel()
        XCTAssertEqual(try (1...12).map { try scan(UInt64(3 + $0)) }, fixture.newDetectorsReads())
        worker.stop()
    }
}

/// A clock's readings, one more on every call.
private final class Ticks: @unchecked Sendable {  // `count` is guarded by `lock`.
    private let lock = NSLock()
    private var count: UInt64 = 0

    func next() -> UInt64 { lock.withLock { count += 1; return count } }
}
