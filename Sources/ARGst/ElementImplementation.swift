/// What every Swift element has, whatever its GStreamer base class: its description, its property
/// table over a `Settings` struct, its signals, and its start/stop/caps lifecycle.
///
/// Property values live in `Settings`, guarded by the store the element is given; runtime state
/// belongs to the element object and is reset in `start`/`stop` and on flush.
public protocol ElementImplementation: AnyObject {
    /// Property values: a plain struct whose `init()` holds the defaults.
    associatedtype Settings

    /// Names, class, description and pad caps.
    static var metadata: ElementMetadata { get }
    /// The property table: each property declared once.
    static var properties: [Property<Settings>] { get }
    /// Signals, emitted with `ElementHandle.emitSignal(index, …)` by their position here.
    static var signals: [SignalSpec] { get }
    /// Default property values.
    static var defaultSettings: Settings { get }

    init(element: ElementHandle, settings: SettingsStore<Settings>)

    /// Prepare to stream (READY→PAUSED); throw to fail the state change with a clear error.
    func start() throws
    /// Stop streaming and drop runtime state (PAUSED→READY).
    func stop()
    /// The format was (re)negotiated: filters' input, sources' output.
    func setInfo(_ info: VideoInfo) throws
    /// A property changed (called on the setter's thread, after the store was updated).
    func propertyChanged(_ name: String)
}

extension ElementImplementation {
    public static var signals: [SignalSpec] { [] }
    public func start() throws {}
    public func stop() {}
    public func setInfo(_ info: VideoInfo) throws {}
    public func propertyChanged(_ name: String) {}
}
