import ARPipelines
import ARServe
import Foundation
import XCTest

/// Every file in pipelines/ runs: camera and network sources swapped for test sources, outputs
/// to temporary files, raw-video endings to a fakesink.
final class PipelineFilesTests: XCTestCase {
    private var files: [String] {
        let dir = packageRoot.appendingPathComponent("pipelines").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
            .filter { $0.hasSuffix(".pipeline") }.sorted().map { dir + "/" + $0 }
    }

    private func run(_ description: String) -> String? { PipelineRunner.run(description) }

    /// A short H.264 MP4 for the file pipeline's input.
    private func makeInputClip() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pipelines-input.mp4").path
        if FileManager.default.fileExists(atPath: path) { return path }
        XCTAssertNil(run("videotestsrc num-buffers=15 ! video/x-raw,width=320,height=240,framerate=30/1 ! x264enc ! mp4mux ! filesink location=\(path)"))
        return path
    }

    func testThereAreTheDocumentedPipelineFiles() {
        let names = Set(files.map { URL(fileURLWithPath: $0).lastPathComponent })
        XCTAssertTrue(names.isSuperset(of: ["demo.pipeline", "camera-display.pipeline", "camera-rtsp.pipeline",
                                            "file-to-mp4.pipeline", "ipcam-rtsp.pipeline", "camera-mqtt.pipeline"]), "\(names)")
    }

    func testEveryFileStartsWithCommentsSayingWhatItNeedsAndHowToRunIt() throws {
        for path in files {
            let header = try PipelineFile(contentsOf: path).header.joined(separator: "\n")
            XCTAssertTrue(header.contains("Needs:"), "\(path) says what it needs")
            XCTAssertTrue(header.contains("Run:"), "\(path) says how to run it")
        }
    }

    func testEveryFileRunsWithItsSourceSwappedForATestSource() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("pipelines-out-\(getpid())").path
        let env = ["INPUT": try makeInputClip(), "OUTPUT": out, "CAMERA_URL": "rtsp://127.0.0.1:9/none",
                   "WIDTH": "320", "HEIGHT": "240", "CODES": "3",
                   // camera-mqtt: no broker there (its messages wait in a queue of this run; EOS waits 10 s for a broker).
                   "MQTT_PORT": "9", "QUEUE_DIR": out + "-mqtt-queue"]
        for path in files {
            var description = try PipelineFile(contentsOf: path).description(environment: env)
            if description.hasPrefix("v4l2src") || description.hasPrefix("rtspsrc") {
                description = PipelineFile.replacingSource(of: description, with: "videotestsrc num-buffers=10 ! jpegenc")
            } else if description.hasPrefix("arcodesrc") {
                description = PipelineFile.replacingSource(of: description, with: "arcodesrc num-buffers=10 codes=3")
            }
            if PipelineFile.output(of: description) == .rawVideo { description += " ! fakesink" }
            XCTAssertNil(run(description), "\(path): \(description)")
        }
        let lines = try String(contentsOfFile: out + ".jsonl", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 15, "file-to-mp4 wrote one JSON line per input frame")
        XCTAssertGreaterThan((try FileManager.default.attributesOfItem(atPath: out + ".mp4")[.size] as? Int) ?? 0, 1000)
    }
}
