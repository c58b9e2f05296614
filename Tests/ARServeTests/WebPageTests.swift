import ARCore
import ARPipelines
import ARServe
import ARServeWeb
import ARWeb
import Foundation
import XCTest

/// `arserve --http`: the page in headless Chromium, the cameras' WebSockets and `/status`.
final class WebPageTests: XCTestCase {
    private var loop: MainLoopThread?
    private var server: PipelineServer?
    private var web: WebServer?
    private let events = EventRecorder()

    /// Serves `cameras` (name, pipeline text) over RTSP and HTTP; returns the HTTP port.
    private func serve(_ cameras: [(String, String)], credentials: BasicCredentials? = nil, encoder: H264Encoder? = nil) throws -> Int {
        var options = ServeOptions()
        options.encoder = encoder
        options.port = 0
        options.log = events.log
        options.user = credentials?.user
        options.password = credentials?.password
        let server = try PipelineServer(cameras: cameras.map {
            CameraSpec(name: $0.0, path: "/" + $0.0, file: PipelineFile(path: "\($0.0).pipeline", text: $0.1 + "\n"))
        }, options: options)
        let loop = MainLoopThread()
        _ = try server.start(context: loop.context)
        let web = try WebServer(cameras: server.cameras, options: WebOptions(port: 0, credentials: credentials))
        self.loop = loop
        self.server = server
        self.web = web
        return try web.start()
    }

    override func tearDown() {
        web?.stop()
        server?.stop()
        loop?.stop()
        web = nil
        server = nil
        loop = nil
    }

    /// Still codes (no motion, nothing entering or leaving) with distinct payloads, and noise that
    /// makes every frame differ; each code's corners on every frame go to `truth`.
    private func stillCodes(_ count: Int, width: Int, height: Int, truth: String? = nil) -> String {
        "arcodesrc is-live=true codes=\(count) kinds=qrcode seed=5 twins=false speed=0 rotation-speed=0 scale-change=0 perspective=0 "
            + "enter-leave=false occluders=0 noise=4" + (truth.map { " truth-location=\($0)" } ?? "")
            + " ! video/x-raw,width=\(width),height=\(height),framerate=30/1 ! arbarcodetrack ! aroverlay"
    }

    private func status(_ port: Int, _ headers: [String: String]) throws -> [[String: Any]] {
        let answer = try XCTUnwrap(httpGet(port: port, path: "/status", headers: headers))
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.headers["content-type"], "application/json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        return try XCTUnwrap(object["cameras"] as? [[String: Any]])
    }

