import ARBridge
import CGStreamer
import Foundation

/// Type-erased per-instance object the bridge holds as `impl`.
class AnyElementBox {
    func getProperty(_ index: Int, _ value: UnsafeMutablePointer<GValue>) {}
    func setProperty(_ index: Int, _ value: UnsafePointer<GValue>) {}
    func start() -> Bool { true }
    func stop() -> Bool { true }
    func setInfo(_ info: UnsafePointer<GstVideoInfo>) -> Bool { true }
    func transform(_ buffer: UnsafeMutablePointer<GstBuffer>, _ frame: UnsafeMutablePointer<GstVideoFrame>) -> GstFlowReturn { GST_FLOW_OK }
    func convert(_ input: UnsafeMutablePointer<GstVideoFrame>, _ output: UnsafeMutablePointer<GstVideoFrame>) -> GstFlowReturn { GST_FLOW_NOT_NEGOTIATED }
    func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool { true }
    func srcEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool { true }
    func query(_ query: UnsafeMutablePointer<GstQuery>, _ direction: GstPadDirection) -> Bool { false }
    func transformCaps(_ direction: GstPadDirection, _ caps: UnsafeMutablePointer<GstCaps>,
                       _ filter: UnsafeMutablePointer<GstCaps>?) -> UnsafeMutablePointer<GstCaps>? { nil }
    func fixate(_ caps: UnsafeMutablePointer<GstCaps>) -> UnsafeMutablePointer<GstCaps> { gst_caps_fixate(caps) }
    func action(_ index: Int, _ params: UnsafeBufferPointer<GValue>, _ result: UnsafeMutablePointer<GValue>?) {}
    func refusedCaps(_ caps: UnsafeMutablePointer<GstCaps>, accepted: UnsafeMutablePointer<GstCaps>) {}
}

/// Shared by the filter and source boxes: the element, its handle and settings, property routing
/// and the start/stop/caps lifecycle.
class ElementBoxBase<E: ElementImplementation>: AnyElementBox {
    let handle: ElementHandle
    let settings: SettingsStore<E.Settings>
    let properties: [Property<E.Settings>]
    var element: E!

    init(_ pointer: UnsafeMutablePointer<GstElement>, properties: [Property<E.Settings>]) {
        handle = ElementHandle(pointer)
        settings = SettingsStore(E.defaultSettings)
        self.properties = properties
        super.init()
        element = E(element: handle, settings: settings)
    }

    override func getProperty(_ index: Int, _ value: UnsafeMutablePointer<GValue>) {
        let p = properties[index]
        p.write(p.get(settings.snapshot), to: value)
    }

    override func setProperty(_ index: Int, _ value: UnsafePointer<GValue>) {
        let p = properties[index]
        if !p.mutableInPlaying && handle.pointer.pointee.current_state.rawValue > GST_STATE_READY.rawValue {
            handle.postWarning(.settings("Property '\(p.name)' of \(handle.name) can only be changed in the NULL or READY state; the new value was ignored"))
            return
        }
        let v = p.read(value)
        settings.update { p.set(&$0, v) }
        element.propertyChanged(p.name)
    }

    override func refusedCaps(_ caps: UnsafeMutablePointer<GstCaps>, accepted: UnsafeMutablePointer<GstCaps>) {
        handle.postWarning(.refusedCaps(element: handle.name, caps: capsString(caps), accepted: capsString(accepted)))
    }

    override func start() -> Bool { run { try element.start() } }
    override func stop() -> Bool { element.stop(); return true }
    override func setInfo(_ info: UnsafePointer<GstVideoInfo>) -> Bool { run { try element.setInfo(VideoInfo(info)) } }

    /// Runs `body`, posting a thrown error on the bus; false when it threw.
    func run(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return true
        } catch let error as ElementError {
            handle.post(error)
        } catch {
            handle.post(.library("\(E.metadata.factoryName): \(error)"))
        }
        return false
    }
}

final class ElementBox<E: VideoFilterElement>: ElementBoxBase<E> {
    override func transform(_ buffer: UnsafeMutablePointer<GstBuffer>, _ frame: UnsafeMutablePointer<GstVideoFrame>) -> GstFlowReturn {
        run { try element.transform(VideoFrame(frame, buffer: buffer)) } ? GST_FLOW_OK : GST_FLOW_ERROR
    }

