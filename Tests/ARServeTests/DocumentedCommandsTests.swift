import ARPipelines
import ARServe
import Foundation
import XCTest

/// Every command a pipeline file's header documents under `Run:`, run as written from a fresh
/// clone (`scripts/` and `pipelines/` copied into an empty folder, the built plugin beside them,
/// no `out/`), with the file's own variables making the input short.
final class DocumentedCommandsTests: XCTestCase {
    /// A command from a header: `INPUT=clip.mp4 OUTPUT=out/annotated scripts/arlaunch pipelines/x.pipeline`.
    struct Command: CustomStringConvertible {
        var environment: [String: String]
        /// `scripts/arlaunch` or `arserve`.
        var program: String
        /// The pipeline file, relative to the clone.
        var file: String
        /// Options after the file, optional ones (`[--port 8554]`) left out.
        var options: [String]
        var description: String { "\(environment.map { "\($0)=\($1)" }.sorted().joined(separator: " ")) \(program) \(file) \(options.joined(separator: " "))" }
    }

    /// The commands in every file's header.
    private func documentedCommands() throws -> [Command] {
        let dir = packageRoot.appendingPathComponent("pipelines").path
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".pipeline") }.sorted()
        let pattern = #"^((?:[A-Z_]+=\S+\s+)*)(scripts/arlaunch|arserve)\s+(pipelines/\S+\.pipeline)((?:\s+--[a-z-]+\s+[^\s\[(]+)*)"#
        let regex = try NSRegularExpression(pattern: pattern)
        var commands: [Command] = []
        for name in names {
            var found = 0
            for line in try PipelineFile(contentsOf: "\(dir)/\(name)").header {
                let text = line.hasPrefix("Run:") ? String(line.dropFirst(4)).trimmingCharacters(in: .whitespaces) : line
                guard let m = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { continue }
                func group(_ i: Int) -> String { Range(m.range(at: i), in: text).map { String(text[$0]) } ?? "" }
                var environment: [String: String] = [:]
                for assignment in group(1).split(separator: " ") {
                    let parts = assignment.split(separator: "=", maxSplits: 1)
                    environment[String(parts[0])] = String(parts[1])
                }
                commands.append(Command(environment: environment, program: group(2), file: group(3),
                                        options: group(4).split(separator: " ").map(String.init)))
                found += 1
            }
            XCTAssertGreaterThan(found, 0, "\(name) documents how to run it (Run: scripts/arlaunch … or arserve …)")
        }
        return commands
    }

    /// An empty folder holding a copy of `scripts/` and `pipelines/`, and `.build` linked to this
    /// build (the plugin, as after `scripts/demo.sh` or `make build`).
    private func freshClone() throws -> String {
        let clone = FileManager.default.temporaryDirectory.appendingPathComponent("arbarcode-clone-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: clone, withIntermediateDirectories: true)
        for folder in ["scripts", "pipelines"] {
            try FileManager.default.copyItem(atPath: packageRoot.appendingPathComponent(folder).path, toPath: "\(clone)/\(folder)")
        }
        try FileManager.default.createSymbolicLink(atPath: "\(clone)/.build", withDestinationPath: packageRoot.appendingPathComponent(".build").path)
        addTeardownBlock {
            try? FileManager.default.removeItem(atPath: "\(clone)/.build")  // the link only, first
            try? FileManager.default.removeItem(atPath: clone)
        }
        return clone
    }

    /// The folder holding the release-built libgstarbarcode.so: $AR_PLUGIN_DIR (set by
    /// scripts/test.sh) or .build/release.
    private func pluginDirectory() throws -> String {
        let dir = ProcessInfo.processInfo.environment["AR_PLUGIN_DIR"] ?? packageRoot.appendingPathComponent(".build/release").path
        guard FileManager.default.fileExists(atPath: dir + "/libgstarbarcode.so") else {
            XCTFail("no libgstarbarcode.so in \(dir): build it first (swift build -c release --product gstarbarcode; scripts/test.sh does)")
            throw CocoaError(.fileNoSuchFile)
        }
        return dir
    }

    /// A device path no machine has, so camera files fail the same way everywhere.
    private let noCamera = "/dev/arbarcode-test-no-camera"

    /// The documented variables, then the file's own variables for a short, headless run.
    private func environment(for command: Command) throws -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["GST_PLUGIN_PATH"] = try pluginDirectory()
        env.merge(command.environment) { $1 }
        env.merge(["AR_SINK": "fakesink", "FRAMES": "10", "LIVE": "false", "WIDTH": "320", "HEIGHT": "240", "CODES": "3",
                   "DEVICE": noCamera]) { $1 }
        return env
    }

    private func isCameraFile(_ file: String) throws -> Bool {
        try PipelineFile(contentsOf: packageRoot.appendingPathComponent(file).path).text
            .split(separator: "\n").first { !$0.hasPrefix("#") && !$0.isEmpty }?.hasPrefix("v4l2src") ?? false
    }

    func testEveryDocumentedArlaunchCommandRunsFromAFreshClone() throws {
        let commands = try documentedCommands().filter { $0.program == "scripts/arlaunch" }
        XCTAssertFalse(commands.isEmpty)
        let clone = try freshClone()
        for command in commands {
            let env = try environment(for: command)
            if let input = env["INPUT"], !input.hasPrefix("/") {
                // A short clip where the command expects one.
                XCTAssertNil(PipelineRunner.run("videotestsrc num-buffers=10 ! video/x-raw,width=320,height=240,framerate=30/1 "
                                                + "! x264enc ! mp4mux ! filesink location=\(clone)/\(input)"))
            }
            let run = try ChildProcess("\(clone)/\(command.program)", [command.file] + command.options, environment: env, directory: clone)
            let status = run.waitForExit()
            let output = run.stdout + run.stderr
            if try isCameraFile(command.file) {
                // Runs up to the camera, and says it is missing.
                XCTAssertNotEqual(status, 0, "\(command)")
                XCTAssertTrue(output.contains("Cannot identify device '\(noCamera)'"), "\(command): \(output)")
                continue
            }
            XCTAssertEqual(status, 0, "\(command): \(output)")
            if let out = env["OUTPUT"] {
                // file-to-mp4: "writes $OUTPUT.mp4 and $OUTPUT.jsonl (one line per frame)".
                let mp4 = (try? FileManager.default.attributesOfItem(atPath: "\(clone)/\(out).mp4")[.size] as? Int) ?? 0
                XCTAssertGreaterThan(mp4, 1000, "\(command) wrote \(out).mp4: \(output)")
                let jsonl = (try? String(contentsOfFile: "\(clone)/\(out).jsonl", encoding: .utf8)) ?? ""
                XCTAssertEqual(jsonl.split(separator: "\n").count, 10, "\(command) wrote one JSON line per frame")
            }
        }
    }

    func testEveryDocumentedArserveCommandServesFromAFreshClone() throws {
        let commands = try documentedCommands().filter { $0.program == "arserve" }
        XCTAssertFalse(commands.isEmpty)
        let clone = try freshClone()
        // The IP camera for ipcam-rtsp: the demo served in this process.
        let loop = MainLoopThread()
        defer { loop.stop() }
        var cameraOptions = ServeOptions()
        cameraOptions.port = 0
        let camera = try PipelineServer(file: try PipelineFile(contentsOf: packageRoot.appendingPathComponent("pipelines/demo.pipeline").path),
                                        options: cameraOptions, environment: ["WIDTH": "320", "HEIGHT": "240", "CODES": "3"])
        defer { camera.stop() }
        let cameraURL = try camera.start(context: loop.context)

        for command in commands {
            var env = try environment(for: command)
            env["LIVE"] = "true"  // a served pipeline runs for as long as viewers watch
            env["FRAMES"] = "-1"
            if env["CAMERA_URL"] != nil { env["CAMERA_URL"] = cameraURL }
            // The documented port may be taken on a shared machine: a free one instead.
            var options = command.options
            if let i = options.firstIndex(of: "--port") { options.removeSubrange(i...i + 1) }
            let (arserve, url) = try startArserve([command.file] + options + ["--port", "0"], environment: env, directory: clone)
            let viewer = try ffmpegDecode(url, transport: "tcp", frames: 10)
            if try isCameraFile(command.file) {
                // Serves, and tells the viewer's 503 apart: the camera is missing.
                XCTAssertTrue(viewer.messages.contains("503"), "\(command): \(viewer.messages)")
                XCTAssertTrue(waitUntil { !logLines(arserve, containing: "pipeline error from v4l2src").isEmpty }, "\(command): \(arserve.stderr)")
                XCTAssertTrue(arserve.stderr.contains("Cannot identify device '\(noCamera)'"), "\(command): \(arserve.stderr)")
            } else {
                XCTAssertEqual(viewer.framesDecoded, 10, "\(command): \(viewer.messages) \(arserve.stderr)")
                XCTAssertEqual(viewer.messages, "", "\(command)")
            }
            XCTAssertEqual(arserve.interrupt(), 0, "\(command): \(arserve.stderr)")
        }
    }
}
