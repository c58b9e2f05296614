import ARGst
import CGStreamer

extension VideoFrame {
    /// The frame as packed RGBA bytes (`width × height × 4`), converted by GStreamer's video
    /// converter (every raw format, with its own colour matrix); nil when it cannot convert.
    func rgbaPixels() -> [UInt8]? {
        var out = GstVideoInfo()
        guard gst_video_info_set_format(&out, gst_video_format_from_string("RGBA"), guint(width), guint(height)) != 0,
              case () = { out.fps_n = info.pointee.fps_n; out.fps_d = info.pointee.fps_d }(),
              let converter = gst_video_converter_new(info, &out, nil) else { return nil }
        defer { gst_video_converter_free(converter) }
        guard let buffer = gst_buffer_new_allocate(nil, out.size, nil) else { return nil }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self)) }
        var dst = GstVideoFrame()
        guard gst_video_frame_map(&dst, &out, buffer, GstMapFlags(rawValue: 2) /* GST_MAP_WRITE */) != 0 else { return nil }
        defer { gst_video_frame_unmap(&dst) }
        gst_video_converter_frame(converter, raw, &dst)
        let stride = Int(dst.info.stride.0)
        guard let base = dst.data.0 else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBytes { p in
            for y in 0..<height { (p.baseAddress! + y * width * 4).copyMemory(from: base + y * stride, byteCount: width * 4) }
        }
        return pixels
    }
}
