import CGStreamer

/// An error an element reports on the bus (like `GST_ELEMENT_ERROR`): the pipeline stops with
/// `message` shown to the user and `debug` for developers.
public struct ElementError: Error, CustomStringConvertible {
    /// GStreamer's error domains.
    public enum Domain: Sendable {
        case core, library, resource, stream
    }

    public var domain: Domain
    /// The code within the domain, e.g. `GST_RESOURCE_ERROR_OPEN_WRITE.rawValue`.
    public var code: Int32
    /// What went wrong, in words a user understands; names the property, file or input at fault.
    public var message: String
    /// Details for developers (may be empty).
    public var debug: String

    public init(_ domain: Domain, code: Int32, _ message: String, debug: String = "") {
        self.domain = domain
        self.code = code
        self.message = message
        self.debug = debug
    }

    public var description: String { debug.isEmpty ? message : "\(message) (\(debug))" }

    /// A property holds a value the element cannot use.
    public static func settings(_ message: String, debug: String = "") -> ElementError {
        ElementError(.library, code: Int32(GST_LIBRARY_ERROR_SETTINGS.rawValue), message, debug: debug)
    }

    /// A file or socket could not be opened for writing.
    public static func openWrite(_ message: String, debug: String = "") -> ElementError {
        ElementError(.resource, code: Int32(GST_RESOURCE_ERROR_OPEN_WRITE.rawValue), message, debug: debug)
    }

    /// A file could not be opened for reading.
    public static func openRead(_ message: String, debug: String = "") -> ElementError {
        ElementError(.resource, code: Int32(GST_RESOURCE_ERROR_OPEN_READ.rawValue), message, debug: debug)
    }

    /// Writing to a file or socket failed.
    public static func write(_ message: String, debug: String = "") -> ElementError {
        ElementError(.resource, code: Int32(GST_RESOURCE_ERROR_WRITE.rawValue), message, debug: debug)
    }

    /// The stream has a format the element cannot handle.
    public static func format(_ message: String, debug: String = "") -> ElementError {
        ElementError(.stream, code: Int32(GST_STREAM_ERROR_FORMAT.rawValue), message, debug: debug)
    }

    /// A library the element uses failed.
    public static func library(_ message: String, debug: String = "") -> ElementError {
        ElementError(.library, code: Int32(GST_LIBRARY_ERROR_FAILED.rawValue), message, debug: debug)
    }

    /// Caps `element` (its name in the pipeline) never takes: `caps` offered by upstream, `accepted`
    /// its sink pad template (both caps strings). GStreamer itself only reports "not-negotiated".
    public static func refusedCaps(element: String, caps: String, accepted: String) -> ElementError {
        ElementError(.core, code: Int32(GST_CORE_ERROR_NEGOTIATION.rawValue), "\(element) cannot handle this video format: \(caps)",
                     debug: "accepted caps: \(accepted)")
    }

    var quark: GQuark {
        switch domain {
        case .core: return gst_core_error_quark()
        case .library: return gst_library_error_quark()
        case .resource: return gst_resource_error_quark()
        case .stream: return gst_stream_error_quark()
        }
    }
}
