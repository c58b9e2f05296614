import ARGst
import ARRender
import CGStreamer

/// A GstVideoOverlayComposition built from render tiles: one premultiplied-ARGB rectangle per
/// tile. Tiles with a cache key reuse pixel buffers kept across frames (`OverlayTileCache`).
final class OverlayComposition {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        gst_mini_object_unref(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstMiniObject.self))
    }

    /// Cairo's ARGB32 in memory: BGRA on little-endian machines, ARGB on big-endian.
    static let overlayFormat: GstVideoFormat = gst_video_format_from_string(1.littleEndian == 1 ? "BGRA" : "ARGB")

    /// The composition of `tiles`, or nil when there are none.
    static func make(_ tiles: [RenderTile], cache: OverlayTileCache) -> OverlayComposition? {
        var composition: OpaquePointer?
        for tile in tiles where tile.width > 0 && tile.height > 0 && tile.opacity > 0 {
            let buffer: UnsafeMutablePointer<GstBuffer>
            if let key = tile.cacheKey, let cached = cache.buffer(for: key) {
                buffer = cached
            } else {
                guard let fresh = pixels(for: tile) else { continue }
                buffer = fresh
                if let key = tile.cacheKey { cache.store(buffer, for: key) }
            }
            let flags = GstVideoOverlayFormatFlags(rawValue: GST_VIDEO_OVERLAY_FORMAT_FLAG_PREMULTIPLIED_ALPHA.rawValue
                                                   | GST_VIDEO_OVERLAY_FORMAT_FLAG_GLOBAL_ALPHA.rawValue)
            let rect = gst_video_overlay_rectangle_new_raw(buffer, gint(tile.x), gint(tile.y), guint(tile.width),
                                                           guint(tile.height), flags)!
            overlayUnref(buffer)
            if tile.opacity < 1 { gst_video_overlay_rectangle_set_global_alpha(rect, Float(tile.opacity)) }
            if let c = composition {
                gst_video_overlay_composition_add_rectangle(c, rect)
            } else {
                composition = gst_video_overlay_composition_new(rect)
            }
            overlayUnref(rect)
        }
        return composition.map(OverlayComposition.init)
    }

    /// A new buffer with the tile's pixels and a video meta describing them (transfer full).
    private static func pixels(for tile: RenderTile) -> UnsafeMutablePointer<GstBuffer>? {
        let stride = tile.width * 4
        let buffer = gst_buffer_new_allocate(nil, gsize(stride * tile.height), nil)!
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GstMapFlags(rawValue: 2) /* GST_MAP_WRITE */) != 0 else {
            overlayUnref(buffer)
            return nil
        }
        tile.draw(map.data, stride)
        gst_buffer_unmap(buffer, &map)
        var strides: [gint] = [gint(stride), 0, 0, 0]
        var offsets: [gsize] = [0, 0, 0, 0]
        _ = gst_buffer_add_video_meta_full(buffer, GstVideoFrameFlags(rawValue: 0), overlayFormat, guint(tile.width),
                                           guint(tile.height), 1, &offsets, &strides)
        return buffer
    }

    /// Blends into the mapped frame with GStreamer's blending (any raw format it can unpack).
    func blend(into frame: VideoFrame) -> Bool {
        gst_video_overlay_composition_blend(pointer, frame.raw) != 0
    }

    /// Attaches the composition to `buffer` as a GstVideoOverlayCompositionMeta, for downstream to draw.
    func attach(to buffer: Buffer) {
        _ = gst_buffer_add_video_overlay_composition_meta(buffer.pointer, pointer)
    }
}

/// Drops one reference to a mini object (buffer, rectangle, composition).
func overlayUnref<T>(_ p: UnsafeMutablePointer<T>) {
    gst_mini_object_unref(UnsafeMutableRawPointer(p).assumingMemoryBound(to: GstMiniObject.self))
}

func overlayUnref(_ p: OpaquePointer) {
    gst_mini_object_unref(UnsafeMutableRawPointer(p).assumingMemoryBound(to: GstMiniObject.self))
}
