import ARCore
import ARBridge
import ARGst
import CGStreamer
import CGstApp
import CGstRtspServer
import Foundation

/// One served camera. Its pipeline (the file's, ending in an appsink) runs from the server's
/// start to its stop whether viewers watch or not; when it fails (an error, or the end of its
/// stream) it is torn down and started again after a backoff, and the other cameras never notice.
/// Viewers get a shared RTSP media whose appsrc the camera feeds: encoded once for every viewer,
/// only while someone watches, and kept across the camera's restarts.
///
/// Threads: the pipeline's bus is read on the server's main context; frames arrive on the
/// pipeline's streaming thread; viewers' media are configured on the RTSP clients' threads;
/// restarts come from the `RestartTimer`.
public final class Camera: @unchecked Sendable {  // counters, state and feeds guarded by `lock`; the run by `runLock`
    /// The camera's name (log, status): its file's name without `.pipeline`.
    public let name: String
    /// Its RTSP mount path, e.g. `/cam1`.
    public let path: String
    /// The camera's own pipeline: the file's description ending in an appsink.
    public let launch: String
    /// What each viewer's media runs: an appsrc fed by the camera, then H.264 encoding and
    /// payloading (or, for a file that brings its own payloader `pay0`, the appsrc alone).
    public let mediaLaunch: String

    /// The camera's frames for browsers (`arserve --http`); nil when its file ends in its own RTP
    /// payloader, which leaves no raw video to show.
    public let browser: BrowserFeed?

    /// The appsink ending the camera's pipeline.
    static let sinkName = "arserve-camera-out"
    /// The appsrc starting a viewer's media (raw video), fed by the camera.
    static let sourceName = "arserve-camera-in"

    private let backoff: RestartBackoff
    private let timer: any RestartTimer
    private let log: @Sendable (ServeEvent) -> Void

    private let lock = NSLock()
    private var state: CameraState = .stopped
    private var frames = 0
    /// Codes tracked on the last frame.
    private var codes = 0
    private var meter = FrameRateMeter()
    private var viewers: Set<Int> = []
    private var restarts = 0
    private var lastError: CameraFailure?
    private var failuresInARow = 0
    /// The run frames are accepted from (0: none), and when it delivered its first frame (monotonic ns).
    private var currentRun = 0
    private var firstFrameNanoseconds: UInt64?
    private var feeds: [Feed] = []

    private let runLock = NSLock()
    private var run: Run?
    private var runCount = 0
    private var pendingRestart = 0
    private var context: OpaquePointer?

    /// A camera `name` served at `path` that runs `description` (a pipeline file's expanded
    /// text). `encoder` encodes raw video for viewers; nil when the description ends in its own
    /// payloader named `pay0`. Checks that both pipelines parse.
    init(name: String, path: String, description: String, encoder: H264Encoder?, file: String,
         backoff: RestartBackoff, timer: any RestartTimer, log: @escaping @Sendable (ServeEvent) -> Void) throws {
        self.name = name
        self.path = path
        self.backoff = backoff
        self.timer = timer
        self.log = log
        browser = encoder == nil ? nil : BrowserFeed(camera: name, h264: encoder, log: log)
        // A queue of a few frames at most, the oldest dropped: a viewer's media that stalls
        // (paused, or slower than the camera) never holds the camera back or grows without bound.
        let source = "is-live=true format=time leaky-type=downstream max-bytes=0"
        if let encoder {
            // Plain raw video in system memory: an overlay is blended in, not left as a meta for a
            // sink that would draw it (the media's encoder would not).
            launch = "\(description) ! appsink name=\(Self.sinkName) caps=video/x-raw sync=true enable-last-sample=false"
            mediaLaunch = "appsrc name=\(Self.sourceName) \(source) max-buffers=3 ! \(encoder.encodeAndPay())"
        } else {
            // The file's payloader stays in the camera's pipeline; its RTP packets go to the media as they are.
            launch = "\(description) pay0. ! appsink name=\(Self.sinkName) caps=application/x-rtp sync=true enable-last-sample=false"
            mediaLaunch = "appsrc name=pay0 \(source) max-buffers=1000"
        }
        for text in [launch, mediaLaunch] {
            if let message = Self.parseError(text) { throw ServeError.parse(path: file, message: message) }
        }
    }

