import ARPipelines
import ARServe
import CGStreamer
import Foundation
import XCTest

final class PipelineServerTests: XCTestCase {
    private func demoServer(_ options: ServeOptions = ServeOptions()) throws -> PipelineServer {
        var o = options
        o.port = 0
        let file = try PipelineFile(contentsOf: packageRoot.appendingPathComponent("pipelines/demo.pipeline").path)
        return try PipelineServer(file: file, options: o, environment: ["WIDTH": "640", "HEIGHT": "360", "CODES": "4"])
    }

    func testTwoClientsAtOnceDecodeTheDemoWithItsOverlay() throws {
        let loop = BackgroundLoop()
        defer { loop.stop() }
        let server = try demoServer()
        let url = try server.start(context: loop.context)
        XCTAssertTrue(url.hasPrefix("rtsp://127.0.0.1:"), url)
        XCTAssertNotNil(server.encoder, "raw video gets an encoder appended")
        let clients = [RTSPClient(url: url, width: 640, height: 360), RTSPClient(url: url, width: 640, height: 360)]
        defer { clients.forEach { $0.stop() } }
        let ok = waitUntil { clients.allSatisfy { $0.frames.count >= 45 } || clients.contains { $0.error() != nil } }
        XCTAssertTrue(ok, "frames: \(clients.map { $0.frames.count })")
        for (i, c) in clients.enumerated() {
            let (count, last) = c.frames.snapshot
            XCTAssertGreaterThanOrEqual(count, 45, "client \(i) decoded frames")
            XCTAssertEqual(last.count, 640 * 360 * 3)
            // Codes are grey; green comes only from aroverlay's outlines.
            XCTAssertGreaterThan(greenPixels(last), 300, "client \(i) sees the overlay")
        }
        server.stop(context: loop.context)
    }

    func testBasicAuthenticationRefusesWrongCredentials() throws {
        var options = ServeOptions()
        options.user = "viewer"
        options.password = "s3cret"
        let loop = BackgroundLoop()
        defer { loop.stop() }
        let server = try demoServer(options)
        let url = try server.start(context: loop.context)
        let refused = RTSPClient(url: url, width: 640, height: 360, credentials: ("viewer", "wrong"))
        let allowed = RTSPClient(url: url, width: 640, height: 360, credentials: ("viewer", "s3cret"))
        defer { refused.stop(); allowed.stop() }
        var refusal: String?
        XCTAssertTrue(waitUntil { refusal = refusal ?? refused.error(); return refusal != nil && allowed.frames.count >= 5 })
        XCTAssertTrue(refusal?.lowercased().contains("unauthorized") ?? false, "\(String(describing: refusal))")
        XCTAssertEqual(refused.frames.count, 0)
        server.stop(context: loop.context)
    }

    func testAFileWithItsOwnSinkCannotBeServed() throws {
        let file = PipelineFile(path: "x.pipeline", text: "videotestsrc ! fakesink")
        XCTAssertThrowsError(try PipelineServer(file: file, options: ServeOptions())) { error in
            XCTAssertEqual(error as? ServeError, .notServable(path: "x.pipeline"))
        }
    }

    func testAnUnknownElementIsNamedInTheParseError() throws {
        let file = PipelineFile(path: "bad.pipeline", text: "videotestsrc ! nosuchelement ! aroverlay")
        XCTAssertThrowsError(try PipelineServer(file: file, options: ServeOptions())) { error in
            guard case .parse(let path, let message)? = error as? ServeError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "bad.pipeline")
            XCTAssertTrue(message.contains("nosuchelement"), message)
        }
    }
}
