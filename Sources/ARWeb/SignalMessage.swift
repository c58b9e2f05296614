import Foundation

/// A WebRTC signalling message on a camera's WebSocket, one JSON text message each, either way:
///
///     {"offer":"v=0\r\n…"}                                  arserve → page: its session description
///     {"answer":"v=0\r\n…"}                                 page → arserve: the browser's answer
///     {"candidate":"candidate:1 1 UDP …","sdpMLineIndex":0}  either way: an ICE candidate
///
/// arserve always offers (one send-only video track, H.264 or VP8: `WebRTCCodec`) and the page answers.
public enum SignalMessage: Equatable, Sendable {
    /// arserve's offer, SDP text.
    case offer(sdp: String)
    /// The browser's answer, SDP text.
    case answer(sdp: String)
    /// An ICE candidate line (`candidate:…`) for media line `mLineIndex` (0: the video).
    case candidate(String, mLineIndex: Int)

    /// Reads a message; nil when `json` is not one (a click, or anything else).
    public init?(json: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
        if let sdp = object["offer"] as? String {
            self = .offer(sdp: sdp)
        } else if let sdp = object["answer"] as? String {
            self = .answer(sdp: sdp)
        } else if let candidate = object["candidate"] as? String, let index = object["sdpMLineIndex"] as? Int, index >= 0 {
            self = .candidate(candidate, mLineIndex: index)
        } else {
            return nil
        }
    }

    /// Whether an ICE candidate line names its address by an mDNS name (`….local`), as browsers
    /// do for host candidates, rather than an IP address. The address is the line's fifth field:
    /// `candidate:FOUNDATION COMPONENT PROTOCOL PRIORITY ADDRESS PORT typ …`.
    public static func isMDNSCandidate(_ line: String) -> Bool {
        let fields = line.split(separator: " ")
        return fields.count > 4 && fields[4].lowercased().hasSuffix(".local")
    }

    /// The message's JSON text.
    public var json: String {
        let object: [String: Any]
        switch self {
        case .offer(let sdp): object = ["offer": sdp]
        case .answer(let sdp): object = ["answer": sdp]
        case .candidate(let candidate, let index): object = ["candidate": candidate, "sdpMLineIndex": index]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
