import ARBridge
import ARGst
import CGStreamer

/// A code tapped in a camera's video: `aroverlay`'s `arbarcode-tapped` message, which a click
/// (from the browser page, or a video sink) makes it post.
public struct CodeTap: Sendable, Equatable, CustomStringConvertible {
    /// The tapped code's track id.
    public var trackID: UInt64
    /// Its payload, as text.
    public var payload: String
    /// Where the tap fell, frame pixels.
    public var x: Double
    public var y: Double
    /// Whether the code is expanded now (a tap toggles it).
    public var expanded: Bool

    public init(trackID: UInt64, payload: String, x: Double, y: Double, expanded: Bool) {
        self.trackID = trackID
        self.payload = payload
        self.x = x
        self.y = y
        self.expanded = expanded
    }

    /// Reads an `arbarcode-tapped` element message; nil for any other message.
    init?(_ msg: UnsafeMutablePointer<GstMessage>) {
        guard msg.pointee.type == GST_MESSAGE_ELEMENT, let s = gst_message_get_structure(msg),
              String(cString: gst_structure_get_name(s)) == "arbarcode-tapped" else { return nil }
        let view = StructureView(s)
        self.init(trackID: view.uint64("track-id") ?? 0, payload: view.string("data") ?? "", x: view.double("x") ?? 0,
                  y: view.double("y") ?? 0, expanded: view.bool("expanded") ?? false)
    }

    /// `code 3 "HELLO" tapped at (120, 80): expanded`.
    public var description: String {
        "code \(trackID) \"\(payload)\" tapped at (\(Int(x.rounded())), \(Int(y.rounded()))): \(expanded ? "expanded" : "collapsed")"
    }
}
