import Foundation
import XCTest

/// The `arserve` executable as users run it.
final class ArserveCommandTests: XCTestCase {
    private var binary: String { arserveBinary }

    private func run(_ arguments: [String], environment: [String: String] = [:], stopAfterStarting: Bool = false)
        throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = arguments
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        if stopAfterStarting {
            // Waits for the "serving" line, then asks it to stop as Ctrl-C would.
            var seen = Data()
            while !String(decoding: seen, as: UTF8.self).contains("watch with"), p.isRunning {
                seen.append(out.fileHandleForReading.availableData)
            }
            kill(p.processIdentifier, SIGINT)
            seen.append(out.fileHandleForReading.readDataToEndOfFile())
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: seen, as: UTF8.self),
                    String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    private func write(_ text: String) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("arserve-\(UUID().uuidString).pipeline").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    private func serve(_ file: String) throws -> (arserve: ChildProcess, url: String) {
        try startArserve([file, "--port", "0"])
    }

    func testAFailingPipelineIsLoggedWithItsElementAndReasonAndRestartedWithBackoff() throws {
        let missing = "/nonexistent-\(UUID().uuidString)/clip.mp4"
        let file = write("filesrc location=\(missing) ! decodebin ! videoconvert\n")
        let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        let (arserve, url) = try serve(file)
        // Fails at start, and again 1 s later when started again.
        XCTAssertTrue(waitUntil { logLines(arserve, containing: "restarting in 2 s").count == 1 }, arserve.stderr)
        let failures = logLines(arserve, containing: "failed: ")
        XCTAssertEqual(failures.count, 2, arserve.stderr)
        for (line, delay) in zip(failures, [1, 2]) {
            XCTAssertTrue(line.hasPrefix("arserve: camera \(name): failed: pipeline error from filesrc: Resource not found."), String(line))
            XCTAssertTrue(line.contains("No such file \"\(missing)\""), String(line))
            XCTAssertTrue(line.hasSuffix("; restarting in \(delay) s"), String(line))
        }
        // A viewer meanwhile is told the stream is unavailable, and the log says why.
        let viewer = try ffmpegDecode(url, transport: "tcp", frames: 1)
        XCTAssertTrue(viewer.messages.contains("503"), viewer.messages)
        XCTAssertTrue(waitUntil { !logLines(arserve, containing: "refused a viewer").isEmpty }, arserve.stderr)
        XCTAssertTrue(logLines(arserve, containing: "refused a viewer")[0]
            .hasPrefix("arserve: camera \(name): refused a viewer (503 Service Unavailable) while failed: pipeline error from filesrc"))
        XCTAssertEqual(arserve.interrupt(), 0)
    }

    /// A folder holding pipeline files named `name.pipeline` with the given text.
    private func folder(_ files: [String: String]) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("arserve-cameras-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, text) in files { _ = FileManager.default.createFile(atPath: "\(dir)/\(name).pipeline", contents: Data(text.utf8)) }
        return dir
    }

    func testAFolderIsServedAsOneCameraPerFileAndACameraThatEndsComesBack() throws {
        let caps = "video/x-raw,width=160,height=120,framerate=30/1"
        let dir = folder(["steady": "arcodesrc is-live=true codes=2 ! \(caps)\n",
                          "flaky": "# ends after 10 frames, like an IP camera that hangs up\narcodesrc is-live=true num-buffers=10 codes=2 ! \(caps)\n"])
        let (arserve, _) = try startArserve([dir, "--port", "0"])
        XCTAssertTrue(arserve.stdout.range(of: #"serving \S+/flaky\.pipeline at rtsp://127\.0\.0\.1:[0-9]+/flaky \(camera flaky\)"#,
                                           options: .regularExpression) != nil, arserve.stdout)
        guard let steady = arserve.stdout.range(of: #"rtsp://127\.0\.0\.1:[0-9]+/steady"#, options: .regularExpression) else {
            return XCTFail(arserve.stdout)
        }
        // The flaky camera ends, waits 1 s, runs again, and so on; the steady one plays meanwhile.
        let viewer = try ffmpegDecode(String(arserve.stdout[steady]), transport: "tcp", frames: 30)
        XCTAssertEqual(viewer.framesDecoded, 30, viewer.messages)
        XCTAssertTrue(waitUntil { logLines(arserve, containing: "camera flaky: running").count >= 2 }, arserve.stderr)
        XCTAssertTrue(logLines(arserve, containing: "camera flaky: failed: end of stream; restarting in 1 s").count >= 1, arserve.stderr)
        XCTAssertEqual(logLines(arserve, containing: "camera steady: ").map(String.init),
                       ["arserve: camera steady: starting", "arserve: camera steady: running"])
        XCTAssertEqual(arserve.interrupt(), 0)
    }

