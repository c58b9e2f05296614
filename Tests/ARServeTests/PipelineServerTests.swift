import ARPipelines
import ARServe
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
        let loop = MainLoopThread()
        defer { loop.stop() }
        let server = try demoServer()
        let url = try server.start(context: loop.context)
        XCTAssertTrue(url.hasPrefix("rtsp://127.0.0.1:"), url)
        XCTAssertNotNil(server.encoder, "raw video gets an encoder appended")
        let clients = [RTSPViewer(url: url, width: 640, height: 360), RTSPViewer(url: url, width: 640, height: 360)]
        let ok = waitUntil { clients.allSatisfy { $0.framesDecoded >= 45 } || clients.contains { $0.error != nil } }
        XCTAssertTrue(ok, "frames: \(clients.map(\.framesDecoded)), errors: \(clients.map(\.error))")
        for (i, c) in clients.enumerated() {
            let count = c.framesDecoded, last = c.lastRGBFrame
            XCTAssertGreaterThanOrEqual(count, 45, "client \(i) decoded frames")
            XCTAssertEqual(last.count, 640 * 360 * 3)
            // Codes are grey; green comes only from aroverlay's outlines.
            XCTAssertGreaterThan(greenPixels(last), 300, "client \(i) sees the overlay")
        }
        server.stop()
    }

    func testBasicAuthenticationRefusesWrongCredentials() throws {
        var options = ServeOptions()
        options.user = "viewer"
        options.password = "s3cret"
        let loop = MainLoopThread()
        defer { loop.stop() }
        let server = try demoServer(options)
        let url = try server.start(context: loop.context)
        let refused = RTSPViewer(url: url, width: 640, height: 360, user: "viewer", password: "wrong")
        let allowed = RTSPViewer(url: url, width: 640, height: 360, user: "viewer", password: "s3cret")
        XCTAssertTrue(waitUntil { refused.error != nil && allowed.framesDecoded >= 5 })
        XCTAssertTrue(refused.error?.lowercased().contains("unauthorized") ?? false, "\(String(describing: refused.error))")
        XCTAssertEqual(refused.framesDecoded, 0)
        XCTAssertNil(allowed.error)
        server.stop()
    }

    func testAFileEndingInItsOwnPayloaderIsServedAsItIs() throws {
        let file = PipelineFile(path: "payloaded.pipeline", text: """
            arcodesrc is-live=true codes=2 ! video/x-raw,format=I420,width=160,height=120,framerate=30/1
              ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 ! rtph264pay name=pay0 pt=96 config-interval=-1
            """)
        var options = ServeOptions()
        options.port = 0
        let loop = MainLoopThread()
        defer { loop.stop() }
        let server = try PipelineServer(file: file, options: options)
        defer { server.stop() }
        XCTAssertNil(server.encoder, "nothing appended")
        let viewer = RTSPViewer(url: try server.start(context: loop.context), width: 160, height: 120)
        XCTAssertTrue(waitUntil { viewer.framesDecoded >= 15 || viewer.error != nil }, "\(viewer.framesDecoded) \(String(describing: viewer.error))")
        XCTAssertNil(viewer.error)
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
