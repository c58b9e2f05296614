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
