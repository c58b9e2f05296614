import ARCore
import ARBridge
import ARGst
import ARWeb
import CGStreamer
import CGstApp
import Foundation

/// A camera's frames for browsers: JPEG-encoded once for every browser watching, only while one
/// does, each with the codes it carries (`BrowserFrame`). Frames come from the camera's streaming
/// thread and are never waited for: the encoder takes the newest two, and each viewer's own
/// delivery keeps only what it has not sent yet (see `ARServeWeb`).
///
/// Threads: `push` on the camera's streaming thread, encoded frames on the encoder's streaming
/// thread, `subscribe`/`unsubscribe` on the web server's tasks.
public final class BrowserFeed: @unchecked Sendable {  // every mutable field is guarded by `lock`
    /// What encodes: raw video in, JPEG out, a leaky queue of two frames at its door.
    static let launch = "appsrc name=in is-live=true format=time leaky-type=downstream max-buffers=2 max-bytes=0 "
        + "! videoconvert ! jpegenc quality=80 ! appsink name=out sync=false enable-last-sample=false"

    private let lock = NSLock()
    private var viewers: [Int: @Sendable (BrowserFrame) -> Void] = [:]
    private var nextViewer = 1
    private var encoder: Encoder?
    /// Frames pushed and not yet encoded: their codes and arrival time, by the timestamp they were pushed with.
    private var waiting: [UInt64: (record: FrameRecord, receivedMilliseconds: Double)] = [:]
    private var sequence: UInt64 = 0
    private var lastSize: (width: Int, height: Int)?
    private let log: @Sendable (ServeEvent) -> Void
    private let camera: String

    init(camera: String, log: @escaping @Sendable (ServeEvent) -> Void) {
        self.camera = camera
        self.log = log
    }

    /// Browsers watching now.
    public var viewerCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return viewers.count
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

    /// Stops delivering to viewer `id`; the last one leaving stops the encoder.
    public func unsubscribe(_ id: Int) {
        lock.lock()
        viewers[id] = nil
        var stopping: Encoder?
        if viewers.isEmpty {
            stopping = encoder
            encoder = nil
            waiting = [:]
        }
        lock.unlock()
        stopping?.stop()  // outside the lock: its streaming thread may be waiting for it
    }

    /// A frame from the camera (its streaming thread): encoded when someone watches.
    /// `width`/`height` in pixels, `receivedMilliseconds` wall-clock since 1970.
    func push(_ buffer: UnsafeMutablePointer<GstBuffer>, caps: UnsafeMutablePointer<GstCaps>?, record: FrameRecord,
              receivedMilliseconds: Double) {
        lock.lock()
        lastSize = (record.width, record.height)
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

    fileprivate func failed(_ message: PipelineMessage) {
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
        gst_bus_set_sync_handler(bus, onEncoderMessage, Unmanaged.passRetained(feed).toOpaque(), { data in
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

private let onEncoderMessage: GstBusSyncHandler = { _, msg, data in
    guard let msg, let data else { return GST_BUS_DROP }
    if msg.pointee.type == GST_MESSAGE_ERROR || msg.pointee.type == GST_MESSAGE_WARNING, let message = PipelineMessage(msg) {
        Unmanaged<BrowserFeed>.fromOpaque(data).takeUnretainedValue().failed(message)
    }
    return GST_BUS_DROP  // the bus unrefs it
}
