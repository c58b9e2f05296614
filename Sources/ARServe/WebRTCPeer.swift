import ARBridge
import ARCore
import ARWeb
import CGStreamer
import CGstSdp
import CGstWebRTC
import Foundation

/// One browser's WebRTC session: a branch after its camera's shared encoder,
///
///     queue (leaky) ! rtph264pay (or rtpvp8pay) ! webrtcbin
///
/// that offers one send-only video track in the encoder's codec as soon as the encoder's caps
/// reach it, trickles its ICE candidates, and takes the page's answer and candidates (`handle`).
/// Each frame leaving its payloader sends the page that frame's codes with its RTP timestamp
/// (`VideoRecord`).
///
/// Threads: `send` is called on webrtcbin's and the payloader's threads; `handle` on the web
/// server's tasks.
final class WebRTCPeer: @unchecked Sendable {  // `teePad` only touched by the encoder's add/remove (one task at a time); `lastPTS` by the payloader's one streaming thread
    /// The branch: a bin with a ghost sink pad.
    let bin: UnsafeMutablePointer<GstElement>
    private let webrtc: UnsafeMutablePointer<GstElement>
    private let send: @Sendable (String) -> Void
    private weak var encoder: WebRTCEncoder?
    /// What its encoder encodes to.
    let codec: WebRTCCodec
    /// The tee's pad feeding the branch, while added.
    var teePad: UnsafeMutablePointer<GstPad>?
    private var lastPTS: UInt64?

    /// The branch's launch text for `codec`. A queue of a second at most whose oldest frames are
    /// dropped: a viewer that stalls never holds back the encoder or the other viewers.
    /// `timestamp-offset=0` keeps RTP timestamps a plain function of the frames' timestamps.
    static func launch(_ codec: WebRTCCodec) -> String {
        "queue leaky=downstream max-size-buffers=30 max-size-bytes=0 max-size-time=0 ! \(codec.payloader) "
            + "! webrtcbin name=webrtc bundle-policy=max-bundle"
    }

