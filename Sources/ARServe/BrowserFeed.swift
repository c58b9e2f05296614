import ARCore
import ARBridge
import ARGst
import ARWeb
import CGStreamer
import CGstApp
import Foundation

/// A camera's frames for browsers, two ways, each encoded once for every browser watching that
/// way, only while one does:
///
/// - JPEG (`subscribe`): each picture with the codes it carries (`BrowserFrame`), over the
///   camera's WebSocket.
/// - WebRTC (`subscribeWebRTC`): H.264 or VP8, whichever the browser decodes (`WebRTCCodec`),
///   from one shared encoder per codec (`WebRTCEncoder`) to one webrtcbin per browser
///   (`WebRTCPeer`), the signalling and each frame's codes over the socket.
///
/// Frames come from the camera's streaming thread and are never waited for: each encoder takes
/// the newest two, and each viewer's own delivery keeps only what it has not sent yet (see
/// `ARServeWeb`).
///
/// Threads: `push` on the camera's streaming thread, encoded frames on the encoders' streaming
/// threads, `subscribe`/`unsubscribe` on the web server's tasks.
public final class BrowserFeed: @unchecked Sendable {  // every mutable field is guarded by `lock`
    /// What encodes: raw video in, JPEG out, a leaky queue of two frames at its door.
    static let launch = "appsrc name=in is-live=true format=time leaky-type=downstream max-buffers=2 max-bytes=0 "
        + "! videoconvert ! jpegenc quality=80 ! appsink name=out sync=false enable-last-sample=false"

    private let lock = NSLock()
    private var viewers: [Int: @Sendable (BrowserFrame) -> Void] = [:]
    private var nextViewer = 1
    private var encoder: Encoder?
    /// The H.264 encoder WebRTC viewers need; nil when none is installed.
    private let h264: H264Encoder?
    /// Whether VP8 can be encoded (vp8enc installed), for browsers without H.264.
    private let vp8 = elementInstalled("vp8enc")
    private var peers: [Int: WebRTCPeer] = [:]
    /// The running encoders, one per codec some viewer receives.
    private var webrtc: [WebRTCCodec: WebRTCEncoder] = [:]
    /// Frames pushed and not yet encoded: their codes and arrival time, by the timestamp they were pushed with.
    private var waiting: [UInt64: (record: FrameRecord, receivedMilliseconds: Double)] = [:]
    private var sequence: UInt64 = 0
    private var lastSize: (width: Int, height: Int)?
    private let log: @Sendable (ServeEvent) -> Void
    private let camera: String

    init(camera: String, h264: H264Encoder?, log: @escaping @Sendable (ServeEvent) -> Void) {
        self.camera = camera
        self.h264 = h264
        self.log = log
    }

