import ARBridge
import ARPipelines
import ARServe
import CGStreamer
import Foundation
import XCTest

/// A camera on the network that the test drops and brings back: generated codes as raw video
/// over TCP (arcodesrc → gdppay → tcpserversink on loopback), on the same port every time.
private final class NetworkCamera {
    private(set) var port = 0
    private var pipeline: UnsafeMutablePointer<GstElement>?

    init() { start() }
    deinit { stop() }

    /// The pipeline a served camera reads it with.
    var served: PipelineFile {
        PipelineFile(path: "ipcam.pipeline", text: "# a camera over TCP\ntcpclientsrc host=127.0.0.1 port=\(port)\n  ! gdpdepay\n")
    }

    func start() {
        _ = PipelineServer.initialize
        let p = gst_parse_launch("arcodesrc is-live=true codes=2 ! video/x-raw,format=I420,width=160,height=120,framerate=30/1 "
                                 + "! gdppay ! tcpserversink name=sink host=127.0.0.1 port=\(port) sync=false", nil)!
        XCTAssertNotEqual(gst_element_set_state(p, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE, "the camera listens on \(port)")
        _ = gst_element_get_state(p, nil, nil, GstClockTime(30_000_000_000))  // a hang guard
        let sink = gst_bin_get_by_name(UnsafeMutableRawPointer(p).assumingMemoryBound(to: GstBin.self), "sink")!
        var value = GValue()
        g_value_init(&value, ar_value_gtype(AR_VALUE_INT))
        g_object_get_property(UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GObject.self), "current-port", &value)
        port = Int(g_value_get_int(&value))
        gst_object_unref(UnsafeMutableRawPointer(sink))
        pipeline = p
    }

    /// The camera drops: its connections close (its viewers see the end of the stream).
    func stop() {
        guard let pipeline else { return }
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
        self.pipeline = nil
    }
}

/// arserve's cameras: several served at once, each restarted on its own when it fails.
final class MultiCameraServerTests: XCTestCase {
    private let steadyFile = PipelineFile(path: "steady.pipeline",
                                          text: "arcodesrc is-live=true codes=2 ! video/x-raw,format=I420,width=160,height=120,framerate=30/1\n")

    private func options(_ timer: ManualRestartTimer, _ events: EventRecorder) -> ServeOptions {
        var options = ServeOptions()
        options.port = 0
        options.restartTimer = timer
        options.restartBackoff = RestartBackoff(initialSeconds: 0.5, maximumSeconds: 4)
        options.log = events.log
        return options
    }

    private func isFailed(_ state: CameraState) -> Bool {
        if case .failed = state { return true }
        return false
    }

    func testACameraThatDropsIsRestartedWhileTheOtherKeepsDeliveringFrames() throws {
        let ipcam = NetworkCamera()
        let timer = ManualRestartTimer(), events = EventRecorder()
        let server = try PipelineServer(cameras: [CameraSpec(name: "steady", path: "/steady", file: steadyFile),
                                                  CameraSpec(name: "ipcam", path: "/ipcam", file: ipcam.served)],
                                        options: options(timer, events))
        let loop = MainLoopThread()
        defer { loop.stop() }
        defer { server.stop() }
        _ = try server.start(context: loop.context)
        let steady = server.camera(named: "steady")!, flaky = server.camera(named: "ipcam")!
        XCTAssertTrue(waitUntil { steady.status.state == .running && flaky.status.state == .running }, "\(server.status)")
        let steadyViewer = RTSPViewer(url: server.url(of: steady), width: 160, height: 120, overTCP: true)
        let flakyViewer = RTSPViewer(url: server.url(of: flaky), width: 160, height: 120, overTCP: true)
        XCTAssertTrue(waitUntil { steadyViewer.framesDecoded >= 10 && flakyViewer.framesDecoded >= 10 },
                      "frames: \(steadyViewer.framesDecoded), \(flakyViewer.framesDecoded); \(events.events)")

        // The IP camera drops: its camera fails at the end of its stream, the other goes on.
        ipcam.stop()
        XCTAssertTrue(waitUntil { isFailed(flaky.status.state) }, "\(flaky.status)")
        XCTAssertEqual(flaky.status.state, .failed(.endOfStream, restartInSeconds: 0.5))
        let framesWhileFailed = flaky.status.frames
        let steadyFrames = steadyViewer.framesDecoded
        XCTAssertTrue(waitUntil { steadyViewer.framesDecoded >= steadyFrames + 30 }, "the steady camera's viewer keeps decoding")
        XCTAssertEqual(flaky.status.frames, framesWhileFailed, "a failed camera delivers nothing")

        // Restarted while the IP camera is still away: it fails again and waits twice as long.
        timer.fireNext()
        XCTAssertTrue(waitUntil { timer.delays(of: "ipcam").count == 2 }, "\(events.events)")
        XCTAssertEqual(timer.delays(of: "ipcam"), [0.5, 1])
        guard case .failed(.error(let refused), 1) = flaky.status.state else { return XCTFail("\(flaky.status)") }
        XCTAssertEqual(refused.factory, "tcpclientsrc")

        // The IP camera is back: the next restart brings frames to the viewer that stayed.
        let flakyFrames = flakyViewer.framesDecoded
        ipcam.start()
        timer.fireNext()
        XCTAssertTrue(waitUntil { flakyViewer.framesDecoded >= flakyFrames + 10 }, "frames after the restart: \(flakyViewer.framesDecoded - flakyFrames)")
        XCTAssertEqual(flaky.status.state, .running)
        XCTAssertEqual(flaky.status.restarts, 2)
        XCTAssertGreaterThan(flaky.status.frames, framesWhileFailed)
        XCTAssertNil(flakyViewer.error)
        XCTAssertEqual(events.states(of: "ipcam").map(\.name), ["starting", "running", "failed", "starting", "failed", "starting", "running"])

        // The steady camera never noticed.
        XCTAssertEqual(events.states(of: "steady"), [.starting, .running])
        XCTAssertEqual(steady.status.restarts, 0)
        XCTAssertNil(steady.status.lastError)
        XCTAssertNil(steadyViewer.error)
    }