    /// GStreamer's parse error for `launch`, nil when it parses.
    static func parseError(_ launch: String) -> String? {
        var error: UnsafeMutablePointer<GError>?
        let bin = gst_parse_launch_full(launch, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        if let bin { gst_object_unref(UnsafeMutableRawPointer(bin)) }
        guard let error else { return nil }
        defer { g_error_free(error) }
        return String(cString: error.pointee.message)
    }

    /// What the camera is doing, what it delivered and who watches, now.
    public var status: CameraStatus {
        let now = DispatchTime.now().uptimeNanoseconds
        let browserViewers = browser?.viewerCount
        lock.lock()
        defer { lock.unlock() }
        return CameraStatus(name: name, path: path, state: state, frames: frames,
                            framesPerSecond: meter.framesPerSecond(atNanoseconds: now), codes: codes, viewers: viewers.count,
                            browserViewers: browserViewers, restarts: restarts, lastError: lastError)
    }

    // MARK: Lifecycle

    /// Starts the camera's pipeline; its bus is read on `context` (nil: the default main context).
    func start(context: OpaquePointer?) {
        runLock.lock()
        defer { runLock.unlock() }
        guard run == nil else { return }
        self.context = context
        startRun()
    }

    /// Stops the camera's pipeline and any restart to come; viewers' media stop being fed.
    func stop() {
        runLock.lock()
        pendingRestart += 1
        let stopping = run
        run = nil
        lock.lock()
        state = .stopped
        currentRun = 0
        let detached = feeds
        feeds = []
        lock.unlock()
        stopping?.tearDown()
        runLock.unlock()
        _ = detached  // released here: each unrefs its appsrc
    }

    /// Builds and starts a new run of the pipeline. Called with `runLock` held.
    private func startRun() {
        runCount += 1
        let id = runCount
        lock.lock()
        state = .starting
        currentRun = id
        firstFrameNanoseconds = nil
        lock.unlock()
        log(.camera(name: name, state: .starting))

        var error: UnsafeMutablePointer<GError>?
        let parsed = gst_parse_launch_full(launch, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        if let error {
            defer { g_error_free(error) }
            if let parsed { gst_object_unref(UnsafeMutableRawPointer(parsed)) }
            return fail(.couldNotStart(reason: String(cString: error.pointee.message)), tearingDown: nil)
        }
        guard let pipeline = parsed else { return fail(.couldNotStart(reason: "the pipeline does not parse"), tearingDown: nil) }
        let token = RunToken(camera: self, id: id)
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        let sink = gst_bin_get_by_name(bin, Self.sinkName)
        defer { if let sink { gst_object_unref(UnsafeMutableRawPointer(sink)) } }
        if let sink {
            var callbacks = GstAppSinkCallbacks()
            callbacks.new_sample = onNewSample
            gst_app_sink_set_callbacks(UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GstAppSink.self), &callbacks,
                                       Unmanaged.passRetained(token).toOpaque(), releaseObject)
        }
        let bus = gst_element_get_bus(pipeline)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        let watch = gst_bus_create_watch(bus)!
        g_source_set_callback(watch, unsafeBitCast(onBusMessage, to: GSourceFunc.self), Unmanaged.passRetained(token).toOpaque(),
                              releaseObject)
        g_source_attach(watch, context)
        let run = Run(id: id, pipeline: pipeline, watch: watch)
        self.run = run
        // A live source (a camera) paces the pipeline itself: its frames go to viewers as soon as
        // they are ready. Any other (a file) is played at its own pace by the appsink's clock.
        let paused = gst_element_set_state(pipeline, GST_STATE_PAUSED)
        if paused == GST_STATE_CHANGE_NO_PREROLL, let sink {
            var sync = GValue()
            g_value_init(&sync, g_type_from_name("gboolean"))
            g_value_set_boolean(&sync, 0)
            g_object_set_property(UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GObject.self), "sync", &sync)
            g_value_unset(&sync)
        }
        if paused == GST_STATE_CHANGE_FAILURE || gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            // The element that refused posted why (no such camera…): report that now.
            var failure = CameraFailure.couldNotStart(reason: "the pipeline refused to start")
            if let msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) {
                if let message = PipelineMessage(msg) { failure = .error(message) }
                gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self))
            }
            fail(failure, tearingDown: run)
        }
    }

    /// A message from run `id`'s bus, on the server's main context.
    fileprivate func handle(_ msg: UnsafeMutablePointer<GstMessage>, run id: Int) {
        runLock.lock()
        defer { runLock.unlock() }
        guard let run, run.id == id else { return }
        switch msg.pointee.type {
        case GST_MESSAGE_ERROR:
            fail(PipelineMessage(msg).map(CameraFailure.error) ?? .couldNotStart(reason: "an error without a message"), tearingDown: run)
        case GST_MESSAGE_EOS:
            fail(.endOfStream, tearingDown: run)
        case GST_MESSAGE_ELEMENT:
            if let tap = CodeTap(msg) { log(.tapped(camera: name, tap)) }
        case GST_MESSAGE_WARNING:
            if let message = PipelineMessage(msg), !run.warnings.contains(message) {
                run.warnings.append(message)
                log(.cameraWarning(name: name, message))
            }
        default:
            break
        }
    }

    /// Run `id` failed: tears it down, refuses the viewers still waiting for their first frame and
    /// schedules the restart. Called with `runLock` held.
    private func fail(_ failure: CameraFailure, tearingDown failing: Run?) {
        if let failing, failing === run { run = nil }
        let now = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        let ran = firstFrameNanoseconds.map { Double(now - $0) / 1e9 }
        failuresInARow = backoff.failuresInARow(previous: failuresInARow, runningSeconds: ran)
        let delay = backoff.delaySeconds(failuresInARow: failuresInARow)
        state = .failed(failure, restartInSeconds: delay)
        lastError = failure
        currentRun = 0
        let waiting = feeds.filter { !$0.fed }
        feeds.removeAll { !$0.fed }
        let failed = state
        lock.unlock()
        log(.camera(name: name, state: failed))
        failing?.tearDown()
        for feed in waiting { feed.refuse("camera \(name) \(failed)") }
        pendingRestart += 1
        let restart = pendingRestart
        timer.schedule(camera: name, afterSeconds: delay) { [weak self] in self?.restart(restart) }
    }

    /// The backoff after a failure is over: starts run after run until one delivers frames.
    private func restart(_ number: Int) {
        runLock.lock()
        defer { runLock.unlock() }
        lock.lock()
        let due: Bool
        if case .failed = state, number == pendingRestart { due = true } else { due = false }
        if due { restarts += 1 }
        lock.unlock()
        if due { startRun() }
    }

    // MARK: Frames and viewers

    /// A frame from run `id`'s appsink, on its streaming thread: counted, and handed to every
    /// viewer's media.
    fileprivate func deliver(_ sample: OpaquePointer, run id: Int) {
        guard let buffer = gst_sample_get_buffer(sample) else { return }
        let caps = gst_sample_get_caps(sample)
        var runningTime: GstClockTime?
        if buffer.pointee.pts != GstClockTime.max, let segment = gst_sample_get_segment(sample) {
            let t = gst_segment_to_running_time(segment, GST_FORMAT_TIME, buffer.pointee.pts)
            if t != GstClockTime.max { runningTime = t }
        }
        let now = DispatchTime.now().uptimeNanoseconds
        let regions = Buffer(buffer).barcodeRegions()
        let tracked = regions.filter { $0.trackID != nil && $0.state != .lost && $0.state != .located }
        lock.lock()
        guard id == currentRun else { lock.unlock(); return }
        frames += 1
        codes = tracked.count
        let frameNumber = UInt64(frames - 1)
        meter.add(atNanoseconds: now)
        let started = state == .starting
        if started {
            state = .running
            firstFrameNanoseconds = now
        }
        for feed in feeds { feed.push(buffer, caps: caps, run: id, runningTime: runningTime) }
        lock.unlock()
        if started { log(.camera(name: name, state: .running)) }
        if let browser, browser.viewerCount > 0, let caps, let s = gst_caps_get_structure(caps, 0) {
            var width: gint = 0, height: gint = 0
            gst_structure_get_int(s, "width", &width)
            gst_structure_get_int(s, "height", &height)
            let record = FrameRecord(frame: frameNumber, ptsNanoseconds: runningTime.map(UInt64.init), width: Int(width), height: Int(height),
                                     objects: regions.map {
                                         ObjectRecord(id: $0.trackID ?? 0, symbology: $0.symbology, payload: $0.payload,
                                                      quad: $0.quad, state: $0.state)
                                     })
            browser.push(buffer, caps: caps, record: record, receivedMilliseconds: Date().timeIntervalSince1970 * 1000)
        }
    }

    /// Clicks the running pipeline's video at (`x`, `y`), frame pixels: a left-button press and
    /// release sent upstream from its end, as a video sink sends them, so `aroverlay` toggles the
    /// code there. False when the camera is not running.
    @discardableResult
    public func click(x: Double, y: Double) -> Bool {
        runLock.lock()
        defer { runLock.unlock() }
        guard let run else { return false }
        let bin = UnsafeMutableRawPointer(run.pipeline).assumingMemoryBound(to: GstBin.self)
        guard let sink = gst_bin_get_by_name(bin, Self.sinkName) else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(sink)) }
        let press = gst_element_send_event(sink, gst_navigation_event_new_mouse_button_press(1, x, y, GST_NAVIGATION_MODIFIER_NONE))
        _ = gst_element_send_event(sink, gst_navigation_event_new_mouse_button_release(1, x, y, GST_NAVIGATION_MODIFIER_NONE))
        return press != 0
    }

    /// A viewer's media was configured (an RTSP client thread): feed its appsrc from now on, or,
    /// while the camera is failed, make it fail so the viewer is answered 503.
    func attach(_ media: UnsafeMutablePointer<GstRTSPMedia>) {
        guard let element = gst_rtsp_media_get_element(media) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(element)) }
        let bin = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstBin.self)
        guard let source = gst_bin_get_by_name(bin, Self.sourceName) ?? gst_bin_get_by_name(bin, "pay0") else { return }
        let feed = Feed(source)
        lock.lock()
        let current = state
        let refused: Bool
        switch current {
        case .failed, .stopped: refused = true
        case .starting, .running: refused = false; feeds.append(feed)
        }
        lock.unlock()
        if refused {
            log(.viewerRefused(camera: name, state: current))
            feed.refuse("camera \(name) \(current)")
            return
        }
        // Fed until the media is unprepared (its last viewer left, or it failed) or finalized.
        _ = g_signal_connect_data(UnsafeMutableRawPointer(media), "unprepared", unsafeBitCast(onUnprepared, to: GCallback.self),
                                  Unmanaged.passRetained(FeedToken(camera: self, feed: feed)).toOpaque(), releaseFeedToken,
                                  GConnectFlags(rawValue: 0))
    }

    fileprivate func detach(_ feed: Feed) {
        lock.lock()
        feeds.removeAll { $0 === feed }
        lock.unlock()
    }

    /// An RTSP client (`viewer`, any stable number for it) started playing this camera.
    func viewerStarted(_ viewer: Int) {
        lock.lock()
        viewers.insert(viewer)
        lock.unlock()
    }

    /// The RTSP client `viewer` stopped playing this camera, or left.
    func viewerStopped(_ viewer: Int) {
        lock.lock()
        viewers.remove(viewer)
        lock.unlock()
    }

    /// Whether `message`, from a viewer's media, is the refusal `attach` posted (already reported).
    static func isRefusal(_ message: PipelineMessage) -> Bool {
        message.factory == "appsrc" && (message.element == sourceName || message.element == "pay0")
            && message.message.hasPrefix("camera ")
    }
}

