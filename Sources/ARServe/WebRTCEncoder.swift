import ARBridge
import ARCore
import ARWeb
import CGStreamer
import CGstApp
import Foundation

/// A camera's video in one codec (H.264 or VP8) for its WebRTC viewers that receive it, encoded
/// once for all of them, from the first such viewer to the last one leaving:
///
///     appsrc (leaky, 2 frames) ! videoconvert ! x264enc ! tee ─┬─ viewer 1 (`WebRTCPeer`)
///                                               (or vp8enc)     └─ viewer 2 …
///
/// Frames are stamped with the encoder pipeline's running time when pushed (from 0); each viewer's
/// payloader reports the RTP timestamp a frame leaves with, and `record(pts:)` gives the codes
/// of that frame back, so the page lists the codes of the frame it shows.
///
/// Threads: `push` on the camera's streaming thread; `add`/`remove` on the web server's tasks;
/// `record(pts:)` on the viewers' streaming threads.
final class WebRTCEncoder: @unchecked Sendable {  // `caps`, `lastPTS`, `firstRunningTime` and `recent` guarded by `lock`; the elements are immutable
    /// Frames' codes kept for the viewers' payloaders to find (about a second at 30 fps).
    static let recentFrames = 32

    let pipeline: UnsafeMutablePointer<GstElement>
    /// What it encodes to.
    let codec: WebRTCCodec
    private let source: UnsafeMutablePointer<GstElement>
    private let tee: UnsafeMutablePointer<GstElement>
    private let lock = NSLock()
    private var caps: UnsafeMutablePointer<GstCaps>?
    private var lastPTS: GstClockTime?
    /// The pipeline's running time at the first frame pushed, ns.
    private var firstRunningTime: GstClockTime?
    private var recent: [(pts: UInt64, record: FrameRecord, receivedMilliseconds: Double)] = []

    /// Bit rate of the browsers' video, kbit/s.
    static let bitrateKbps = 2000

    /// Launch text: raw video in, `codec` out (H.264 from `h264`) to a tee with no branch yet.
    static func launch(_ codec: WebRTCCodec, h264: H264Encoder) -> String {
        let encode: String
        switch codec {
        case .h264: encode = h264.encode(bitrateKbps: bitrateKbps)
        case .vp8:
            // Realtime, no frames held back for look-ahead, one thread, a key frame a second at 30 fps.
            encode = "videoconvert ! video/x-raw,format=I420 ! vp8enc deadline=1 cpu-used=8 threads=1 lag-in-frames=0 "
                + "end-usage=cbr target-bitrate=\(bitrateKbps * 1000) keyframe-max-dist=30 error-resilient=default"
        }
        return "appsrc name=in is-live=true format=time leaky-type=downstream max-buffers=2 max-bytes=0 "
            + "! \(encode) ! tee name=split allow-not-linked=true"
    }

    /// Starts encoding to `codec` (H.264 with `h264`); messages from the pipeline go to `feed`'s log.
    init(codec: WebRTCCodec, h264: H264Encoder, feed: BrowserFeed) {
        self.codec = codec
        pipeline = gst_parse_launch(Self.launch(codec, h264: h264), nil)!
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        source = gst_bin_get_by_name(bin, "in")!
        tee = gst_bin_get_by_name(bin, "split")!
        let bus = gst_element_get_bus(pipeline)!
        gst_bus_set_sync_handler(bus, onBrowserEncoderMessage, Unmanaged.passRetained(feed).toOpaque(), { data in
            if let data { Unmanaged<BrowserFeed>.fromOpaque(data).release() }
        })
        gst_object_unref(UnsafeMutableRawPointer(bus))
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
    }