    func testStatusCountsEachCamerasCodesAndViewersBehindTheSameLoginAsRTSP() throws {
        let login = BasicCredentials(user: "guard", password: "s3cret")
        let port = try serve([("dock", stillCodes(3, width: 640, height: 360)), ("gate", stillCodes(1, width: 320, height: 240))],
                             credentials: login)
        let auth = ["Authorization": login.authorization]
        // A second server on the same port says so at once.
        XCTAssertThrowsError(try WebServer(cameras: try XCTUnwrap(server).cameras, options: WebOptions(port: port)).start()) {
            XCTAssertEqual($0 as? WebServerError, .bind(address: "127.0.0.1", port: port))
        }

        for path in ["/", "/status", "/cameras/dock/ws"] {
            let refused = try XCTUnwrap(httpGet(port: port, path: path))
            XCTAssertEqual(refused.status, 401, path)
            XCTAssertEqual(refused.headers["www-authenticate"], BasicCredentials.challenge, path)
        }
        let wrong = BasicCredentials(user: "guard", password: "guess").authorization
        XCTAssertEqual(httpGet(port: port, path: "/status", headers: ["Authorization": wrong])?.status, 401)
        XCTAssertThrowsError(try TestWebSocket(port: port, path: "/cameras/dock/ws"))
        XCTAssertEqual(httpGet(port: port, path: "/cameras/nowhere/ws", headers: auth)?.status, 404)
        let page = try XCTUnwrap(httpGet(port: port, path: "/", headers: auth))
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")

        // Both cameras running with their codes tracked, no one watching. (Codes can be tracked on a
        // camera's first frame, before its rate is measured over two.)
        XCTAssertTrue(waitUntil {
            let cameras = (try? status(port, auth)) ?? []
            return cameras.count == 2 && cameras[0]["codes"] as? Int == 3 && cameras[1]["codes"] as? Int == 1
                && cameras.allSatisfy { ($0["framesPerSecond"] as? Double ?? 0) > 0 }
        }, "\(String(describing: try? status(port, auth)))")
        var cameras = try status(port, auth)
        XCTAssertEqual(cameras.map { $0["name"] as? String }, ["dock", "gate"])
        for camera in cameras {
            XCTAssertEqual(camera["state"] as? String, "running")
            XCTAssertGreaterThan(camera["frames"] as? Int ?? 0, 0)
            XCTAssertGreaterThan(camera["framesPerSecond"] as? Double ?? 0, 0)
            XCTAssertEqual(camera["viewers"] as? Int, 0)
            XCTAssertEqual(camera["browserViewers"] as? Int, 0)
            XCTAssertEqual(camera["restarts"] as? Int, 0)
            XCTAssertNil(camera["lastError"])
        }

        // A browser viewer of dock: JPEG frames with their codes, counted on dock only.
        var viewer: TestWebSocket? = try TestWebSocket(port: port, path: "/cameras/dock/ws", headers: auth)
        let message = try XCTUnwrap(viewer?.receive())
        XCTAssertFalse(message.text)
        let frame = try XCTUnwrap(BrowserFrame(message: message.bytes))
        XCTAssertEqual(Array(frame.jpeg.prefix(2)), [0xFF, 0xD8])
        XCTAssertEqual(frame.record.width, 640)
        XCTAssertEqual(frame.record.height, 360)
        cameras = try status(port, auth)
        XCTAssertEqual(cameras[0]["browserViewers"] as? Int, 1)
        XCTAssertEqual(cameras[1]["browserViewers"] as? Int, 0)
        viewer = nil  // leaves
        XCTAssertTrue(waitUntil { (try? status(port, auth))?[0]["browserViewers"] as? Int == 0 })
    }

    func testThePageShowsVideoListsTheCodesAndAClickTapsTheCodeInThePipeline() throws {
        try checkPage(video: "jpeg")
    }

    func testOverWebRTCThePageShowsVideoListsTheCodesAndAClickTapsTheCode() throws {
        try checkPage(video: "webrtc")
    }

    func testOverWebRTCFromOpenH264ThePageShowsVideoListsTheCodesAndAClickTapsTheCode() throws {
        try checkPage(video: "webrtc", encoder: .openh264)
    }

    func testInFirefoxOverJPEGThePageShowsVideoListsTheCodesAndAClickTapsTheCode() throws {
        try checkPage(video: "jpeg", in: HeadlessFirefox())
    }

    func testInFirefoxOverWebRTCThePageGetsVP8ShowsVideoListsTheCodesAndAClickTapsTheCode() throws {
        // Firefox as Debian ships it decodes no H.264: the page lists VP8, and arserve encodes that.
        try checkPage(video: "webrtc", in: HeadlessFirefox())
    }

    func testWhenWebRTCCannotConnectThePageFallsBackToJPEG() throws {
        let port = try serve([("dock", stillCodes(1, width: 320, height: 240))])
        // A browser whose WebRTC never takes arserve's offer (set before the page's script runs).
        let browser = try HeadlessChromium()
        try browser.call("Page.enable")
        try browser.call("Page.addScriptToEvaluateOnNewDocument",
                         ["source": "RTCPeerConnection.prototype.setRemoteDescription = () => new Promise(() => {});"])
        try browser.call("Page.navigate", ["url": "http://127.0.0.1:\(port)/"])
        let panel = #"document.querySelector('section[data-camera="dock"]')"#
        XCTAssertTrue(try browser.waitUntil(seconds: 5, "\(panel)?.dataset.video === 'webrtc'"), "WebRTC tried first")
        XCTAssertTrue(try browser.waitUntil(seconds: 15, "\(panel).dataset.video === 'jpeg' && (\(panel).dataset.frames | 0) >= 2"),
                      "JPEG frames after the fallback: \(String(describing: try? browser.evaluate("\(panel).querySelector('.state').textContent")))")
        XCTAssertEqual(try browser.evaluate("\(panel).querySelector('canvas').width") as? Int, 320)
        XCTAssertEqual(try browser.evaluate("\(panel).querySelector('video').hidden") as? Bool, true)
        XCTAssertTrue(waitUntil { server?.cameras.first?.browser?.webRTCBranches == 0 }, "the WebRTC session that failed was ended")
    }