    override func fixate(_ caps: UnsafeMutablePointer<GstCaps>) -> UnsafeMutablePointer<GstCaps> { element.fixate(caps) }

    override func convert(_ input: UnsafeMutablePointer<GstVideoFrame>, _ output: UnsafeMutablePointer<GstVideoFrame>) -> GstFlowReturn {
        run {
            try element.convert(VideoFrame(input, buffer: input.pointee.buffer), into: VideoFrame(output, buffer: output.pointee.buffer))
        } ? GST_FLOW_OK : GST_FLOW_ERROR
    }

    override func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool { element.sinkEvent(event) }
    override func srcEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool { element.srcEvent(event) }
    override func query(_ query: UnsafeMutablePointer<GstQuery>, _ direction: GstPadDirection) -> Bool {
        element.query(query, direction: direction)
    }
    override func transformCaps(_ direction: GstPadDirection, _ caps: UnsafeMutablePointer<GstCaps>,
                                _ filter: UnsafeMutablePointer<GstCaps>?) -> UnsafeMutablePointer<GstCaps>? {
        element.transformCaps(direction: direction, caps: caps, filter: filter)
    }
    override func action(_ index: Int, _ params: UnsafeBufferPointer<GValue>, _ result: UnsafeMutablePointer<GValue>?) {
        element.action(index, params: params, result: result)
    }
}

final class SourceBox<E: VideoSourceElement>: ElementBoxBase<E> {
    /// The negotiated output format: set on the streaming thread, read by latency queries from any thread.
    private let info = SettingsStore<VideoInfo?>(nil)

    override func setInfo(_ info: UnsafePointer<GstVideoInfo>) -> Bool {
        self.info.update { $0 = VideoInfo(info) }
        return super.setInfo(info)
    }

    /// Latency: a live source is one frame late (one frame duration; a non-live one reports 0 live latency).
    override func query(_ query: UnsafeMutablePointer<GstQuery>, _ direction: GstPadDirection) -> Bool {
        guard query.pointee.type == GST_QUERY_LATENCY, let info = info.snapshot, info.fpsNumerator > 0 else { return false }
        let frame = gst_util_uint64_scale(1_000_000_000, guint64(info.fpsDenominator), guint64(info.fpsNumerator))
        let live = handle.pointer.withMemoryRebound(to: GstBaseSrc.self, capacity: 1) { gst_base_src_is_live($0) }
        gst_query_set_latency(query, live, frame, GstClockTime.max)
        return true
    }

    override func fixate(_ caps: UnsafeMutablePointer<GstCaps>) -> UnsafeMutablePointer<GstCaps> { element.fixate(caps) }

    override func transform(_ buffer: UnsafeMutablePointer<GstBuffer>, _ frame: UnsafeMutablePointer<GstVideoFrame>) -> GstFlowReturn {
        var more = true
        guard run({ more = try element.fill(VideoFrame(frame, buffer: buffer)) }) else { return GST_FLOW_ERROR }
        return more ? GST_FLOW_OK : GST_FLOW_EOS
    }
}

/// Makes the per-instance boxes for one registered element type.
class AnyRegistration {
    func makeBox(_ element: UnsafeMutablePointer<GstElement>) -> AnyElementBox { fatalError("abstract") }
}

final class FilterRegistration<E: VideoFilterElement>: AnyRegistration {
    let properties = E.properties

    override func makeBox(_ element: UnsafeMutablePointer<GstElement>) -> AnyElementBox {
        ElementBox<E>(element, properties: properties)
    }
}

final class SourceRegistration<E: VideoSourceElement>: AnyRegistration {
    let properties = E.properties

    override func makeBox(_ element: UnsafeMutablePointer<GstElement>) -> AnyElementBox {
        SourceBox<E>(element, properties: properties)
    }
}

/// Leaks a C string: specs live as long as the process (GType classes are never unloaded).
private func permanent(_ s: String) -> UnsafePointer<CChar> { UnsafePointer(strdup(s)!) }