/// One start of a camera's pipeline, until it fails or the camera stops.
private final class Run {
    let id: Int
    let pipeline: UnsafeMutablePointer<GstElement>
    let watch: UnsafeMutablePointer<GSource>
    /// Warnings already logged in this run (each is logged once).
    var warnings: [PipelineMessage] = []

    init(id: Int, pipeline: UnsafeMutablePointer<GstElement>, watch: UnsafeMutablePointer<GSource>) {
        self.id = id
        self.pipeline = pipeline
        self.watch = watch
    }

    func tearDown() {
        g_source_destroy(watch)
        g_source_unref(watch)
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
    }
}

/// A viewer's media the camera feeds: its appsrc, the caps last set on it, and how the camera's
/// time maps to the media's.
private final class Feed {
    private let source: UnsafeMutablePointer<GstElement>
    private var caps: UnsafeMutablePointer<GstCaps>?
    /// Whether a frame was pushed: a media waits for its first frame to answer its viewer.
    private(set) var fed = false
    /// How camera run `run`'s running time maps to the media's while its base time is `base`:
    /// media time = camera time + `offset` (ns), the smallest seen, so frames keep the camera's
    /// spacing and none waits in the media longer than the quickest did; `last` is the last
    /// time stamp pushed, which the next one exceeds.
    private var timing: (run: Int, base: GstClockTime, offset: Int64, last: GstClockTime)?