    /// Loads the page with `?video=VIDEO` (`jpeg` or `webrtc`) for one camera in `browser`
    /// (Chromium by default) and checks what a viewer sees and does: frames at the frame's size
    /// that change, the codes listed, a click on a code tapping it in the pipeline, the viewer
    /// counted in `/status`. Over WebRTC, viewers then come and go and leave nothing behind.
    private func checkPage(video: String, encoder: H264Encoder? = nil,
                           in browser: @autoclosure () throws -> TestBrowser = try HeadlessChromium()) throws {
        continueAfterFailure = false  // what follows a failure would only wait for the same thing again
        let truth = FileManager.default.temporaryDirectory.appendingPathComponent("arserve-web-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: truth) }
        let port = try serve([("dock", stillCodes(3, width: 640, height: 360, truth: truth.path))], encoder: encoder)
        let browser = try browser()
        let name = browser is HeadlessFirefox ? "firefox" : "chromium"
        try browser.navigate("http://127.0.0.1:\(port)/?video=\(video)")

        let panel = #"document.querySelector('section[data-camera="dock"]')"#
        let element = panel + (video == "jpeg" ? ".querySelector('canvas')" : ".querySelector('video')")
        // Frames arrive, shown at the frame's size, the way asked for (no fallback).
        XCTAssertTrue(try browser.waitUntil("(\(panel)?.dataset.frames | 0) >= 2"), "frames shown")
        XCTAssertEqual(try browser.evaluate("\(panel).dataset.video") as? String, video)
        if video == "webrtc" {
            // Chromium decodes H.264 and gets it (the cheaper encoder); Firefox does not, and gets VP8.
            XCTAssertEqual(try browser.evaluate("\(panel).dataset.codec") as? String, browser is HeadlessFirefox ? "VP8" : "H264")
        }
        let size = video == "jpeg" ? "[\(element).width, \(element).height]" : "[\(element).videoWidth, \(element).videoHeight]"
        XCTAssertEqual(try browser.evaluate(size) as? [Int], [640, 360])
        // ... and change: the picture drawn to a canvas in the page, its pixels summed, differs between two moments.
        let pixels = "(() => { const c = document.createElement('canvas'); c.width = 640; c.height = 360; "
            + "const g = c.getContext('2d'); g.drawImage(\(element), 0, 0, 640, 360); const d = g.getImageData(0, 0, 640, 360).data; "
            + "let sum = 0, distinct = new Set(); for (let i = 0; i < d.length; i += 4) { sum += d[i] * (i % 997); distinct.add(d[i]); } "
            + "return [sum, distinct.size, Number(\(panel).dataset.frames)]; })()"
        let first = try XCTUnwrap(browser.evaluate(pixels) as? [Double])
        XCTAssertGreaterThan(first[1], 20, "a picture, not a blank canvas")
        XCTAssertTrue(try browser.waitUntil("Number(\(panel).dataset.frames) >= \(Int(first[2]) + 3)"))
        let later = try XCTUnwrap(browser.evaluate(pixels) as? [Double])
        XCTAssertNotEqual(first[0], later[0], "the picture changed between frame \(first[2]) and \(later[2])")

        // The list beside it shows the generated codes' payloads.
        let line = try XCTUnwrap(String(contentsOf: truth, encoding: .utf8).split(separator: "\n").first)
        let codes = try FrameRecord(jsonLine: String(line)).objects
        XCTAssertEqual(codes.count, 3)
        let payloads = codes.map { String(decoding: $0.payload, as: UTF8.self) }.sorted()
        let listed = "Array.from(\(panel).querySelectorAll('li[data-payload]')).map(li => li.dataset.payload).sort()"
        XCTAssertTrue(try browser.waitUntil("JSON.stringify(\(listed)) === '\(String(decoding: try JSONEncoder().encode(payloads), as: UTF8.self))'"),
                      "listed: \(String(describing: try? browser.evaluate(listed))), generated: \(payloads)")

        // A click on the second code's centre, where the page shows it, taps that code in the pipeline.
        let code = codes[1]
        let centre = code.quad.center
        let box = try XCTUnwrap(browser.evaluate("(() => { const r = \(element).getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()") as? [Double])
        try browser.click(x: box[0] + centre.x * box[2] / 640, y: box[1] + centre.y * box[3] / 360)
        let payload = String(decoding: code.payload, as: UTF8.self)
        XCTAssertTrue(waitUntil {
            events.events.contains { if case .tapped("dock", let tap) = $0 { return tap.payload == payload && tap.expanded } else { return false } }
        }, "tapped \(payload): \(events.events.filter { if case .tapped = $0 { return true } else { return false } })")
        let taps = events.events.compactMap { if case .tapped(_, let tap) = $0 { return tap } else { return nil } }
        XCTAssertEqual(taps.count, 1)
        XCTAssertEqual(taps.first?.x ?? 0, centre.x, accuracy: 2, "the click lands where the code is in the frame")
        XCTAssertEqual(taps.first?.y ?? 0, centre.y, accuracy: 2)

        XCTAssertEqual(try status(port, [:]).first?["browserViewers"] as? Int, 1)
        // How long after reaching arserve frames are shown (printed for the README, not asserted).
        var latencies: [Double] = []
        for _ in 0..<30 {
            if let latency = try browser.evaluate("Number(\(panel).dataset.latencyMs)") as? Double { latencies.append(latency) }
            usleep(100_000)
        }
        latencies.sort()
        if !latencies.isEmpty {
            print("web (\(name), \(video)\(encoder.map { ", " + $0.rawValue } ?? "")): frames shown a median \(latencies[latencies.count / 2]) ms, p90 \(latencies[latencies.count * 9 / 10]) ms after reaching arserve")
        }
        if let path = ProcessInfo.processInfo.environment["ARSERVE_SCREENSHOT"], video == "webrtc", let chromium = browser as? HeadlessChromium {
            try chromium.screenshot().write(to: URL(fileURLWithPath: path))
        }
        guard video == "webrtc" else { return }

        // Viewers come and go (the page reloaded: the old session leaves, a new one connects):
        // one viewer and one branch after the encoder's tee each time, and no descriptors left open.
        let feed = try XCTUnwrap(server?.cameras.first?.browser)
        XCTAssertEqual(feed.webRTCBranches, 1)
        var descriptors: [Int] = []
        for _ in 0..<4 {
            try browser.reload()
            XCTAssertTrue(try browser.waitUntil("(\(panel)?.dataset.frames | 0) >= 2 && \(panel).dataset.video === 'webrtc'"), "frames after a reload")
            XCTAssertTrue(waitUntil { feed.viewerCount == 1 && feed.webRTCBranches == 1 },
                          "viewers \(feed.viewerCount), branches \(feed.webRTCBranches)")
            descriptors.append(openDescriptors())
        }
        // No growth from reload to reload: a session that left something open would add one or
        // more each time (two between the second and the fourth). One more or less is the
        // browser's own HTTP connections to the page's server, in this process too, and the last
        // session's sockets closing on webrtcbin's threads a moment after it leaves.
        XCTAssertTrue(waitUntil { self.openDescriptors() <= descriptors[1] + 1 },
                      "descriptors after each reload: \(descriptors), now \(openDescriptors())")
        try browser.navigate("about:blank")
        XCTAssertTrue(waitUntil { feed.viewerCount == 0 && feed.webRTCBranches == 0 }, "the last viewer left, the encoder stopped")
    }

    /// File descriptors this process has open now.
    private func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }
}
