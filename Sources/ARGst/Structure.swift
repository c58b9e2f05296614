import ARBridge
import CGStreamer

/// GTypes of the GValues this module builds.
enum GTypes {
    static let boolean = ar_value_gtype(AR_VALUE_BOOLEAN)
    static let int = ar_value_gtype(AR_VALUE_INT)
    static let uint = ar_value_gtype(AR_VALUE_UINT)
    static let int64 = ar_value_gtype(AR_VALUE_INT64)
    static let uint64 = ar_value_gtype(AR_VALUE_UINT64)
    static let double = ar_value_gtype(AR_VALUE_DOUBLE)
    static let string = ar_value_gtype(AR_VALUE_STRING)
    static let pointer = ar_value_gtype(AR_VALUE_POINTER)
    static let structure = ar_value_gtype(AR_VALUE_STRUCTURE)
    static var bytes: GType { g_bytes_get_type() }
    static var valueArray: GType { gst_value_array_get_type() }
    static var valueList: GType { gst_value_list_get_type() }
}

/// A GstStructure built in Swift and owned until `release()` hands it to GStreamer.
public final class OwnedStructure {
    private var pointer: UnsafeMutablePointer<GstStructure>?

    /// An empty structure named `name` (e.g. `arbarcode`).
    public init(name: String) {
        pointer = gst_structure_new_empty(name)
    }

    /// A copy of `structure`.
    public init(copying structure: UnsafePointer<GstStructure>) {
        pointer = gst_structure_copy(structure)
    }

    deinit {
        if let p = pointer { gst_structure_free(p) }
    }

    /// Gives up ownership: the caller (usually a GStreamer function that takes it) must free it.
    public func release() -> UnsafeMutablePointer<GstStructure> {
        let p = pointer!
        pointer = nil
        return p
    }

    /// The structure, still owned by this object.
    public var borrowed: UnsafeMutablePointer<GstStructure> { pointer! }

    private func take(_ field: String, _ value: inout GValue) {
        gst_structure_take_value(pointer, field, &value)
    }

    public func set(_ field: String, string: String) {
        var v = GValue(); g_value_init(&v, GTypes.string); g_value_set_string(&v, string); take(field, &v)
    }

    public func set(_ field: String, int: Int32) {
        var v = GValue(); g_value_init(&v, GTypes.int); g_value_set_int(&v, int); take(field, &v)
    }

    public func set(_ field: String, uint64: UInt64) {
        var v = GValue(); g_value_init(&v, GTypes.uint64); g_value_set_uint64(&v, UInt(uint64)); take(field, &v)
    }

    public func set(_ field: String, double: Double) {
        var v = GValue(); g_value_init(&v, GTypes.double); g_value_set_double(&v, double); take(field, &v)
    }

    public func set(_ field: String, bool: Bool) {
        var v = GValue(); g_value_init(&v, GTypes.boolean); g_value_set_boolean(&v, bool ? 1 : 0); take(field, &v)
    }

    /// Stores `bytes` as a GBytes (binary-exact).
    public func set(_ field: String, bytes: [UInt8]) {
        var v = GValue()
        g_value_init(&v, GTypes.bytes)
        let b = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, UInt($0.count)) }
        g_value_take_boxed(&v, UnsafeRawPointer(b))
        take(field, &v)
    }

    /// Stores `sample` (a GstSample, e.g. a picture with its caps), adding a reference.
    public func set(_ field: String, sample: OpaquePointer) {
        var v = GValue()
        g_value_init(&v, gst_sample_get_type())
        g_value_set_boxed(&v, UnsafeRawPointer(sample))
        take(field, &v)
    }

    /// Stores `doubles` as a GstValueArray of doubles (`< 1.0, 2.0 >`).
    public func set(_ field: String, doubles: [Double]) {
        var v = GValue()
        g_value_init(&v, GTypes.valueArray)
        for d in doubles {
            var e = GValue(); g_value_init(&e, GTypes.double); g_value_set_double(&e, d)
            gst_value_array_append_and_take_value(&v, &e)
        }
        take(field, &v)
    }

    /// Stores `structures` as a GstValueList of structures (`{ s1, s2 }`); takes ownership of them.
    public func set(_ field: String, structures: [OwnedStructure]) {
        var v = GValue()
        g_value_init(&v, GTypes.valueList)
        for s in structures {
            var e = GValue(); g_value_init(&e, GTypes.structure)
            g_value_take_boxed(&e, UnsafeRawPointer(s.release()))
            gst_value_list_append_and_take_value(&v, &e)
        }
        take(field, &v)
    }
}