    /// Takes the reference to `source`.
    init(_ source: UnsafeMutablePointer<GstElement>) { self.source = source }

    /// Least time between two frames' timestamps, ns (90 RTP ticks).
    static let minimumSpacing: GstClockTime = 1_000_000

    private var appsrc: UnsafeMutablePointer<GstAppSrc> { UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstAppSrc.self) }

    /// The media's running time now, and its base time (ns); nil unless the media plays.
    private func mediaTime() -> (now: GstClockTime, base: GstClockTime)? {
        guard source.pointee.current_state == GST_STATE_PLAYING, let clock = gst_element_get_clock(source) else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(clock)) }
        let base = gst_element_get_base_time(source), now = gst_clock_get_time(clock)
        return now >= base ? (now - base, base) : nil
    }

    /// Pushes a copy of `buffer` (camera run `run`, at camera running time `runningTime`, ns)
    /// stamped in the media's time, setting `caps` first when they changed. Frames are dropped
    /// while the media does not play (preparing for a viewer, or every viewer paused).
    func push(_ buffer: UnsafeMutablePointer<GstBuffer>, caps: UnsafeMutablePointer<GstCaps>?, run: Int, runningTime: GstClockTime?) {
        guard let media = mediaTime() else { return }
        var pts = media.now
        if let runningTime {
            let seen = Int64(truncatingIfNeeded: media.now &- runningTime)
            if let t = timing, t.run == run, t.base == media.base {
                let offset = min(t.offset, seen)
                // At least a millisecond after the last frame: frames a relayed camera delivers in a burst
                // would otherwise share a 90 kHz RTP timestamp, which players take for a repeated frame.
                pts = max(GstClockTime(truncatingIfNeeded: Int64(truncatingIfNeeded: runningTime) &+ offset), t.last + Self.minimumSpacing)
                timing = (run, media.base, offset, pts)
            } else {
                timing = (run, media.base, seen, pts)
            }
        }
        if let caps, caps != self.caps, self.caps.map({ gst_caps_is_equal($0, caps) == 0 }) ?? true {
            gst_app_src_set_caps(appsrc, caps)
            if let old = self.caps { gst_caps_unref(old) }
            self.caps = gst_caps_ref(caps)
        }
        let frame = gst_buffer_copy(buffer)!  // the metadata only: the memory is shared
        frame.pointee.pts = pts
        frame.pointee.dts = GstClockTime.max
        _ = gst_app_src_push_buffer(appsrc, frame)  // takes the frame
        fed = true
    }

    /// Makes the media fail with `reason`: a media still preparing answers its viewer 503.
    func refuse(_ reason: String) {
        let error = g_error_new_literal(gst_resource_error_quark(), gint(GST_RESOURCE_ERROR_NOT_FOUND.rawValue), reason)
        let object = UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstObject.self)
        if let msg = gst_message_new_error(object, error, nil) { gst_element_post_message(source, msg) }
        g_error_free(error)
    }

    deinit {
        if let caps { gst_caps_unref(caps) }
        gst_object_unref(UnsafeMutableRawPointer(source))
    }
}

