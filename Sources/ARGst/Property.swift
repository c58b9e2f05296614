import CGStreamer

/// An enum property's Swift type: cases with a stable integer value, a pipeline nick and a label.
public protocol PropertyEnum: CaseIterable, Equatable, Sendable {
    /// The value stored in the GEnum.
    var rawValue: Int32 { get }
    init?(rawValue: Int32)
    /// Name used in pipelines, e.g. `async`.
    var nick: String { get }
    /// Description shown by gst-inspect.
    var label: String { get }
}

/// A property value crossing the C boundary.
public enum PropertyValue: Equatable {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String?)
    case enumeration(Int32)
}

/// One property of an element whose values live in `Settings`: declared once, in the element's
/// property table; the bridge installs it and routes get/set through this declaration.
// Immutable once built; its closures only read and write, through key paths, the Settings value they are handed.
public struct Property<Settings>: @unchecked Sendable {
    public enum Kind {
        case bool
        case int(min: Int32, max: Int32)
        case uint(min: UInt32, max: UInt32)
        case int64(min: Int64, max: Int64)
        case uint64(min: UInt64, max: UInt64)
        case double(min: Double, max: Double)
        case string
        case enumeration(typeName: String, cases: [(value: Int32, name: String, nick: String)])
    }

    public let name: String
    public let nick: String
    /// What it does, with unit and range (gst-inspect shows range and default itself).
    public let blurb: String
    public let kind: Kind
    /// Whether it may change while PLAYING (takes effect on the next frame).
    public let mutableInPlaying: Bool
    let get: (Settings) -> PropertyValue
    let set: (inout Settings, PropertyValue) -> Void

    public init(name: String, nick: String, blurb: String, kind: Kind, mutableInPlaying: Bool,
                get: @escaping (Settings) -> PropertyValue, set: @escaping (inout Settings, PropertyValue) -> Void) {
        self.name = name
        self.nick = nick
        self.blurb = blurb
        self.kind = kind
        self.mutableInPlaying = mutableInPlaying
        self.get = get
        self.set = set
    }

    /// A boolean property bound to `keyPath`.
    public static func bool(_ name: String, _ nick: String, _ blurb: String, _ keyPath: WritableKeyPath<Settings, Bool>,
                            mutableInPlaying: Bool = true) -> Property {
        Property(name: name, nick: nick, blurb: blurb, kind: .bool, mutableInPlaying: mutableInPlaying,
                 get: { .bool($0[keyPath: keyPath]) },
                 set: { s, v in if case .bool(let b) = v { s[keyPath: keyPath] = b } })
    }

    /// A signed 32-bit integer property bound to `keyPath` (an `Int`).
    public static func int(_ name: String, _ nick: String, _ blurb: String, _ keyPath: WritableKeyPath<Settings, Int>,
                           range: ClosedRange<Int32>, mutableInPlaying: Bool = true) -> Property {
        Property(name: name, nick: nick, blurb: blurb, kind: .int(min: range.lowerBound, max: range.upperBound),
                 mutableInPlaying: mutableInPlaying,
                 get: { .int(Int64($0[keyPath: keyPath])) },
                 set: { s, v in if case .int(let i) = v { s[keyPath: keyPath] = Int(i) } })
    }

    /// An unsigned 32-bit integer property bound to `keyPath` (an `Int`).
    public static func uint(_ name: String, _ nick: String, _ blurb: String, _ keyPath: WritableKeyPath<Settings, Int>,
                            range: ClosedRange<UInt32>, mutableInPlaying: Bool = true) -> Property {
        Property(name: name, nick: nick, blurb: blurb, kind: .uint(min: range.lowerBound, max: range.upperBound),
                 mutableInPlaying: mutableInPlaying,
                 get: { .int(Int64($0[keyPath: keyPath])) },
                 set: { s, v in if case .int(let i) = v { s[keyPath: keyPath] = Int(i) } })
    }

    /// A double property bound to `keyPath`.
    public static func double(_ name: String, _ nick: String, _ blurb: String, _ keyPath: WritableKeyPath<Settings, Double>,
                              range: ClosedRange<Double>, mutableInPlaying: Bool = true) -> Property {
        Property(name: name, nick: nick, blurb: blurb, kind: .double(min: range.lowerBound, max: range.upperBound),
                 mutableInPlaying: mutableInPlaying,
                 get: { .double($0[keyPath: keyPath]) },
                 set: { s, v in if case .double(let d) = v { s[keyPath: keyPath] = d } })
    }

    /// A string property bound to `keyPath` (nil when unset).
    public static func string(_ name: String, _ nick: String, _ blurb: String, _ keyPath: WritableKeyPath<Settings, String?>,
                              mutableInPlaying: Bool = true) -> Property {
        Property(name: name, nick: nick, blurb: blurb, kind: .string, mutableInPlaying: mutableInPlaying,
                 get: { .string($0[keyPath: keyPath]) },
                 set: { s, v in if case .string(let str) = v { s[keyPath: keyPath] = str } })
    }

    /// An enum property bound to `keyPath`; `typeName` is the GType name (e.g. `ArDetectMode`).
    public static func enumeration<E: PropertyEnum>(_ name: String, _ nick: String, _ blurb: String, typeName: String,
                                                    _ keyPath: WritableKeyPath<Settings, E>,
                                                    mutableInPlaying: Bool = true) -> Property {
        let cases = E.allCases.map { (value: $0.rawValue, name: $0.label, nick: $0.nick) }
        return Property(name: name, nick: nick, blurb: blurb, kind: .enumeration(typeName: typeName, cases: cases),
                        mutableInPlaying: mutableInPlaying,
                        get: { .enumeration($0[keyPath: keyPath].rawValue) },
                        set: { s, v in
                            if case .enumeration(let raw) = v, let e = E(rawValue: raw) { s[keyPath: keyPath] = e }
                        })
    }
}

extension Property {
    /// Reads this property's value from a GValue of the installed type.
    func read(_ value: UnsafePointer<GValue>) -> PropertyValue {
        switch kind {
        case .bool: return .bool(g_value_get_boolean(value) != 0)
        case .int: return .int(Int64(g_value_get_int(value)))
        case .uint: return .int(Int64(g_value_get_uint(value)))
        case .int64: return .int(Int64(g_value_get_int64(value)))
        case .uint64: return .int(Int64(clamping: g_value_get_uint64(value)))
        case .double: return .double(g_value_get_double(value))
        case .string: return .string(g_value_get_string(value).map { String(cString: $0) })
        case .enumeration: return .enumeration(g_value_get_enum(value))
        }
    }

    /// Writes `v` into a GValue of the installed type.
    func write(_ v: PropertyValue, to value: UnsafeMutablePointer<GValue>) {
        switch (kind, v) {
        case (.bool, .bool(let b)): g_value_set_boolean(value, b ? 1 : 0)
        case (.int, .int(let i)): g_value_set_int(value, Int32(clamping: i))
        case (.uint, .int(let i)): g_value_set_uint(value, UInt32(clamping: i))
        case (.int64, .int(let i)): g_value_set_int64(value, Int(i))
        case (.uint64, .int(let i)): g_value_set_uint64(value, UInt(clamping: i))
        case (.double, .double(let d)): g_value_set_double(value, d)
        case (.string, .string(let s)): g_value_set_string(value, s)
        case (.enumeration, .enumeration(let e)): g_value_set_enum(value, e)
        default: break
        }
    }
}
