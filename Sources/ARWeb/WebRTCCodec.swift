/// The video codec a WebRTC viewer receives. The page lists what its browser can decode in the
/// socket's address (`/cameras/NAME/ws?video=webrtc&codecs=VP8,H264`, from
/// `RTCRtpReceiver.getCapabilities("video")`); arserve picks the first of its own preference the
/// browser lists and it can encode. Firefox as Debian ships it decodes no H.264 (OpenH264 is a
/// download it cannot make offline), so it gets VP8.
public enum WebRTCCodec: String, Sendable, CaseIterable {
    /// H.264, constrained baseline: cheap to encode (x264 ultrafast), decoded in hardware by most browsers.
    case h264 = "H264"
    /// VP8 (libvpx, realtime): every WebRTC browser must decode it.
    case vp8 = "VP8"

    /// The codecs a query string lists (`codecs=VP8,H264`, names as in SDP, any case, unknown
    /// ones left out); nil when it has no `codecs` key (a page that does not say).
    public static func listed(inQuery query: String) -> [WebRTCCodec]? {
        guard let value = queryValue("codecs", in: query) else { return nil }
        return value.split(separator: ",").compactMap { name in allCases.first { $0.rawValue.caseInsensitiveCompare(name) == .orderedSame } }
    }

    /// The codec to send: H.264 when the browser lists it (or lists nothing) and `h264` can be
    /// encoded, else VP8 when the browser lists it (or lists nothing) and `vp8` can be encoded;
    /// nil when no codec both sides have.
    public static func choose(browser: [WebRTCCodec]?, h264: Bool, vp8: Bool) -> WebRTCCodec? {
        let listed = browser ?? allCases
        if h264, listed.contains(.h264) { return .h264 }
        if vp8, listed.contains(.vp8) { return .vp8 }
        return nil
    }
}

/// The value of `key` in a query string (`a=1&b=2`, with or without the leading `?`); nil when absent.
func queryValue(_ key: String, in query: String) -> Substring? {
    query.drop(while: { $0 == "?" }).split(separator: "&").lazy.compactMap { pair -> Substring? in
        let parts = pair.split(separator: "=", maxSplits: 1)
        return parts.count == 2 && parts[0] == key ? parts[1] : nil
    }.first
}
