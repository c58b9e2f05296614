import CGStreamer

/// A signal an element declares, e.g. `track-added` with one GstStructure parameter, or an action
/// signal the application emits (e.g. `set-overlay`) and the element handles in `action`.
public struct SignalSpec: Sendable {
    public enum ParamType: Sendable {
        case structure, pointer, uint64, string, int, double, bool
        /// A registered boxed type, e.g. cairo-gobject's `CairoContext` for a `cairo_t *`.
        case boxed(GType)
    }

    public var name: String
    public var params: [ParamType]
    /// Return type; nil for none.
    public var returns: ParamType?
    /// Emitted by the application, handled by the element.
    public var isAction: Bool

    public init(_ name: String, params: [ParamType], returns: ParamType? = nil, isAction: Bool = false) {
        self.name = name
        self.params = params
        self.returns = returns
        self.isAction = isAction
    }
}

/// A video filter implemented in Swift (a GstVideoFilter subclass made by the bridge): in place
/// while both pads carry the same format; when `transformCaps` offers another output format and
/// downstream picks it, each buffer is first converted (`convert`) into a new output buffer, which
/// `transform` then sees.
///
/// Lifecycle: `init` when the GstElement is created; `start` on READY→PAUSED; `fixate` and
/// `setInfo` on each caps negotiation; `transform` once per buffer on the streaming thread; `stop`
/// on PAUSED→READY.
public protocol VideoFilterElement: ElementImplementation {
    /// Process one frame; throw to stop the stream with an error.
    func transform(_ frame: VideoFrame) throws
    /// Fill `output` (a new buffer in the negotiated output format, carrying the input's
    /// timestamps and metas) from `input`, when the two formats differ; `transform` then runs on
    /// `output`. The default throws: filters that never change the format need not implement it.
    func convert(_ input: VideoFrame, into output: VideoFrame) throws
    /// Observe a sink event before it is forwarded; return false to drop it.
    func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool
    /// Observe an upstream event (seek, QoS, navigation) before it is forwarded; return false to drop it.
    func srcEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool
    /// Answer a query arriving on the sink (`GST_PAD_SINK`) or source pad; return true when answered.
    func query(_ query: UnsafeMutablePointer<GstQuery>, direction: GstPadDirection) -> Bool
    /// The caps on the other pad for `caps` on pad `direction` (transfer full), or nil for the
    /// same caps (the default). Overlay elements use it to offer overlay-composition meta downstream.
    func transformCaps(direction: GstPadDirection, caps: UnsafeMutablePointer<GstCaps>,
                       filter: UnsafeMutablePointer<GstCaps>?) -> UnsafeMutablePointer<GstCaps>?
    /// Fixates the output caps for the negotiated input (transfer full in and out): candidates in
    /// downstream's order of preference. Default: `gst_caps_fixate` (the first).
    func fixate(_ caps: UnsafeMutablePointer<GstCaps>) -> UnsafeMutablePointer<GstCaps>
    /// The application emitted action signal number `index`; `params` follow the instance.
    /// Write the return value into `result` when the signal returns one.
    func action(_ index: Int, params: UnsafeBufferPointer<GValue>, result: UnsafeMutablePointer<GValue>?)
}

extension VideoFilterElement {
    public func convert(_ input: VideoFrame, into output: VideoFrame) throws {
        throw ElementError.format("\(Self.metadata.factoryName) cannot convert \(VideoInfo(input.info).formatName) "
                                  + "to \(VideoInfo(output.info).formatName)")
    }
    public func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool { true }
    public func srcEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool { true }
    public func query(_ query: UnsafeMutablePointer<GstQuery>, direction: GstPadDirection) -> Bool { false }
    public func transformCaps(direction: GstPadDirection, caps: UnsafeMutablePointer<GstCaps>,
                              filter: UnsafeMutablePointer<GstCaps>?) -> UnsafeMutablePointer<GstCaps>? { nil }
    public func fixate(_ caps: UnsafeMutablePointer<GstCaps>) -> UnsafeMutablePointer<GstCaps> { gst_caps_fixate(caps) }
    public func action(_ index: Int, params: UnsafeBufferPointer<GValue>, result: UnsafeMutablePointer<GValue>?) {}
}

extension UnsafeMutablePointer where Pointee == GstEvent {
    /// The event type's name, e.g. `flush-stop`, `eos`, `segment`.
    public var typeName: String { String(cString: gst_event_type_get_name(pointee.type)) }

    /// Whether this is FLUSH_STOP (end of a flushing seek): runtime state should be reset.
    public var isFlushStop: Bool { typeName == "flush-stop" }

    /// A custom downstream event's structure name; nil for other events.
    public var customDownstreamName: String? {
        guard pointee.type == GST_EVENT_CUSTOM_DOWNSTREAM, let s = gst_event_get_structure(self) else { return nil }
        return String(cString: gst_structure_get_name(s))
    }

    /// A string field of the event's structure.
    public func string(_ field: String) -> String? {
        guard let s = gst_event_get_structure(self), let v = gst_structure_get_string(s, field) else { return nil }
        return String(cString: v)
    }
}

extension ElementHandle {
    /// Pushes a custom serialized downstream event with structure `s` out of the `src` pad (call
    /// from the streaming thread, so it keeps its place between buffers). False when no peer took it.
    @discardableResult
    public func pushDownstream(_ s: OwnedStructure) -> Bool {
        guard let pad = gst_element_get_static_pad(pointer, "src") else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        return gst_pad_push_event(pad, gst_event_new_custom(GST_EVENT_CUSTOM_DOWNSTREAM, s.release())) != 0
    }
}