    /// Browsers watching now, either way.
    public var viewerCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return viewers.count + peers.count
    }

    /// Branches after the WebRTC encoder's tee now (0 when it is not running): one per WebRTC viewer.
    public var webRTCBranches: Int {
        lock.lock()
        defer { lock.unlock() }
        return webrtc.values.reduce(0) { $0 + $1.branchCount }
    }

    /// Size of the last frame pushed, pixels; nil before the first.
    public var frameSize: (width: Int, height: Int)? {
        lock.lock()
        defer { lock.unlock() }
        return lastSize
    }

    /// Starts handing `deliver` every encoded frame (on the encoder's thread) until
    /// `unsubscribe` with the number returned. The first viewer starts the encoder.
    public func subscribe(_ deliver: @escaping @Sendable (BrowserFrame) -> Void) -> Int {
        lock.lock()
        let id = nextViewer
        nextViewer += 1
        viewers[id] = deliver
        let start = encoder == nil
        if start { encoder = Encoder(feed: self) }
        lock.unlock()
        return id
    }

    /// Starts a WebRTC session for a new viewer whose browser decodes `codecs` (nil: unknown):
    /// `send` gets the JSON text messages for its page (`SignalMessage`s, then a `VideoRecord` per
    /// frame), on GStreamer's threads, until `unsubscribe` with the number returned. The first
    /// viewer of a codec starts its encoder. Nil when no codec both sides have is installed.
    public func subscribeWebRTC(codecs: [WebRTCCodec]?, _ send: @escaping @Sendable (String) -> Void) -> Int? {
        guard let h264, let codec = WebRTCCodec.choose(browser: codecs, h264: true, vp8: vp8) else { return nil }
        lock.lock()
        let id = nextViewer
        nextViewer += 1
        let encoder = webrtc[codec] ?? WebRTCEncoder(codec: codec, h264: h264, feed: self)
        webrtc[codec] = encoder
        let peer = WebRTCPeer(encoder: encoder, send: send)
        peers[id] = peer
        // Under the lock: a viewer leaving at once waits for its branch to be in place.
        encoder.add(peer)
        lock.unlock()
        return id
    }

    /// A signalling message from WebRTC viewer `id`'s page (its answer, its ICE candidates).
    public func signal(_ id: Int, _ message: SignalMessage) {
        lock.lock()
        let peer = peers[id]
        lock.unlock()
        peer?.handle(message)
    }

    /// Stops delivering to viewer `id` (either way); the last one of a way leaving stops its encoder.
    public func unsubscribe(_ id: Int) {
        lock.lock()
        viewers[id] = nil
        var stopping: Encoder?
        if viewers.isEmpty {
            stopping = encoder
            encoder = nil
            waiting = [:]
        }
        let peer = peers.removeValue(forKey: id)
        var stoppingWebRTC: WebRTCEncoder?
        if let peer, let webrtc = webrtc[peer.codec] {
            webrtc.remove(peer)
            if !peers.values.contains(where: { $0.codec == peer.codec }) {
                stoppingWebRTC = webrtc
                self.webrtc[peer.codec] = nil
            }
        }
        lock.unlock()
        stopping?.stop()  // outside the lock: its streaming thread may be waiting for it
        stoppingWebRTC?.stop()
    }

    /// A frame from the camera (its streaming thread): encoded when someone watches.
    /// `width`/`height` in pixels, `receivedMilliseconds` wall-clock since 1970.
    func push(_ buffer: UnsafeMutablePointer<GstBuffer>, caps: UnsafeMutablePointer<GstCaps>?, record: FrameRecord,
              receivedMilliseconds: Double) {
        lock.lock()
        lastSize = (record.width, record.height)
        let webrtc = self.webrtc.values
        lock.unlock()
        for encoder in webrtc { encoder.push(buffer, caps: caps, record: record, receivedMilliseconds: receivedMilliseconds) }
        lock.lock()
        guard let encoder else { lock.unlock(); return }
        sequence += 1
        // Timestamps the encoder keeps: 1 ms apart, only to find each frame's record again.
        let pts = sequence * 1_000_000
        waiting[pts] = (record, receivedMilliseconds)
        // A frame dropped by the leaky queue never comes back: forget the oldest past a few.
        if waiting.count > 8, let oldest = waiting.keys.min() { waiting[oldest] = nil }
        lock.unlock()
        encoder.push(buffer, caps: caps, pts: pts)
    }

    /// An encoded frame (the encoder's streaming thread): to every viewer.
    fileprivate func encoded(_ jpeg: [UInt8], pts: UInt64) {
        lock.lock()
        let entry = waiting.removeValue(forKey: pts)
        let deliveries = Array(viewers.values)
        lock.unlock()
        guard let entry else { return }
        let frame = BrowserFrame(record: entry.record, receivedMilliseconds: entry.receivedMilliseconds, jpeg: jpeg)
        for deliver in deliveries { deliver(frame) }
    }

    func failed(_ message: PipelineMessage) {
        log(.cameraWarning(name: camera, message))
    }
}

/// One run of the JPEG encoder, from the first viewer to the last one leaving.
private final class Encoder: @unchecked Sendable {  // `caps` only touched by `push`, which the camera's one streaming thread calls
    let pipeline: UnsafeMutablePointer<GstElement>
    let source: UnsafeMutablePointer<GstElement>
    private var caps: UnsafeMutablePointer<GstCaps>?