    func testStatusShowsEachCamerasStateFramesViewersAndLastError() throws {
        let timer = ManualRestartTimer(), events = EventRecorder()
        let missing = PipelineFile(path: "gone.pipeline", text: "filesrc location=/nonexistent-\(UUID().uuidString).mp4 ! decodebin\n")
        let server = try PipelineServer(cameras: [CameraSpec(name: "steady", path: "/steady", file: steadyFile),
                                                  CameraSpec(name: "gone", path: "/gone", file: missing)],
                                        options: options(timer, events))
        let loop = MainLoopThread()
        defer { loop.stop() }
        defer { server.stop() }
        _ = try server.start(context: loop.context)
        XCTAssertTrue(waitUntil { server.status[0].state == .running && timer.pendingCount == 1 }, "\(server.status)")

        var viewer: RTSPViewer? = RTSPViewer(url: server.url(of: server.cameras[0]), width: 160, height: 120)
        XCTAssertTrue(waitUntil { (viewer?.framesDecoded ?? 0) >= 5 && server.status[0].viewers == 1 }, "\(server.status)")
        let steady = server.status[0], gone = server.status[1]
        XCTAssertEqual(steady.name, "steady")
        XCTAssertEqual(steady.path, "/steady")
        XCTAssertEqual(steady.state, .running)
        XCTAssertGreaterThanOrEqual(steady.frames, 5)
        XCTAssertGreaterThan(steady.framesPerSecond, 0)
        XCTAssertEqual(steady.restarts, 0)
        XCTAssertNil(steady.lastError)

        XCTAssertEqual(gone.name, "gone")
        XCTAssertEqual(gone.frames, 0)
        XCTAssertEqual(gone.framesPerSecond, 0)
        XCTAssertEqual(gone.viewers, 0)
        guard case .failed(.error(let error), 0.5) = gone.state else { return XCTFail("\(gone.state)") }
        XCTAssertEqual(error.factory, "filesrc")
        XCTAssertEqual(error.message, "Resource not found.")
        XCTAssertEqual(gone.lastError, .error(error))

        // As the /status page will serve it.
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(server.status)) as? [[String: Any]]
        XCTAssertEqual(json?.count, 2)
        XCTAssertEqual(json?[0]["state"] as? String, "running")
        XCTAssertEqual(json?[0]["viewers"] as? Int, 1)
        XCTAssertNil(json?[0]["lastError"])
        XCTAssertEqual(json?[1]["state"] as? String, "failed")
        XCTAssertEqual(json?[1]["restartInSeconds"] as? Double, 0.5)
        XCTAssertTrue((json?[1]["lastError"] as? String)?.hasPrefix("pipeline error from filesrc: Resource not found.") ?? false,
                      "\(String(describing: json?[1]["lastError"]))")

        viewer = nil  // leaves
        XCTAssertTrue(waitUntil { server.status[0].viewers == 0 }, "\(server.status)")
    }

    func testAViewerOfACameraThatFailedIsAnsweredAndLogged() throws {
        let timer = ManualRestartTimer(), events = EventRecorder()
        let missing = PipelineFile(path: "gone.pipeline", text: "filesrc location=/nonexistent-\(UUID().uuidString).mp4 ! decodebin\n")
        let server = try PipelineServer(cameras: [CameraSpec(name: "gone", path: "/gone", file: missing)], options: options(timer, events))
        let loop = MainLoopThread()
        defer { loop.stop() }
        defer { server.stop() }
        _ = try server.start(context: loop.context)
        XCTAssertTrue(waitUntil { timer.pendingCount == 1 })
        let viewer = RTSPViewer(url: server.url, width: 160, height: 120)
        XCTAssertTrue(waitUntil { viewer.error != nil }, "the viewer is refused")
        XCTAssertEqual(viewer.framesDecoded, 0)
        XCTAssertTrue(waitUntil { events.events.contains { if case .viewerRefused("gone", _) = $0 { return true } else { return false } } },
                      "\(events.events)")
    }
}
