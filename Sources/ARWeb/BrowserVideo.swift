/// How a camera's WebSocket carries the video, chosen by the page in the socket's address
/// (`/cameras/NAME/ws?video=webrtc`): JPEG pictures in the socket itself, or H.264 over WebRTC
/// with only the signalling and each frame's codes in the socket.
public enum BrowserVideo: String, Sendable, CaseIterable {
    /// Binary messages, a `BrowserFrame` (codes and JPEG) each. The default.
    case jpeg
    /// WebRTC (`SignalMessage`s), with a `VideoRecord` text message per frame sent.
    case webrtc

    /// The mode a query string asks for (`video=webrtc`, with or without the leading `?`, other
    /// keys ignored); JPEG when it names none or an unknown one.
    public init(query: String) {
        let pairs = query.drop(while: { $0 == "?" }).split(separator: "&")
        let value = pairs.lazy.compactMap { pair -> Substring? in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return parts.count == 2 && parts[0] == "video" ? parts[1] : nil
        }.first
        self = value.flatMap { BrowserVideo(rawValue: String($0)) } ?? .jpeg
    }
}
