/// How a camera's WebSocket carries the video, chosen by the page in the socket's address
/// (`/cameras/NAME/ws?video=webrtc`): JPEG pictures in the socket itself, or H.264 or VP8 (`WebRTCCodec`) over WebRTC
/// with only the signalling and each frame's codes in the socket.
public enum BrowserVideo: String, Sendable, CaseIterable {
    /// Binary messages, a `BrowserFrame` (codes and JPEG) each. The default.
    case jpeg
    /// WebRTC (`SignalMessage`s), with a `VideoRecord` text message per frame sent.
    case webrtc

    /// The mode a query string asks for (`video=webrtc`, with or without the leading `?`, other
    /// keys ignored); JPEG when it names none or an unknown one.
    public init(query: String) {
        let value = queryValue("video", in: query)
        self = value.flatMap { BrowserVideo(rawValue: String($0)) } ?? .jpeg
    }
}