/// Read access to a GstStructure owned elsewhere.
public struct StructureView {
    public let pointer: UnsafePointer<GstStructure>

    public init(_ pointer: UnsafePointer<GstStructure>) {
        self.pointer = pointer
    }

    /// The structure's name.
    public var name: String { String(cString: gst_structure_get_name(pointer)) }

    public func has(_ field: String) -> Bool { gst_structure_has_field(pointer, field) != 0 }

    /// The GstSample in `field`, borrowed (valid while the structure is); nil when absent or of another type.
    public func sample(_ field: String) -> OpaquePointer? {
        guard let v = gst_structure_get_value(pointer, field), g_type_check_value_holds(v, gst_sample_get_type()) != 0,
              let p = g_value_get_boxed(v) else { return nil }
        return OpaquePointer(p)
    }

    public func string(_ field: String) -> String? {
        gst_structure_get_string(pointer, field).map { String(cString: $0) }
    }

    public func int(_ field: String) -> Int32? {
        var i: Int32 = 0
        return gst_structure_get_int(pointer, field, &i) != 0 ? i : nil
    }

    public func uint64(_ field: String) -> UInt64? {
        var i: guint64 = 0
        return gst_structure_get_uint64(pointer, field, &i) != 0 ? UInt64(i) : nil
    }

    public func double(_ field: String) -> Double? {
        var d = 0.0
        return gst_structure_get_double(pointer, field, &d) != 0 ? d : nil
    }

    public func bool(_ field: String) -> Bool? {
        var b: gboolean = 0
        return gst_structure_get_boolean(pointer, field, &b) != 0 ? b != 0 : nil
    }

    /// A GBytes field as bytes.
    public func bytes(_ field: String) -> [UInt8]? {
        guard let v = gst_structure_get_value(pointer, field), g_type_check_value_holds(v, GTypes.bytes) != 0,
              let boxed = g_value_get_boxed(v) else { return nil }
        let b = OpaquePointer(boxed)
        var size: gsize = 0
        guard let data = g_bytes_get_data(b, &size) else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: Int(size)))
    }

    /// A GstValueList (or GstValueArray) of structures; empty when absent.
    public func structures(_ field: String) -> [StructureView] {
        guard let v = gst_structure_get_value(pointer, field) else { return [] }
        let isList = g_type_check_value_holds(v, GTypes.valueList) != 0
        guard isList || g_type_check_value_holds(v, GTypes.valueArray) != 0 else { return [] }
        let n = isList ? gst_value_list_get_size(v) : gst_value_array_get_size(v)
        return (0..<n).compactMap { i in
            let e = isList ? gst_value_list_get_value(v, i) : gst_value_array_get_value(v, i)
            guard let e, g_type_check_value_holds(e, GTypes.structure) != 0, let s = gst_value_get_structure(e) else { return nil }
            return StructureView(s)
        }
    }

    /// A GstValueArray of doubles.
    public func doubles(_ field: String) -> [Double]? {
        guard let v = gst_structure_get_value(pointer, field), g_type_check_value_holds(v, GTypes.valueArray) != 0 else { return nil }
        let n = gst_value_array_get_size(v)
        var out: [Double] = []
        out.reserveCapacity(Int(n))
        for i in 0..<n {
            guard let e = gst_value_array_get_value(v, i), g_type_check_value_holds(e, GTypes.double) != 0 else { return nil }
            out.append(g_value_get_double(e))
        }
        return out
    }
}
