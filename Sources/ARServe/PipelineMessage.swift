import ARBridge
import CGStreamer

/// An error or warning a served pipeline posted on its bus: which element, why, and GStreamer's
/// debug details (source file, function, element path and the specific reason).
public struct PipelineMessage: Sendable, Equatable, CustomStringConvertible {
    /// Error or warning.
    public enum Severity: String, Sendable { case error, warning }

    /// Error (the pipeline stops) or warning (it goes on).
    public var severity: Severity
    /// The element's name: the one the pipeline file gave it (`name=`), or GStreamer's
    /// (`filesrc1`).
    public var element: String
    /// The element's factory, e.g. `filesrc`; nil when the message came from a bin or the pipeline.
    public var factory: String?
    /// GStreamer's message, e.g. `Resource not found.`.
    public var message: String
    /// GStreamer's debug details on one line, e.g. `gstfilesrc.c(557): gst_file_src_start ():
    /// /GstPipeline:media-pipeline/GstBin:bin1/GstFileSrc:filesrc1: No such file "clip.mp4"`.
    public var debug: String?

    /// A message as a test or another bus reader builds it; see the properties.
    public init(severity: Severity, element: String, factory: String?, message: String, debug: String?) {
        self.severity = severity
        self.element = element
        self.factory = factory
        self.message = message
        self.debug = debug
    }

    /// Reads an ERROR or WARNING message; nil for any other type.
    init?(_ msg: UnsafeMutablePointer<GstMessage>) {
        var err: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        switch msg.pointee.type {
        case GST_MESSAGE_ERROR: severity = .error; gst_message_parse_error(msg, &err, &debug)
        case GST_MESSAGE_WARNING: severity = .warning; gst_message_parse_warning(msg, &err, &debug)
        default: return nil
        }
        defer { g_error_free(err); g_free(debug) }
        message = err.map { String(cString: $0.pointee.message) } ?? "(no message)"
        self.debug = debug.map { String(cString: $0).split(whereSeparator: \.isNewline).joined(separator: " ") }
        let source = msg.pointee.src
        element = source.flatMap { $0.pointee.name }.map { String(cString: $0) } ?? "the pipeline"
        if let source, g_type_check_instance_is_a(UnsafeMutableRawPointer(source).assumingMemoryBound(to: GTypeInstance.self),
                                                    gst_element_get_type()) != 0,
           let f = gst_element_get_factory(UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstElement.self)),
           let name = gst_object_get_name(UnsafeMutableRawPointer(f).assumingMemoryBound(to: GstObject.self)) {
            factory = String(cString: name)
            g_free(name)
        } else {
            factory = nil
        }
    }

    /// `pipeline error from filesrc: Resource not found. (details: …)`; an element the file named
    /// is shown with its name, `v4l2src "camera"`.
    public var description: String {
        let who: String
        if let factory {
            // GStreamer's own names (factory and a counter) change with every retry: show the factory.
            let counter = element.dropFirst(factory.count)
            who = element.hasPrefix(factory) && !counter.isEmpty && counter.allSatisfy(\.isNumber) ? factory : "\(factory) \"\(element)\""
        } else {
            who = "\"\(element)\""
        }
        return "pipeline \(severity.rawValue) from \(who): \(message)" + (debug.map { " (details: \($0))" } ?? "")
    }
}
