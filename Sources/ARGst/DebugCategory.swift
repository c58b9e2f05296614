import CGStreamer

/// A GST_DEBUG category (e.g. `GST_DEBUG=arbarcodedetect:5`). Create one per element, once.
public final class DebugCategory: @unchecked Sendable {  // Immutable; GStreamer's logging is thread-safe.
    /// Severity levels, as GStreamer's.
    public enum Level: UInt32 {
        case error = 1, warning = 2, fixme = 3, info = 4, debug = 5, log = 6, trace = 7
    }

    let category: UnsafeMutablePointer<GstDebugCategory>

    /// Registers the category `name` with a one-line `description` shown by `gst-launch-1.0
    /// --gst-debug-help`; a category of that name registered before is shared (description and all).
    public init(_ name: String, description: String) {
        category = _gst_debug_category_new(name, 0, description)
    }

    /// Whether messages at `level` are wanted; check it before building expensive messages.
    @inline(__always)
    public func enabled(_ level: Level) -> Bool {
        gst_debug_category_get_threshold(category).rawValue >= level.rawValue
    }

    /// Logs `message()` at `level` for `object` (an element), if that level is enabled.
    public func log(_ level: Level, _ object: UnsafeMutableRawPointer? = nil, _ message: @autoclosure () -> String,
                    file: StaticString = #fileID, function: StaticString = #function, line: Int = #line) {
        guard enabled(level) else { return }
        let text = message()
        file.withUTF8Buffer { f in
            function.withUTF8Buffer { fn in
                // StaticString storage is NUL-terminated.
                gst_debug_log_literal(category, GstDebugLevel(level.rawValue),
                                      UnsafeRawPointer(f.baseAddress!).assumingMemoryBound(to: CChar.self),
                                      UnsafeRawPointer(fn.baseAddress!).assumingMemoryBound(to: CChar.self),
                                      Int32(line), object?.assumingMemoryBound(to: GObject.self), text)
            }
        }
    }
}
