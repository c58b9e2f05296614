import ARCore
import Foundation

/// One video frame as a camera's WebSocket sends it to the page, in one binary message: a
/// 4-byte big-endian length, that many bytes of UTF-8 JSON, then the JPEG picture:
///
///     {"record":{"frame":41,"pts":1366666666,"width":640,"height":360,"objects":[…]},"receivedMs":1763912345678.1}
///
/// `record` is the frame's codes in the arexport schema (`FrameRecord`); `receivedMs` is when
/// the frame reached arserve, wall-clock milliseconds since 1970, from which the page works out
/// how late it shows it (both on one machine, or clocks kept in step).
public struct BrowserFrame: Equatable, Sendable {
    /// The frame's codes, quads in frame pixels.
    public var record: FrameRecord
    /// When the frame reached the server, wall-clock milliseconds since 1970.
    public var receivedMilliseconds: Double
    /// The picture, a JPEG file's bytes.
    public var jpeg: [UInt8]

    public init(record: FrameRecord, receivedMilliseconds: Double, jpeg: [UInt8]) {
        self.record = record
        self.receivedMilliseconds = receivedMilliseconds
        self.jpeg = jpeg
    }

    /// The JSON part.
    public var header: String {
        "{\"record\":\(record.jsonLine()),\"receivedMs\":\(String(format: "%.1f", receivedMilliseconds))}"
    }

    /// The whole message.
    public func encoded() -> [UInt8] {
        let json = Array(header.utf8)
        let n = UInt32(json.count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)] + json + jpeg
    }

    /// Reads a message back; nil when it is not one.
    public init?(message bytes: [UInt8]) {
        guard bytes.count >= 4 else { return nil }
        let n = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard bytes.count >= 4 + n,
              let object = try? JSONSerialization.jsonObject(with: Data(bytes[4..<4 + n])) as? [String: Any],
              let recordObject = object["record"], let received = object["receivedMs"] as? Double,
              let recordData = try? JSONSerialization.data(withJSONObject: recordObject),
              let record = try? FrameRecord(jsonLine: String(decoding: recordData, as: UTF8.self)) else { return nil }
        self.init(record: record, receivedMilliseconds: received, jpeg: Array(bytes[(4 + n)...]))
    }
}