    /// A branch for `encoder` (its codec) that talks to the page through `send` (JSON text messages).
    init(encoder: WebRTCEncoder, send: @escaping @Sendable (String) -> Void) {
        self.encoder = encoder
        codec = encoder.codec
        self.send = send
        var error: UnsafeMutablePointer<GError>?
        // A floating reference: sunk here, so the peer owns one whatever bin it is added to.
        bin = gst_parse_bin_from_description(Self.launch(codec), 1, &error)
        _ = gst_object_ref_sink(UnsafeMutableRawPointer(bin))
        if let error { g_error_free(error) }
        let gstBin = UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstBin.self)
        webrtc = gst_bin_get_by_name(gstBin, "webrtc")!
        // One send-only video track.
        if let pad = gst_element_get_static_pad(webrtc, "sink_0") {
            var value = GValue()
            g_value_init(&value, gst_webrtc_rtp_transceiver_get_type())
            g_object_get_property(UnsafeMutableRawPointer(pad).assumingMemoryBound(to: GObject.self), "transceiver", &value)
            if let transceiver = g_value_get_object(&value) {
                gst_util_set_object_arg(transceiver.assumingMemoryBound(to: GObject.self), "direction", "sendonly")
            }
            g_value_unset(&value)
            gst_object_unref(UnsafeMutableRawPointer(pad))
        }
        let this = Unmanaged.passUnretained(self).toOpaque()
        // The handlers hold no reference: they are disconnected in `deinit`, before the peer goes.
        _ = g_signal_connect_data(UnsafeMutableRawPointer(webrtc), "on-negotiation-needed",
                                  unsafeBitCast(onNegotiationNeeded, to: GCallback.self), this, nil, GConnectFlags(rawValue: 0))
        _ = g_signal_connect_data(UnsafeMutableRawPointer(webrtc), "on-ice-candidate",
                                  unsafeBitCast(onIceCandidate, to: GCallback.self), this, nil, GConnectFlags(rawValue: 0))
        if let pay = gst_bin_get_by_name(gstBin, "pay") {
            if let src = gst_element_get_static_pad(pay, "src") {
                let types = GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue
                _ = gst_pad_add_probe(src, GstPadProbeType(rawValue: types), onPacketsOut, this, nil)
                gst_object_unref(UnsafeMutableRawPointer(src))
            }
            gst_object_unref(UnsafeMutableRawPointer(pay))
        }
    }

    deinit {
        g_signal_handlers_disconnect_matched(UnsafeMutableRawPointer(webrtc), G_SIGNAL_MATCH_DATA, 0, 0, nil, nil,
                                             Unmanaged.passUnretained(self).toOpaque())
        gst_object_unref(UnsafeMutableRawPointer(webrtc))
        gst_object_unref(UnsafeMutableRawPointer(bin))
    }

    /// A message from the page: its answer or an ICE candidate (anything else is ignored).
    func handle(_ message: SignalMessage) {
        switch message {
        case .answer(let text):
            var sdp: UnsafeMutablePointer<GstSDPMessage>?
            guard gst_sdp_message_new_from_text(text, &sdp) == GST_SDP_OK, let sdp,
                  let answer = gst_webrtc_session_description_new(GST_WEBRTC_SDP_TYPE_ANSWER, sdp) else { return }
            emit("set-remote-description", description: answer)
            gst_webrtc_session_description_free(answer)
        case .candidate(let candidate, let index):
            // Browsers hide their host addresses behind mDNS names (`….local`); webrtcbin 1.22
            // resolves them on its ICE thread and can crash when the session ends meanwhile. It
            // needs none of them: the browser's checks reach its own candidates, and it learns
            // the browser's address from them (peer-reflexive).
            if SignalMessage.isMDNSCandidate(candidate) { return }
            var values = [GValue(), GValue(), GValue()]
            g_value_init(&values[0], gst_element_get_type())
            g_value_set_object(&values[0], UnsafeMutableRawPointer(webrtc))
            g_value_init(&values[1], g_type_from_name("guint"))
            g_value_set_uint(&values[1], guint(index))
            g_value_init(&values[2], g_type_from_name("gchararray"))
            g_value_set_string(&values[2], candidate)
            emit("add-ice-candidate", &values)
        case .offer:
            break
        }
    }

    /// The offer webrtcbin made: set as its local description and sent to the page.
    fileprivate func offered(_ offer: UnsafeMutablePointer<GstWebRTCSessionDescription>) {
        emit("set-local-description", description: offer)
        guard let text = gst_sdp_message_as_text(offer.pointee.sdp) else { return }
        send(SignalMessage.offer(sdp: String(cString: text)).json)
        g_free(text)
    }

    fileprivate func negotiationNeeded() {
        // A weak reference: the promise may be freed on webrtcbin's own thread, which must not
        // be the one finalizing it.
        let promise = gst_promise_new_with_change_func(onOfferCreated, Unmanaged.passRetained(WeakPeer(self)).toOpaque()) { data in
            if let data { Unmanaged<WeakPeer>.fromOpaque(data).release() }
        }
        var values = [GValue(), GValue(), GValue()]
        g_value_init(&values[0], gst_element_get_type())
        g_value_set_object(&values[0], UnsafeMutableRawPointer(webrtc))
        g_value_init(&values[1], gst_structure_get_type())  // no options
        g_value_init(&values[2], gst_promise_get_type())
        g_value_set_boxed(&values[2], promise)
        emit("create-offer", &values)
        gst_promise_unref(promise)
    }

    fileprivate func iceCandidate(_ candidate: String, mLineIndex: Int) {
        send(SignalMessage.candidate(candidate, mLineIndex: mLineIndex).json)
    }

    /// A frame's packets leave the payloader with timestamp `pts` (ns) and RTP timestamp `rtp`:
    /// sends its codes once per frame.
    fileprivate func packetsOut(pts: UInt64, rtp: UInt32) {
        guard pts != lastPTS else { return }
        lastPTS = pts
        guard let frame = encoder?.record(pts: pts) else { return }
        send(VideoRecord(record: frame.record, receivedMilliseconds: frame.receivedMilliseconds, rtpTimestamp: rtp).json)
    }

    /// Emits `set-local-description` or `set-remote-description` with `description`, no promise.
    private func emit(_ signal: String, description: UnsafeMutablePointer<GstWebRTCSessionDescription>) {
        var values = [GValue(), GValue(), GValue()]
        g_value_init(&values[0], gst_element_get_type())
        g_value_set_object(&values[0], UnsafeMutableRawPointer(webrtc))
        g_value_init(&values[1], gst_webrtc_session_description_get_type())
        g_value_set_boxed(&values[1], description)
        g_value_init(&values[2], gst_promise_get_type())
        emit(signal, &values)
    }

    /// Emits action signal `signal` on webrtcbin with `values` (itself first), then unsets them.
    private func emit(_ signal: String, _ values: inout [GValue]) {
        let type = UnsafeMutableRawPointer(webrtc).assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee.g_type
        let id = g_signal_lookup(signal, type)
        if id != 0 { values.withUnsafeBufferPointer { g_signal_emitv($0.baseAddress, id, 0, nil) } }
        for i in values.indices { g_value_unset(&values[i]) }
    }
}