/// `caps` as GStreamer prints it, e.g. `video/x-raw, format=(string)GRAY16_LE, width=(int)64, …`.
private func capsString(_ caps: UnsafePointer<GstCaps>) -> String {
    let text = gst_caps_to_string(caps)!
    defer { g_free(text) }
    return String(cString: text)
}

private func permanent<T>(_ items: [T]) -> UnsafePointer<T>? {
    guard !items.isEmpty else { return nil }
    let p = UnsafeMutablePointer<T>.allocate(capacity: items.count)
    p.initialize(from: items, count: items.count)
    return UnsafePointer(p)
}

private func box(_ impl: UnsafeMutableRawPointer?) -> AnyElementBox {
    Unmanaged<AnyElementBox>.fromOpaque(impl!).takeUnretainedValue()
}

private let vtable = ArElementVTable(
    create: { classData, element in
        let registration = Unmanaged<AnyRegistration>.fromOpaque(classData!).takeUnretainedValue()
        return Unmanaged.passRetained(registration.makeBox(element!)).toOpaque()
    },
    destroy: { impl in Unmanaged<AnyElementBox>.fromOpaque(impl!).release() },
    get_property: { impl, index, value in box(impl).getProperty(Int(index), value!) },
    set_property: { impl, index, value in box(impl).setProperty(Int(index), value!) },
    start: { impl in box(impl).start() ? 1 : 0 },
    stop: { impl in box(impl).stop() ? 1 : 0 },
    set_info: { impl, _, info in box(impl).setInfo(info!) ? 1 : 0 },
    transform_frame: { impl, buffer, frame in box(impl).transform(buffer!, frame!) },
    sink_event: { impl, event in box(impl).sinkEvent(event!) ? 1 : 0 },
    src_event: { impl, event in box(impl).srcEvent(event!) ? 1 : 0 },
    query: { impl, direction, query in box(impl).query(query!, direction) ? 1 : 0 },
    transform_caps: { impl, direction, caps, filter in box(impl).transformCaps(direction, caps!, filter) },
    fixate: { impl, caps in box(impl).fixate(caps!) },
    action: { impl, index, params, count, result in
        box(impl).action(Int(index), UnsafeBufferPointer(start: params, count: Int(count)), result)
    },
    convert_frame: { impl, input, output in box(impl).convert(input!, output!) },
    refused_caps: { impl, caps, accepted in box(impl).refusedCaps(caps!, accepted: accepted!) }
)

/// GStreamer's "mutable in state" flags (C macros built from `G_PARAM_USER_SHIFT`).
private let mutableReady = Int32(1) << (Int32(G_PARAM_USER_SHIFT) + 2)
private let mutablePlaying = Int32(1) << (Int32(G_PARAM_USER_SHIFT) + 4)

/// The GParamSpec that installs `p`, with its default from `defaults`: floating, the bridge's
/// class_init installs and sinks it. Its strings are permanent (static-strings flags).
private func paramSpec<S>(_ p: Property<S>, defaults: S) -> UnsafeMutablePointer<GParamSpec> {
    let name = permanent(p.name), nick = permanent(p.nick), blurb = permanent(p.blurb)
    let flags = GParamFlags(rawValue: G_PARAM_READWRITE.rawValue | G_PARAM_STATIC_NAME.rawValue | G_PARAM_STATIC_NICK.rawValue
                                      | G_PARAM_STATIC_BLURB.rawValue | (p.mutableInPlaying ? mutablePlaying : mutableReady))
    let spec: UnsafeMutablePointer<GParamSpec>?
    switch (p.kind, p.get(defaults)) {
    case (.bool, .bool(let b)):
        spec = g_param_spec_boolean(name, nick, blurb, b ? 1 : 0, flags)
    case (.int(let lo, let hi), .int(let d)):
        spec = g_param_spec_int(name, nick, blurb, lo, hi, Int32(d), flags)
    case (.uint(let lo, let hi), .int(let d)):
        spec = g_param_spec_uint(name, nick, blurb, lo, hi, UInt32(d), flags)
    case (.int64(let lo, let hi), .int(let d)):
        spec = g_param_spec_int64(name, nick, blurb, Int(lo), Int(hi), Int(d), flags)
    case (.uint64(let lo, let hi), .int(let d)):
        spec = g_param_spec_uint64(name, nick, blurb, UInt(lo), UInt(hi), UInt(d), flags)
    case (.double(let lo, let hi), .double(let d)):
        spec = g_param_spec_double(name, nick, blurb, lo, hi, d, flags)
    case (.string, .string(let d)):
        spec = g_param_spec_string(name, nick, blurb, d.map(permanent), flags)
    case (.enumeration(let typeName, let cases), .enumeration(let d)):
        spec = g_param_spec_enum(name, nick, blurb, enumType(typeName, cases), d, flags)
    default:
        preconditionFailure("property \(p.name): default value does not match its kind")
    }
    guard let spec else { preconditionFailure("property \(p.name): GLib refused its range or default") }
    return spec
}

