import ARCore
import Foundation

/// A frame's codes as the WebSocket sends them beside WebRTC video, one JSON text message each,
/// sent as the frame leaves for the browser:
///
///     {"record":{"frame":41,…},"receivedMs":1763912345678.1,"rtp":3000}
///
/// `rtp` is the RTP timestamp (90 kHz) the frame's packets carry, which the page reads back from
/// the video frame it shows (`requestVideoFrameCallback`'s `rtpTimestamp`) to list the codes of
/// that very frame and to tell how late it shows it. `receivedMs` is as in `BrowserFrame`.
public struct VideoRecord: Equatable, Sendable {
    /// The frame's codes, quads in frame pixels.
    public var record: FrameRecord
    /// When the frame reached the server, wall-clock milliseconds since 1970.
    public var receivedMilliseconds: Double
    /// The RTP timestamp of the frame's packets, 90 kHz units.
    public var rtpTimestamp: UInt32

    public init(record: FrameRecord, receivedMilliseconds: Double, rtpTimestamp: UInt32) {
        self.record = record
        self.receivedMilliseconds = receivedMilliseconds
        self.rtpTimestamp = rtpTimestamp
    }

    /// The message's JSON text.
    public var json: String {
        "{\"record\":\(record.jsonLine()),\"receivedMs\":\(String(format: "%.1f", receivedMilliseconds)),\"rtp\":\(rtpTimestamp)}"
    }

    /// Reads a message back; nil when it is not one.
    public init?(json: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
              let recordObject = object["record"], let received = object["receivedMs"] as? Double,
              let rtpValue = object["rtp"] as? Int, let rtp = UInt32(exactly: rtpValue),
              let recordData = try? JSONSerialization.data(withJSONObject: recordObject),
              let record = try? FrameRecord(jsonLine: String(decoding: recordData, as: UTF8.self)) else { return nil }
        self.init(record: record, receivedMilliseconds: received, rtpTimestamp: rtp)
    }
}
