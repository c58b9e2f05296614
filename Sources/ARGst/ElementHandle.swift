import ARBridge
import CGStreamer

/// The GstElement a Swift element implements. Unretained: the element owns its Swift object,
/// so the handle is valid for the object's whole life.
public struct ElementHandle: @unchecked Sendable {  // A GObject pointer: GStreamer elements are used from several threads by design.
    public let pointer: UnsafeMutablePointer<GstElement>

    public init(_ pointer: UnsafeMutablePointer<GstElement>) {
        self.pointer = pointer
    }

    /// The element as an untyped pointer, for logging.
    public var object: UnsafeMutableRawPointer { UnsafeMutableRawPointer(pointer) }

    /// The element's name in its pipeline, e.g. `arbarcodedetect0`.
    public var name: String {
        guard let n = pointer.withMemoryRebound(to: GstObject.self, capacity: 1, { gst_object_get_name($0) }) else { return "" }
        defer { g_free(n) }
        return String(cString: n)
    }

    /// Posts `error` as an ERROR message on the bus (the application stops the pipeline).
    public func post(_ error: ElementError, file: StaticString = #fileID, function: StaticString = #function, line: Int = #line) {
        post(error, type: GST_MESSAGE_ERROR, file: file, function: function, line: line)
    }

    /// Posts `error` as a WARNING message on the bus (processing continues).
    public func postWarning(_ error: ElementError, file: StaticString = #fileID, function: StaticString = #function, line: Int = #line) {
        post(error, type: GST_MESSAGE_WARNING, file: file, function: function, line: line)
    }

    private func post(_ error: ElementError, type: GstMessageType, file: StaticString, function: StaticString, line: Int) {
        "\(file)".withCString { f in
            "\(function)".withCString { fn in
                // The message takes the two strings (g_strdup'ed) and copies file and function.
                gst_element_message_full(pointer, type, error.quark, error.code, g_strdup(error.message),
                                         error.debug.isEmpty ? nil : g_strdup(error.debug), f, fn, Int32(line))
            }
        }
    }

    /// Posts an ELEMENT message carrying `structure` (ownership passes to the message).
    public func postElementMessage(_ structure: OwnedStructure) {
        let object = UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstObject.self)
        let message = gst_message_new_element(object, structure.release())
        _ = gst_element_post_message(pointer, message)
    }

    /// Emits the element's signal number `index` (its place in the element's signal table) with
    /// `params` (GValues initialised to the declared types; still owned by the caller).
    public func emitSignal(_ index: Int, _ params: inout [GValue]) {
        let count = UInt32(params.count)
        params.withUnsafeBufferPointer { ar_element_emit_signal(pointer, UInt32(index), $0.baseAddress, count, nil) }
    }
}
