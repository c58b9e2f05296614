import CGStreamer

/// A signal an element declares, e.g. `track-added` with one GstStructure parameter, or an action
/// signal the application emits (e.g. `set-overlay`) and the element handles in `action`.
public struct SignalSpec {
    public enum ParamType {
        case structure, pointer, uint64, string, int, double, bool
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

/// An in-place video filter implemented in Swift (a GstVideoFilter subclass made by the bridge).
///
/// Lifecycle: `init` when the GstElement is created; `start` on READY→PAUSED; `setInfo` on each
/// caps negotiation; `transform` once per buffer on the streaming thread; `stop` on PAUSED→READY.
/// Property values live in `Settings`, guarded by the store the element is given; runtime state
/// belongs to the element object and is reset in `start`/`stop` and on flush.
public protocol VideoFilterElement: AnyObject {
    /// Property values: a plain struct whose `init()` holds the defaults.
    associatedtype Settings

    static var metadata: ElementMetadata { get }
    /// The property table: each property declared once.
    static var properties: [Property<Settings>] { get }
    /// Signals, emitted with `ElementHandle.emitSignal(index, …)` by their position here.
    static var signals: [SignalSpec] { get }
    /// Default property values.
    static var defaultSettings: Settings { get }

    init(element: ElementHandle, settings: SettingsStore<Settings>)

    /// Prepare to stream; throw to fail the state change with a clear error.
    func start() throws
    /// Stop streaming and drop runtime state.
    func stop()
    /// The input format was (re)negotiated.
    func setInfo(_ info: VideoInfo) throws
    /// Process one frame; throw to stop the stream with an error.
    func transform(_ frame: VideoFrame) throws
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
    /// The application emitted action signal number `index`; `params` follow the instance.
    /// Write the return value into `result` when the signal returns one.
    func action(_ index: Int, params: UnsafeBufferPointer<GValue>, result: UnsafeMutablePointer<GValue>?)
    /// A property changed (called on the setter's thread, after the store was updated).
    func propertyChanged(_ name: String)
}

extension VideoFilterElement {
    public static var signals: [SignalSpec] { [] }
    public func start() throws {}
    public func stop() {}
    public func setInfo(_ info: VideoInfo) throws {}
    public func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool { true }
    public func srcEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool { true }
    public func query(_ query: UnsafeMutablePointer<GstQuery>, direction: GstPadDirection) -> Bool { false }
    public func transformCaps(direction: GstPadDirection, caps: UnsafeMutablePointer<GstCaps>,
                              filter: UnsafeMutablePointer<GstCaps>?) -> UnsafeMutablePointer<GstCaps>? { nil }
    public func action(_ index: Int, params: UnsafeBufferPointer<GValue>, result: UnsafeMutablePointer<GValue>?) {}
    public func propertyChanged(_ name: String) {}
}

extension UnsafeMutablePointer where Pointee == GstEvent {
    /// The event type's name, e.g. `flush-stop`, `eos`, `segment`.
    public var typeName: String { String(cString: gst_event_type_get_name(pointee.type)) }

    /// Whether this is FLUSH_STOP (end of a flushing seek): runtime state should be reset.
    public var isFlushStop: Bool { typeName == "flush-stop" }
}
