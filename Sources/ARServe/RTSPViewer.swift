import ARBridge
import CGStreamer
import Foundation

/// An RTSP viewer in this process: rtspsrc → H.264 depayload → decode → RGB frames. Used by
/// tests and the latency benchmark to see what a remote player sees.
public final class RTSPViewer: @unchecked Sendable {  // Mutable state is guarded by `lock`.
    /// Size of the decoded frames, pixels.
    public let width: Int
    public let height: Int
    private let pipeline: UnsafeMutablePointer<GstElement>
    private let lock = NSLock()
    private var frameCount = 0
    private var lastFrame: [UInt8] = []
    private var arrivals: [(pts: UInt64, monotonicNanoseconds: UInt64)] = []
    private var firstError: String?
    private let frameHandler: (([UInt8], UInt64) -> Void)?

    /// Connects to `url` (credentials for basic authentication) and decodes `width` × `height` RGB,
    /// RTP over UDP, or interleaved in the RTSP connection when `overTCP` (no UDP time-out to
    /// reconnect after when the stream pauses for a while, e.g. while a camera restarts).
    /// `frameHandler`, if given, sees each decoded frame (RGB) and its arrival time (monotonic
    /// clock, ns) on the streaming thread, as it arrives.
    public init(url: String, width: Int, height: Int, user: String? = nil, password: String? = nil, overTCP: Bool = false,
                frameHandler: (([UInt8], UInt64) -> Void)? = nil) {
        self.width = width
        self.height = height
        self.frameHandler = frameHandler
        _ = PipelineServer.initialize
        let auth = user.map { " user-id=\($0) user-pw=\(password ?? "")" } ?? ""
        var error: UnsafeMutablePointer<GError>?
        let transport = overTCP ? " protocols=tcp" : ""
        pipeline = gst_parse_launch("rtspsrc location=\(url) latency=0\(auth)\(transport) ! rtph264depay ! decodebin ! videoconvert "
                                    + "! video/x-raw,format=RGB,width=\(width),height=\(height) ! fakesink name=sink sync=false", &error)!
        if let error { g_error_free(error) }
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        let sink = gst_bin_get_by_name(bin, "sink")!
        let pad = gst_element_get_static_pad(sink, "sink")!
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, onFrame, Unmanaged.passUnretained(self).toOpaque(), nil)
        gst_object_unref(UnsafeMutableRawPointer(pad))
        gst_object_unref(UnsafeMutableRawPointer(sink))
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
    }

    deinit {
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
    }

    fileprivate func add(_ buffer: UnsafeMutablePointer<GstBuffer>) {
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GstMapFlags(rawValue: 1)) != 0 else { return }
        let bytes = Array(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
        gst_buffer_unmap(buffer, &map)
        let now = UInt64(DispatchTime.now().uptimeNanoseconds)
        frameHandler?(bytes, now)
        lock.lock()
        frameCount += 1
        lastFrame = bytes
        arrivals.append((UInt64(buffer.pointee.pts), now))
        lock.unlock()
    }

    /// Frames decoded so far.
    public var framesDecoded: Int { lock.lock(); defer { lock.unlock() }; return frameCount }

    /// The most recent decoded frame, RGB, `width * height * 3` bytes.
    public var lastRGBFrame: [UInt8] { lock.lock(); defer { lock.unlock() }; return lastFrame }

    /// When each frame arrived (monotonic clock, ns), with its PTS.
    public var frameArrivals: [(pts: UInt64, monotonicNanoseconds: UInt64)] { lock.lock(); defer { lock.unlock() }; return arrivals }

    /// The first error the viewer's pipeline reported, if any (e.g. `Unauthorized`).
    public var error: String? {
        lock.lock()
        defer { lock.unlock() }
        if firstError == nil {
            let bus = gst_element_get_bus(pipeline)!
            if let msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) {
                firstError = PipelineRunner.errorText(msg)
                gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self))
            }
            gst_object_unref(UnsafeMutableRawPointer(bus))
        }
        return firstError
    }
}

private let onFrame: GstPadProbeCallback = { _, info, data in
    let viewer = Unmanaged<RTSPViewer>.fromOpaque(data!).takeUnretainedValue()
    if let buffer = info?.pointee.data?.assumingMemoryBound(to: GstBuffer.self) { viewer.add(buffer) }
    return GST_PAD_PROBE_OK
}