    /// Encodes a copy of `buffer` (its memory shared) stamped with the pipeline's running time now,
    /// and keeps its codes; dropped while the pipeline is not playing yet.
    func push(_ buffer: UnsafeMutablePointer<GstBuffer>, caps: UnsafeMutablePointer<GstCaps>?, record: FrameRecord,
              receivedMilliseconds: Double) {
        guard let clock = gst_element_get_clock(pipeline) else { return }
        let now = gst_clock_get_time(clock), base = gst_element_get_base_time(pipeline)
        gst_object_unref(UnsafeMutableRawPointer(clock))
        guard now >= base else { return }
        let appsrc = UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstAppSrc.self)
        lock.lock()
        // From 0 at the first frame (the encoder counts its output from its first frame), strictly
        // increasing, a millisecond apart at least: each frame its own RTP timestamp.
        let start = firstRunningTime ?? (now - base)
        firstRunningTime = start
        var pts = now - base >= start ? now - base - start : 0
        if let last = lastPTS, pts < last + 1_000_000 { pts = last + 1_000_000 }
        lastPTS = pts
        recent.append((UInt64(pts), record, receivedMilliseconds))
        if recent.count > Self.recentFrames { recent.removeFirst(recent.count - Self.recentFrames) }
        var newCaps: UnsafeMutablePointer<GstCaps>?
        if let caps, caps != self.caps, self.caps.map({ gst_caps_is_equal($0, caps) == 0 }) ?? true {
            if let old = self.caps { gst_caps_unref(old) }
            self.caps = gst_caps_ref(caps)
            newCaps = caps
        }
        lock.unlock()
        if let newCaps { gst_app_src_set_caps(appsrc, newCaps) }
        let frame = gst_buffer_copy(buffer)!  // the metadata only: the memory is shared
        frame.pointee.pts = pts
        frame.pointee.dts = GstClockTime.max
        frame.pointee.duration = GstClockTime.max
        _ = gst_app_src_push_buffer(appsrc, frame)  // takes the frame
    }

    /// What x264enc adds to every timestamp (GstVideoEncoder's 1000 hours, which keeps decoding
    /// timestamps before the first frame positive), ns.
    static let encoderOffsetNanoseconds: UInt64 = 1000 * 3600 * 1_000_000_000

    /// The codes and arrival time (wall-clock ms) of the frame pushed with timestamp `pts`, ns, as
    /// the encoder gave it out (offset or not).
    func record(pts: UInt64) -> (record: FrameRecord, receivedMilliseconds: Double)? {
        lock.lock()
        defer { lock.unlock() }
        return recent.last { $0.pts == pts || $0.pts + Self.encoderOffsetNanoseconds == pts }.map { ($0.record, $0.receivedMilliseconds) }
    }

    /// Adds `peer`'s branch after the tee; it asks the encoder for a key frame to start from.
    func add(_ peer: WebRTCPeer) {
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        gst_bin_add(bin, peer.bin)
        guard let teePad = gst_element_request_pad_simple(tee, "src_%u"),
              let sink = gst_element_get_static_pad(peer.bin, "sink") else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(sink)) }
        peer.teePad = teePad
        _ = gst_element_sync_state_with_parent(peer.bin)
        _ = gst_pad_link(teePad, sink)
        let keyFrame = gst_video_event_new_upstream_force_key_unit(GstClockTime.max, 1, 0)
        _ = gst_pad_push_event(sink, keyFrame)  // upstream, to the encoder
    }

    /// Takes `peer`'s branch away once no frame is going through the tee to it, and stops it.
    func remove(_ peer: WebRTCPeer) {
        if let teePad = peer.teePad {
            let unlinked = DispatchSemaphore(value: 0)
            let box = Unmanaged.passRetained(ProbeSignal(unlinked)).toOpaque()
            _ = gst_pad_add_probe(teePad, GST_PAD_PROBE_TYPE_IDLE, onTeePadIdle, box, { data in
                if let data { Unmanaged<ProbeSignal>.fromOpaque(data).release() }
            })
            // Called at once when idle, or after the frame going through: never long.
            _ = unlinked.wait(timeout: .now() + 2)
        }
        gst_element_set_state(peer.bin, GST_STATE_NULL)
        gst_bin_remove(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self), peer.bin)
        if let teePad = peer.teePad {
            gst_element_release_request_pad(tee, teePad)
            gst_object_unref(UnsafeMutableRawPointer(teePad))
            peer.teePad = nil
        }
    }

    /// Branches now after the tee (viewers being served).
    var branchCount: Int {
        Int(UnsafeMutableRawPointer(tee).assumingMemoryBound(to: GstElement.self).pointee.numsrcpads)
    }

    /// Stops the pipeline (its last viewer left).
    func stop() {
        gst_element_set_state(pipeline, GST_STATE_NULL)
    }

    deinit {
        gst_element_set_state(pipeline, GST_STATE_NULL)
        if let caps { gst_caps_unref(caps) }
        gst_object_unref(UnsafeMutableRawPointer(source))
        gst_object_unref(UnsafeMutableRawPointer(tee))
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
    }
}

/// What the tee pad's idle probe signals once it unlinked the branch.
private final class ProbeSignal: Sendable {
    let semaphore: DispatchSemaphore
    init(_ semaphore: DispatchSemaphore) { self.semaphore = semaphore }
}

private let onTeePadIdle: GstPadProbeCallback = { pad, _, data in
    if let pad, let peer = gst_pad_get_peer(pad) {
        _ = gst_pad_unlink(pad, peer)
        gst_object_unref(UnsafeMutableRawPointer(peer))
    }
    if let data { Unmanaged<ProbeSignal>.fromOpaque(data).takeUnretainedValue().semaphore.signal() }
    return GST_PAD_PROBE_REMOVE
}

extension WebRTCCodec {
    /// Launch text of its RTP payloader, named `pay`, for one viewer's webrtcbin. Payload type
    /// 96 either way: each viewer's session has one codec.
    var payloader: String {
        switch self {
        case .h264: "rtph264pay name=pay pt=96 config-interval=-1 aggregate-mode=zero-latency timestamp-offset=0"
        case .vp8: "rtpvp8pay name=pay pt=96 picture-id-mode=15-bit timestamp-offset=0"
        }
    }
}
