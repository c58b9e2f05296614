import Foundation
import XCTest

/// The `arserve` executable as users run it.
final class ArserveCommandTests: XCTestCase {
    private var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arserve").path
    }

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
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    func testABrokenPipelineFileExitsNonZeroNamingTheElement() throws {
        let path = write("# broken\nvideotestsrc ! no-such-element ! aroverlay\n")
        let r = try run([path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.err.contains("\(path): the pipeline does not parse: no element \"no-such-element\""), r.err)
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
        XCTAssertTrue(r.err.contains("usage: arserve FILE"), r.err)
    }

    func testServesPrintsTheURLAndStopsCleanlyOnSIGINT() throws {
        let path = write("videotestsrc is-live=true ! video/x-raw,width=160,height=120,framerate=30/1 ! aroverlay\n")
        let r = try run([path, "--port", "0", "--path", "/test"], stopAfterStarting: true)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertTrue(r.out.range(of: #"serving .* at rtsp://127\.0\.0\.1:[0-9]+/test"#, options: .regularExpression) != nil, r.out)
        XCTAssertTrue(r.out.contains("arserve: stopped"), r.out)
    }
}
