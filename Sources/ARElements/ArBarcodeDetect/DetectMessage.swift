import ARCore
import ARDetect
import ARGst
import CGStreamer
import Foundation

/// The element message `arbarcodedetect message=true` posts for a frame with codes.
///
/// Named `barcode` like the stock `zbar` element's, with its fields for the first code —
/// `timestamp`, `stream-time`, `running-time`, `duration` (when known; nanoseconds), `type`,
/// `symbol`, `quality` — so its consumers can switch, plus:
/// - `quad` (8 doubles: x0,y0 … x3,y3, pixels, clockwise from the code's own top-left),
///   `orientation` (degrees, angle of the code's top edge), `payload` (GBytes, exact bytes) and,
///   when the bytes are not valid UTF-8, `symbol-base64` (the exact bytes; `symbol` is then their
///   reading as Shift JIS or ISO 8859-1, see `PayloadText`);
/// - `count` and `symbols`: every code of the frame as a list of `barcode` structures with the
///   per-code fields above.
enum DetectMessage {
    static func structure(_ detections: [Detection], buffer: Buffer, segment: inout GstSegment) -> OwnedStructure {
        let s = OwnedStructure(name: "barcode")
        if let pts = buffer.ptsNanoseconds {
            s.set("timestamp", uint64: pts)
            s.set("stream-time", uint64: UInt64(gst_segment_to_stream_time(&segment, timeFormat, guint64(pts))))
            s.set("running-time", uint64: UInt64(gst_segment_to_running_time(&segment, timeFormat, guint64(pts))))
        }
        if let duration = buffer.durationNanoseconds { s.set("duration", uint64: duration) }
        if let first = detections.first { describe(first, into: s) }
        s.set("count", int: Int32(clamping: detections.count))
        s.set("symbols", structures: detections.map { d in
            let e = OwnedStructure(name: "barcode")
            describe(d, into: e)
            return e
        })
        return s
    }

    private static func describe(_ d: Detection, into s: OwnedStructure) {
        s.set("type", string: d.symbology)
        s.set("symbol", string: d.text)
        s.set("quality", int: Int32(clamping: d.quality))
        s.set("quad", doubles: d.quad.corners.flatMap { [$0.x, $0.y] })
        s.set("orientation", double: d.quad.rotationDegrees)
        s.set("payload", bytes: d.payload)
        if String(validatingUTF8Bytes: d.payload) == nil {
            s.set("symbol-base64", string: Data(d.payload).base64EncodedString())
        }
    }
}

/// GST_FORMAT_TIME (its enum case does not import into Swift).
let timeFormat = GstFormat(rawValue: 3)