    init(feed: BrowserFeed) {
        pipeline = gst_parse_launch(BrowserFeed.launch, nil)!
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        source = gst_bin_get_by_name(bin, "in")!
        let sink = gst_bin_get_by_name(bin, "out")!
        var callbacks = GstAppSinkCallbacks()
        callbacks.new_sample = onEncoded
        gst_app_sink_set_callbacks(UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GstAppSink.self), &callbacks,
                                   Unmanaged.passRetained(feed).toOpaque(), { data in
                                       if let data { Unmanaged<BrowserFeed>.fromOpaque(data).release() }
                                   })
        gst_object_unref(UnsafeMutableRawPointer(sink))
        let bus = gst_element_get_bus(pipeline)!
        // Errors are reported as they are posted; nothing else is kept on the bus.
        gst_bus_set_sync_handler(bus, onBrowserEncoderMessage, Unmanaged.passRetained(feed).toOpaque(), { data in
            if let data { Unmanaged<BrowserFeed>.fromOpaque(data).release() }
        })
        gst_object_unref(UnsafeMutableRawPointer(bus))
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
    }

    func push(_ buffer: UnsafeMutablePointer<GstBuffer>, caps: UnsafeMutablePointer<GstCaps>?, pts: UInt64) {
        let appsrc = UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstAppSrc.self)
        if let caps, caps != self.caps, self.caps.map({ gst_caps_is_equal($0, caps) == 0 }) ?? true {
            gst_app_src_set_caps(appsrc, caps)
            if let old = self.caps { gst_caps_unref(old) }
            self.caps = gst_caps_ref(caps)
        }
        let frame = gst_buffer_copy(buffer)!  // the metadata only: the memory is shared
        frame.pointee.pts = GstClockTime(pts)
        frame.pointee.dts = GstClockTime.max
        frame.pointee.duration = GstClockTime.max
        _ = gst_app_src_push_buffer(appsrc, frame)  // takes the frame
    }

    func stop() {
        gst_element_set_state(pipeline, GST_STATE_NULL)
    }

    deinit {
        gst_element_set_state(pipeline, GST_STATE_NULL)
        if let caps { gst_caps_unref(caps) }
        gst_object_unref(UnsafeMutableRawPointer(source))
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
    }
}

private let onEncoded: @convention(c) (UnsafeMutablePointer<GstAppSink>?, gpointer?) -> GstFlowReturn = { sink, data in
    guard let sink, let data, let sample = gst_app_sink_pull_sample(sink) else { return GST_FLOW_OK }
    defer { gst_sample_unref(sample) }
    guard let buffer = gst_sample_get_buffer(sample) else { return GST_FLOW_OK }
    var map = GstMapInfo()
    guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return GST_FLOW_OK }
    let jpeg = Array(UnsafeBufferPointer(start: map.data, count: Int(map.size)))
    gst_buffer_unmap(buffer, &map)
    Unmanaged<BrowserFeed>.fromOpaque(data).takeUnretainedValue().encoded(jpeg, pts: UInt64(buffer.pointee.pts))
    return GST_FLOW_OK
}

/// The browser encoders' bus: errors and warnings logged as the camera's, nothing kept.
let onBrowserEncoderMessage: GstBusSyncHandler = { _, msg, data in
    guard let msg else { return GST_BUS_DROP }
    // A handler that drops a message unrefs it (the bus does not): every message holds its
    // element, and webrtcbin kept this way keeps its ICE sockets open.
    defer { gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self)) }
    if let data, msg.pointee.type == GST_MESSAGE_ERROR || msg.pointee.type == GST_MESSAGE_WARNING, let message = PipelineMessage(msg) {
        Unmanaged<BrowserFeed>.fromOpaque(data).takeUnretainedValue().failed(message)
    }
    return GST_BUS_DROP
}
