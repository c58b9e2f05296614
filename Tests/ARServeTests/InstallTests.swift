import ARServe
import Foundation
import XCTest

/// `make install` and `make install-service` as the README describes them, into temporary folders,
/// with what they install run from there.
final class InstallTests: XCTestCase {
    /// A fresh temporary folder, removed after the test.
    private func temporaryFolder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("arbarcode-install-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return dir
    }

    /// Runs `make ARGUMENTS` in the package's folder; its output, after checking it succeeded.
    @discardableResult
    private func make(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        for product in ["arserve", "libgstarbarcode.so"] where !FileManager.default.fileExists(atPath: packageRoot.path + "/.build/release/\(product)") {
            XCTFail("no .build/release/\(product): build it first (make build; scripts/test.sh does)", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        let run = try ChildProcess("make", ["--no-print-directory"] + arguments, directory: packageRoot.path)
        XCTAssertEqual(run.waitForExit(), 0, "make \(arguments): \(run.stdout) \(run.stderr)", file: file, line: line)
        return run.stdout
    }

    private func isExecutable(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    func testMakeInstallPutsArserveAndThePluginUnderThePrefixAndTheyRunFromThere() throws {
        let prefix = try temporaryFolder()
        let output = try make(["install-built", "PREFIX=\(prefix)"])
        let arserve = "\(prefix)/bin/arserve", plugin = "\(prefix)/lib/gstreamer-1.0/libgstarbarcode.so"
        XCTAssertTrue(isExecutable(arserve), output)
        XCTAssertTrue(isExecutable(plugin), output)
        XCTAssertTrue(output.contains("export GST_PLUGIN_PATH=\(prefix)/lib/gstreamer-1.0"), output)

        // GStreamer loads the plugin from there, with the path make printed and a fresh registry.
        var env = ProcessInfo.processInfo.environment
        env["GST_PLUGIN_PATH"] = "\(prefix)/lib/gstreamer-1.0"
        env["GST_REGISTRY"] = "\(prefix)/registry.bin"
        let inspect = try ChildProcess("gst-inspect-1.0", ["arbarcode"], environment: env)
        XCTAssertEqual(inspect.waitForExit(), 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.range(of: #"Filename\s+\#(plugin)"#, options: .regularExpression) != nil, inspect.stdout)

        // arserve serves from there, needing no plugin path (its elements are built in).
        env["GST_PLUGIN_PATH"] = ""
        let pipeline = "\(prefix)/codes.pipeline"
        _ = FileManager.default.createFile(atPath: pipeline, contents: Data(
            "arcodesrc is-live=true codes=2 ! video/x-raw,width=160,height=120,framerate=30/1 ! arbarcodetrack ! aroverlay\n".utf8))
        let (server, url) = try startArserve([pipeline, "--port", "0"], environment: env, binary: arserve)
        let viewer = try ffmpegDecode(url, transport: "tcp", frames: 5)
        XCTAssertEqual(viewer.framesDecoded, 5, viewer.messages + server.stderr)
        XCTAssertEqual(server.interrupt(), 0)

        try make(["uninstall", "PREFIX=\(prefix)"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: arserve))
        XCTAssertFalse(FileManager.default.fileExists(atPath: plugin))
    }

    /// The unit's `ExecStart` as systemd expands it with `environment`: `$NAME` splits the value on
    /// white space (nothing when empty), `${NAME}` is one word.
    private func commandLine(_ unit: String, _ environment: [String: String]) throws -> [String] {
        let line = try XCTUnwrap(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        return line.dropFirst("ExecStart=".count).split(separator: " ").flatMap { word -> [String] in
            if word.hasPrefix("${") && word.hasSuffix("}") { return [environment[String(word.dropFirst(2).dropLast())] ?? ""] }
            if word.hasPrefix("$") { return (environment[String(word.dropFirst())] ?? "").split(separator: " ").map(String.init) }
            return [String(word)]
        }
    }

    /// `KEY=VALUE` lines of an environment file, comments and blank lines skipped.
    private func settings(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        return values
    }

    func testTheServiceUnitVerifiesAndItsCommandServesTheFolderWithTheEnvironmentFilesPassword() throws {
        let prefix = try temporaryFolder(), root = try temporaryFolder()
        try make(["install-built", "PREFIX=\(prefix)"])
        try make(["install-service", "PREFIX=\(prefix)", "DESTDIR=\(root)"])
        let unitPath = "\(root)/etc/systemd/system/arserve.service", envPath = "\(root)/etc/arserve/arserve.env"
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(root)/etc/sysusers.d/arserve.conf"))
        var isFolder: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(root)/etc/arserve/pipelines", isDirectory: &isFolder) && isFolder.boolValue)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: envPath)[.posixPermissions] as? Int, 0o640,
                       "the settings hold the password")

        // systemd reads the unit without a complaint (and finds the installed arserve).
        let verify = try ChildProcess("systemd-analyze", ["verify", unitPath])
        XCTAssertEqual(verify.waitForExit(), 0, verify.stdout + verify.stderr)
        XCTAssertEqual((verify.stdout + verify.stderr).trimmingCharacters(in: .whitespacesAndNewlines), "")
        let unit = try String(contentsOfFile: unitPath, encoding: .utf8)
        for line in ["ExecStart=\(prefix)/bin/arserve ", "EnvironmentFile=/etc/arserve/arserve.env", "Restart=on-failure",
                     "User=arserve", "SupplementaryGroups=video", "DeviceAllow=char-video4linux rw"] {
            XCTAssertTrue(unit.contains("\n" + line), "the unit has \(line)")
        }

        // Its command line, with the environment file's settings (a folder here, any port), serves
        // the folder's cameras to viewers who give the password.
        var values = settings(try String(contentsOfFile: envPath, encoding: .utf8))
        XCTAssertEqual(values["ARSERVE_PIPELINES"], "/etc/arserve/pipelines")
        XCTAssertEqual(values["ARSERVE_OPTIONS"], "--user viewer")
        let password = try XCTUnwrap(values["ARSERVE_PASSWORD"])
        let cameras = try temporaryFolder()
        _ = FileManager.default.createFile(atPath: "\(cameras)/door.pipeline", contents: Data(
            "arcodesrc is-live=true codes=2 ! video/x-raw,width=160,height=120,framerate=30/1\n".utf8))
        values["ARSERVE_PIPELINES"] = cameras
        values["ARSERVE_ADDRESS"] = "127.0.0.1"
        values["ARSERVE_PORT"] = "0"
        let command = try commandLine(unit, values)
        XCTAssertEqual(command.first, "\(prefix)/bin/arserve")
        let (server, url) = try startArserve(Array(command.dropFirst()),
                                             environment: ProcessInfo.processInfo.environment.merging(values) { $1 },
                                             binary: command[0])
        XCTAssertTrue(url.hasSuffix("/door"), url)
        XCTAssertTrue(server.stdout.contains("basic authentication as viewer"), server.stdout)
        let viewer = RTSPViewer(url: url, width: 160, height: 120, user: "viewer", password: password)
        XCTAssertTrue(waitUntil { viewer.framesDecoded >= 5 || viewer.error != nil }, server.stderr)
        XCTAssertNil(viewer.error)
        XCTAssertGreaterThanOrEqual(viewer.framesDecoded, 5)
        let stranger = RTSPViewer(url: url, width: 160, height: 120)
        XCTAssertTrue(waitUntil { stranger.error != nil })
        XCTAssertEqual(stranger.framesDecoded, 0)
        XCTAssertEqual(server.interrupt(), 0)
    }
}
