import ARBridge
import CGStreamer
import Foundation

/// Runs a gst-launch description in this process until it ends.
public enum PipelineRunner {
    /// Runs `description` to end of stream. Returns nil on success, else the first error message
    /// (parse errors included). `guardSeconds` only guards against a hang.
    public static func run(_ description: String, guardSeconds: Double = 60) -> String? {
        _ = PipelineServer.initialize
        var error: UnsafeMutablePointer<GError>?
        let pipeline = gst_parse_launch_full(description, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        if let error {
            defer { g_error_free(error) }
            if let pipeline { gst_object_unref(UnsafeMutableRawPointer(pipeline)) }
            return "parse error: " + String(cString: error.pointee.message)
        }
        guard let pipeline else { return "parse error" }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        let bus = gst_element_get_bus(pipeline)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        let types = GstMessageType(rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue)
        guard let msg = gst_bus_timed_pop_filtered(bus, GstClockTime(guardSeconds * 1e9), types) else {
            return "no end of stream within \(guardSeconds) s"
        }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self)) }
        guard msg.pointee.type == GST_MESSAGE_ERROR else { return nil }
        return errorText(msg)
    }

    static func errorText(_ msg: UnsafeMutablePointer<GstMessage>) -> String {
        var err: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        gst_message_parse_error(msg, &err, &debug)
        defer { g_error_free(err); g_free(debug) }
        return String(cString: err!.pointee.message)
    }
}
