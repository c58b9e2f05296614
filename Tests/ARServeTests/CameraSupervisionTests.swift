import ARPipelines
import ARServe
import Foundation
import XCTest

/// The pure parts of serving cameras: backoff, frame rate, naming files, log lines.
final class CameraSupervisionTests: XCTestCase {
    func testTheRestartDelayDoublesWithEachFailureInARowUpToTheMaximum() {
        let backoff = RestartBackoff()
        XCTAssertEqual((1...7).map { backoff.delaySeconds(failuresInARow: $0) }, [1, 2, 4, 8, 16, 30, 30])
        XCTAssertEqual(RestartBackoff(initialSeconds: 0.5, maximumSeconds: 3).delaySeconds(failuresInARow: 100), 3)
    }

    func testACameraThatRanForTheLongestDelayStartsOverAtTheFirstDelay() {
        let backoff = RestartBackoff(initialSeconds: 1, maximumSeconds: 30)
        XCTAssertEqual(backoff.failuresInARow(previous: 5, runningSeconds: 30), 1)
        XCTAssertEqual(backoff.failuresInARow(previous: 5, runningSeconds: 29.9), 6, "a short run counts as one more failure")
        XCTAssertEqual(backoff.failuresInARow(previous: 5, runningSeconds: nil), 6, "so does a run that never delivered a frame")
        XCTAssertEqual(backoff.failuresInARow(previous: 0, runningSeconds: nil), 1)
    }

    func testFramesPerSecondAreMeasuredOverTheLastSecond() {
        var meter = FrameRateMeter()
        let frame: UInt64 = 1_000_000_000 / 30
        for i in 0..<60 { meter.add(atNanoseconds: 5_000_000_000 + UInt64(i) * frame) }
        let last = 5_000_000_000 + 59 * frame
        XCTAssertEqual(meter.framesPerSecond(atNanoseconds: last), 30, accuracy: 0.01)
        XCTAssertEqual(meter.framesPerSecond(atNanoseconds: last + 2_000_000_000), 0, "nothing for two seconds")
        XCTAssertEqual(FrameRateMeter().framesPerSecond(atNanoseconds: last), 0)
    }

    func testStatesReadAsTheLogShowsThem() {
        XCTAssertEqual("\(ServeEvent.camera(name: "cam1", state: .running))", "camera cam1: running")
        XCTAssertEqual("\(ServeEvent.camera(name: "cam1", state: .failed(.endOfStream, restartInSeconds: 2)))",
                       "camera cam1: failed: end of stream; restarting in 2 s")
        let error = PipelineMessage(severity: .error, element: "v4l2src0", factory: "v4l2src",
                                    message: "Cannot identify device '/dev/video9'.", debug: nil)
        XCTAssertEqual("\(ServeEvent.camera(name: "door", state: .failed(.error(error), restartInSeconds: 0.25)))",
                       "camera door: failed: pipeline error from v4l2src: Cannot identify device '/dev/video9'.; restarting in 0.25 s")
    }

    /// A folder of pipeline files, and what else the test names.
    private func folder(_ files: [String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cameras-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in files { _ = FileManager.default.createFile(atPath: "\(dir)/\(name)", contents: Data("videotestsrc\n".utf8)) }
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return dir
    }

    func testAFolderServesEachPipelineFileAtItsName() throws {
        let dir = try folder(["door.pipeline", "aisle-2.pipeline", "notes.txt"])
        let cameras = try CameraSpec.resolve([dir], singlePath: nil)
        XCTAssertEqual(cameras.map(\.name), ["aisle-2", "door"])
        XCTAssertEqual(cameras.map(\.path), ["/aisle-2", "/door"])
        XCTAssertEqual(cameras.map(\.file.path), ["\(dir)/aisle-2.pipeline", "\(dir)/door.pipeline"])
    }

    func testOneFileKeepsItsMountPathAndSeveralAreNamedAfterTheirFiles() throws {
        let dir = try folder(["a.pipeline", "b.pipeline"])
        XCTAssertEqual(try CameraSpec.resolve(["\(dir)/a.pipeline"], singlePath: nil).map(\.path), ["/ar"])
        XCTAssertEqual(try CameraSpec.resolve(["\(dir)/a.pipeline"], singlePath: "/shop").map(\.path), ["/shop"])
        XCTAssertEqual(try CameraSpec.resolve(["\(dir)/a.pipeline", "\(dir)/b.pipeline"], singlePath: nil).map(\.path), ["/a", "/b"])
    }

    func testFilesThatCannotBeServedTogetherAreRefusedWithTheReason() throws {
        let one = try folder(["cam.pipeline", "bad name.pipeline"]), other = try folder(["cam.pipeline"])
        func reason(_ arguments: [String], _ path: String? = nil) -> String {
            do { _ = try CameraSpec.resolve(arguments, singlePath: path); return "accepted" } catch { return "\(error)" }
        }
        XCTAssertTrue(reason(["\(one)/cam.pipeline", "\(other)/cam.pipeline"]).hasSuffix("would both be served at /cam: rename one"))
        XCTAssertTrue(reason(["\(one)"]).contains("bad name.pipeline: a camera's name comes from its file's name, which may hold only letters, digits"))
        XCTAssertEqual(reason(["\(one)/bad name.pipeline"]), "accepted", "one file alone is served at /ar whatever its name")
        XCTAssertTrue(reason(["\(other)"], "/x").hasPrefix("--path /x names the mount of a single file"))
        XCTAssertEqual(reason([try folder([])]).hasSuffix("no .pipeline files in this folder"), true)
        XCTAssertTrue(reason(["/nonexistent-\(UUID().uuidString).pipeline"]).hasSuffix("no such file"))
    }
}