/// The GEnum named `typeName`, registered on first use with `cases` (GLib keeps the table for the process).
private func enumType(_ typeName: String, _ cases: [(value: Int32, name: String, nick: String)]) -> GType {
    let existing = g_type_from_name(typeName)
    if existing != 0 { return existing }
    let values = cases.map { GEnumValue(value: $0.value, value_name: permanent($0.name), value_nick: permanent($0.nick)) }
    return g_enum_register_static(permanent(typeName), permanent(values + [GEnumValue()]))
}

private func gtype(_ t: SignalSpec.ParamType) -> GType {
    switch t {
    case .structure: return GTypes.structure
    case .pointer: return GTypes.pointer
    case .uint64: return GTypes.uint64
    case .string: return GTypes.string
    case .int: return GTypes.int
    case .double: return GTypes.double
    case .bool: return GTypes.boolean
    case .boxed(let type): return type
    }
}

/// Registers a Swift video filter with `plugin`: the one line each element adds to the plugin's list.
@discardableResult
public func registerElement<E: VideoFilterElement>(_ type: E.Type, plugin: OpaquePointer) -> Bool {
    register(E.self, base: AR_BASE_VIDEO_FILTER, registration: FilterRegistration<E>(), plugin: plugin)
}

/// Registers a Swift video source with `plugin`.
@discardableResult
public func registerElement<E: VideoSourceElement>(_ type: E.Type, plugin: OpaquePointer) -> Bool {
    register(E.self, base: AR_BASE_VIDEO_SOURCE, registration: SourceRegistration<E>(), plugin: plugin)
}

private func register<E: ElementImplementation>(_ type: E.Type, base: ArBaseKind, registration: AnyRegistration,
                                                plugin: OpaquePointer) -> Bool {
    let m = E.metadata, properties = E.properties, defaults = E.defaultSettings, signals = E.signals
    // The element's GST_DEBUG category (named after it), registered now so `--gst-debug-help` lists
    // it before the element is first used; the element's own `DebugCategory` gets the same one.
    _ = DebugCategory(m.factoryName, description: m.longName)
    var spec = ArElementSpec()
    spec.base = base
    spec.factory_name = permanent(m.factoryName)
    spec.type_name = permanent(m.typeName)
    spec.long_name = permanent(m.longName)
    spec.klass = permanent(m.klass)
    spec.description = permanent(m.description)
    spec.author = permanent(m.author)
    spec.rank = m.rank
    spec.sink_caps = permanent(m.sinkCaps)
    spec.src_caps = permanent(m.srcCaps)
    spec.writes_frame = m.writesFrame ? 1 : 0
    spec.properties = permanent(properties.map { Optional(paramSpec($0, defaults: defaults)) })
    spec.n_properties = UInt32(properties.count)
    spec.signals = permanent(signals.map { s in
        ArSignalSpec(name: permanent(s.name), return_type: s.returns.map(gtype) ?? ar_value_gtype(AR_VALUE_NONE),
                     n_params: UInt32(s.params.count), param_types: permanent(s.params.map(gtype)), is_action: s.isAction ? 1 : 0)
    })
    spec.n_signals = UInt32(signals.count)
    spec.vtable = vtable
    spec.class_data = Unmanaged.passRetained(registration).toOpaque()
    let stored = UnsafeMutablePointer<ArElementSpec>.allocate(capacity: 1)
    stored.initialize(to: spec)
    return ar_element_register(plugin, stored) != 0
}