/// What a run's appsink and bus callbacks are handed: the camera and the run they belong to.
private final class RunToken {
    let camera: Camera
    let id: Int
    init(camera: Camera, id: Int) { self.camera = camera; self.id = id }
}

/// What a media's `unprepared` handler is handed; releasing it (the media finalized) detaches too.
private final class FeedToken {
    let camera: Camera
    let feed: Feed
    init(camera: Camera, feed: Feed) { self.camera = camera; self.feed = feed }
    deinit { camera.detach(feed) }
}

private let releaseObject: GDestroyNotify = { data in
    if let data { Unmanaged<AnyObject>.fromOpaque(data).release() }
}

private let releaseFeedToken: GClosureNotify = { data, _ in
    if let data { Unmanaged<FeedToken>.fromOpaque(data).release() }
}

private let onNewSample: @convention(c) (UnsafeMutablePointer<GstAppSink>?, gpointer?) -> GstFlowReturn = { sink, data in
    guard let sink, let data, let sample = gst_app_sink_pull_sample(sink) else { return GST_FLOW_OK }
    defer { gst_sample_unref(sample) }
    let token = Unmanaged<RunToken>.fromOpaque(data).takeUnretainedValue()
    token.camera.deliver(sample, run: token.id)
    return GST_FLOW_OK
}

private let onBusMessage: @convention(c) (UnsafeMutablePointer<GstBus>?, UnsafeMutablePointer<GstMessage>?, gpointer?) -> gboolean = { _, msg, data in
    guard let msg, let data else { return 1 }
    let token = Unmanaged<RunToken>.fromOpaque(data).takeUnretainedValue()
    token.camera.handle(msg, run: token.id)
    return 1  // a failed run's watch is destroyed with it
}

private let onUnprepared: @convention(c) (UnsafeMutablePointer<GstRTSPMedia>?, gpointer?) -> Void = { _, data in
    guard let data else { return }
    let token = Unmanaged<FeedToken>.fromOpaque(data).takeUnretainedValue()
    token.camera.detach(token.feed)
}