/// What an offer's promise holds: the peer, if it is still there.
private final class WeakPeer: @unchecked Sendable {  // `peer` is set once, in init; a weak reference is atomic
    weak var peer: WebRTCPeer?
    init(_ peer: WebRTCPeer) { self.peer = peer }
}

private let onNegotiationNeeded: @convention(c) (UnsafeMutablePointer<GstElement>?, gpointer?) -> Void = { _, data in
    guard let data else { return }
    Unmanaged<WebRTCPeer>.fromOpaque(data).takeUnretainedValue().negotiationNeeded()
}

private let onIceCandidate: @convention(c) (UnsafeMutablePointer<GstElement>?, guint, UnsafeMutablePointer<gchar>?, gpointer?) -> Void = {
    _, index, candidate, data in
    guard let data, let candidate else { return }
    Unmanaged<WebRTCPeer>.fromOpaque(data).takeUnretainedValue().iceCandidate(String(cString: candidate), mLineIndex: Int(index))
}

private let onOfferCreated: GstPromiseChangeFunc = { promise, data in
    guard let promise, let data, gst_promise_wait(promise) == GST_PROMISE_RESULT_REPLIED,
          let reply = gst_promise_get_reply(promise), let value = gst_structure_get_value(reply, "offer"),
          let offer = g_value_get_boxed(value) else { return }
    Unmanaged<WeakPeer>.fromOpaque(data).takeUnretainedValue().peer?
        .offered(offer.assumingMemoryBound(to: GstWebRTCSessionDescription.self))
}

private let onPacketsOut: GstPadProbeCallback = { _, info, data in
    guard let info, let data, let object = info.pointee.data else { return GST_PAD_PROBE_OK }
    var buffer: UnsafeMutablePointer<GstBuffer>?
    if info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue != 0 {
        let list = OpaquePointer(object)
        if gst_buffer_list_length(list) > 0 { buffer = gst_buffer_list_get(list, 0) }
    } else {
        buffer = object.assumingMemoryBound(to: GstBuffer.self)
    }
    guard let buffer, buffer.pointee.pts != GstClockTime.max else { return GST_PAD_PROBE_OK }
    var header = [UInt8](repeating: 0, count: 8)
    guard gst_buffer_extract(buffer, 0, &header, 8) == 8 else { return GST_PAD_PROBE_OK }
    let rtp = UInt32(header[4]) << 24 | UInt32(header[5]) << 16 | UInt32(header[6]) << 8 | UInt32(header[7])
    Unmanaged<WebRTCPeer>.fromOpaque(data).takeUnretainedValue().packetsOut(pts: UInt64(buffer.pointee.pts), rtp: rtp)
    return GST_PAD_PROBE_OK
}