    func testPathNamesOnlyASingleFilesMount() throws {
        let r = try run([folder(["a": "videotestsrc\n", "b": "videotestsrc\n"]), "--path", "/x"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.err.contains("--path /x names the mount of a single file"), r.err)
    }

    func testViewersAreLoggedWhenTheyConnectAndLeave() throws {
        let (arserve, url) = try serve(write("videotestsrc is-live=true ! video/x-raw,width=160,height=120,framerate=30/1\n"))
        let viewer = try ffmpegDecode(url, transport: "tcp", frames: 5)
        XCTAssertEqual(viewer.framesDecoded, 5, viewer.messages)
        XCTAssertTrue(waitUntil { !logLines(arserve, containing: " left").isEmpty }, arserve.stderr)
        let connected = logLines(arserve, containing: "connected"), left = logLines(arserve, containing: " left")
        XCTAssertEqual(connected.count, 1, arserve.stderr)
        XCTAssertEqual(left.count, 1, arserve.stderr)
        let address = connected.first?.range(of: #"viewer 127\.0\.0\.1:[0-9]+"#, options: .regularExpression).map { String(connected[0][$0]) }
        XCTAssertNotNil(address, arserve.stderr)
        XCTAssertEqual(connected.first.map(String.init), "arserve: \(address ?? "?") connected")
        XCTAssertEqual(left.first.map(String.init), "arserve: \(address ?? "?") left")
        XCTAssertEqual(arserve.interrupt(), 0)
    }

    /// A folder holding only a stand-in for each of `players` (executable files), for PATH.
    private func pathWith(_ players: [String]) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("arserve-path-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for p in players {
            _ = FileManager.default.createFile(atPath: "\(dir)/\(p)", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        }
        return dir
    }

    func testSuggestsOnlyTheViewersThatAreInstalled() throws {
        let path = write("videotestsrc is-live=true ! video/x-raw,width=160,height=120,framerate=30/1\n")
        let r = try run([path, "--port", "0"], environment: ["PATH": pathWith(["ffplay", "mpv"])], stopAfterStarting: true)
        XCTAssertTrue(r.out.range(of: #"watch with: ffplay rtsp://127\.0\.0\.1:[0-9]+/ar   \(or mpv\)"#, options: .regularExpression) != nil, r.out)
        XCTAssertFalse(r.out.contains("gst-play-1.0"), r.out)
        XCTAssertFalse(r.out.contains("vlc"), r.out)
    }

    func testSaysWhereToGetAViewerWhenNoneIsInstalled() throws {
        let path = write("videotestsrc is-live=true ! video/x-raw,width=160,height=120,framerate=30/1\n")
        let r = try run([path, "--port", "0"], environment: ["PATH": pathWith([])], stopAfterStarting: true)
        XCTAssertTrue(r.out.contains("watch with any RTSP player at rtsp://127.0.0.1:"), r.out)
        XCTAssertTrue(r.out.contains("gst-play-1.0 comes with Debian's gstreamer1.0-plugins-base-apps"), r.out)
    }

    func testABrokenPipelineFileExitsNonZeroNamingTheElement() throws {
        let path = write("# broken\nvideotestsrc ! no-such-element ! aroverlay\n")
        let r = try run([path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.err.contains("\(path): the pipeline does not parse: no element \"no-such-element\""), r.err)
    }

    func testAnUnknownElementBeforeASinkIsNamedNotTakenForTheSink() throws {
        // The file ends in a sink, but what is wrong is the element GStreamer does not know.
        let path = write("videotestsrc ! nosuchelement ! fakesink\n")
        let r = try run([path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.err.contains("no element \"nosuchelement\""), r.err)
    }

    func testAnEmptyUserIsRefused() throws {
        let r = try run(["--user", "", "x.pipeline"], environment: ["ARSERVE_PASSWORD": "secret"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.err.contains("--user needs a name"), r.err)
    }

    func testAMissingVariableExitsNonZeroNamingIt() throws {
        let path = write("filesrc location=${NO_SUCH_VARIABLE_SET} ! decodebin\n")
        let r = try run([path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.err.contains("variable NO_SUCH_VARIABLE_SET is not set"), r.err)
    }

    func testBadOptionsPrintUsage() throws {
        let r = try run(["--port", "99999", "x.pipeline"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.err.contains("--port takes a number from 0 to 65535"), r.err)
        XCTAssertTrue(r.err.contains("usage: arserve FILE|FOLDER..."), r.err)
    }

    func testServesPrintsTheURLAndStopsCleanlyOnSIGINT() throws {
        let path = write("videotestsrc is-live=true ! video/x-raw,width=160,height=120,framerate=30/1 ! aroverlay\n")
        let r = try run([path, "--port", "0", "--path", "/test"], stopAfterStarting: true)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.range(of: #"serving .* at rtsp://127\.0\.0\.1:[0-9]+/test"#, options: .regularExpression) != nil, r.out)
        XCTAssertTrue(r.out.contains("arserve: stopped"), r.out)
    }
}
