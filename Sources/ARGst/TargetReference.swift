import CGStreamer

/// A target's picture as first found, rectified (upright, its own aspect): RGBA pixels in a
/// GstSample with `video/x-raw,format=RGBA` caps, so it travels in structures and signals as any
/// GStreamer picture does (and an `appsrc` takes it as is).
public final class TargetReference: Equatable, @unchecked Sendable {  // The sample is never written after init; GStreamer's refcounts are atomic.
    /// The sample (buffer and caps), owned: one reference held until this object goes.
    public let sample: OpaquePointer
    /// Size, pixels.
    public let width: Int
    public let height: Int

    /// A reference holding `rgba` (`width` × `height` pixels, 4 bytes each, rows packed).
    public init?(rgba: [UInt8], width: Int, height: Int) {
        guard width > 0, height > 0, rgba.count == width * height * 4,
              let buffer = gst_buffer_new_allocate(nil, gsize(rgba.count), nil) else { return nil }
        _ = rgba.withUnsafeBytes { gst_buffer_fill(buffer, 0, $0.baseAddress, gsize(rgba.count)) }
        let caps = gst_caps_from_string("video/x-raw,format=RGBA,width=\(width),height=\(height),framerate=0/1")
        sample = gst_sample_new(buffer, caps, nil, nil)
        gst_mini_object_unref(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self))
        if let caps { gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self)) }
        self.width = width
        self.height = height
    }

    /// Wraps a sample found in a structure, adding a reference. Its size comes from its caps.
    public init(retaining sample: OpaquePointer) {
        self.sample = OpaquePointer(gst_mini_object_ref(UnsafeMutablePointer<GstMiniObject>(sample)))
        var w: Int32 = 0, h: Int32 = 0
        if let caps = gst_sample_get_caps(sample), gst_caps_get_size(caps) > 0 {
            let s = gst_caps_get_structure(caps, 0)
            _ = gst_structure_get_int(s, "width", &w)
            _ = gst_structure_get_int(s, "height", &h)
        }
        width = Int(w)
        height = Int(h)
    }

    deinit {
        gst_mini_object_unref(UnsafeMutablePointer<GstMiniObject>(sample))
    }

    /// The RGBA bytes (a copy); empty when the buffer cannot be read.
    public var rgba: [UInt8] {
        guard let buffer = gst_sample_get_buffer(sample) else { return [] }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GstMapFlags(rawValue: 1) /* GST_MAP_READ */) != 0 else { return [] }
        defer { gst_buffer_unmap(buffer, &map) }
        return Array(UnsafeRawBufferPointer(start: map.data, count: Int(map.size)))
    }

    /// Same picture: the same sample (identity, not pixels).
    public static func == (a: TargetReference, b: TargetReference) -> Bool { a.sample == b.sample }
}
