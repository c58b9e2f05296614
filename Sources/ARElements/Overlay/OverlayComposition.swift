import ARGst
import ARRender
import CGStreamer
import Foundation

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

    /// The composition of `tiles`, or nil when there are none: one rectangle per tile, or per
    /// part of a tile with parts.
    static func make(_ tiles: [RenderTile], cache: OverlayTileCache) -> OverlayComposition? {
        var composition: OpaquePointer?
        func add(_ buffer: UnsafeMutablePointer<GstBuffer>, _ r: TileRegion, opacity: Double) {
            let flags = GstVideoOverlayFormatFlags(rawValue: GST_VIDEO_OVERLAY_FORMAT_FLAG_PREMULTIPLIED_ALPHA.rawValue
                                                   | GST_VIDEO_OVERLAY_FORMAT_FLAG_GLOBAL_ALPHA.rawValue)
            let rect = gst_video_overlay_rectangle_new_raw(buffer, gint(r.x), gint(r.y), guint(r.width), guint(r.height), flags)!
            if opacity < 1 { gst_video_overlay_rectangle_set_global_alpha(rect, Float(opacity)) }
            if let c = composition {
                gst_video_overlay_composition_add_rectangle(c, rect)
            } else {
                composition = gst_video_overlay_composition_new(rect)
            }
            overlayUnref(rect)
        }
        for tile in tiles where tile.width > 0 && tile.height > 0 && tile.opacity > 0 {
            let buffer: UnsafeMutablePointer<GstBuffer>
            if let key = tile.cacheKey, let cached = cache.buffer(for: key) {
                buffer = cached
            } else {
                guard let fresh = pixels(for: tile) else { continue }
                buffer = fresh
                if let key = tile.cacheKey { cache.store(buffer, for: key) }
            }
            defer { overlayUnref(buffer) }
            guard let parts = tile.parts else {
                add(buffer, tile.bounds, opacity: tile.opacity)
                continue
            }
            for r in parts {
                guard let part = copy(r, of: buffer, tile: tile) else { continue }
                add(part, r, opacity: tile.opacity)
                overlayUnref(part)
            }
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
        addVideoMeta(buffer, width: tile.width, height: tile.height)
        return buffer
    }

    /// A new buffer with the pixels of `region` (inside the tile) of `pixels` (transfer full).
    private static func copy(_ region: TileRegion, of pixels: UnsafeMutablePointer<GstBuffer>, tile: RenderTile)
        -> UnsafeMutablePointer<GstBuffer>? {
        var source = GstMapInfo()
        guard gst_buffer_map(pixels, &source, GstMapFlags(rawValue: 1) /* GST_MAP_READ */) != 0 else { return nil }
        defer { gst_buffer_unmap(pixels, &source) }
        let buffer = gst_buffer_new_allocate(nil, gsize(region.area * 4), nil)!
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GstMapFlags(rawValue: 2) /* GST_MAP_WRITE */) != 0 else {
            overlayUnref(buffer)
            return nil
        }
        let rowBytes = region.width * 4, tileStride = tile.width * 4
        let origin = (region.y - tile.y) * tileStride + (region.x - tile.x) * 4
        for row in 0..<region.height {
            let to: UnsafeMutablePointer<UInt8> = map.data + row * rowBytes
            let from: UnsafeMutablePointer<UInt8> = source.data + (origin + row * tileStride)
            memcpy(to, from, rowBytes)
        }
        gst_buffer_unmap(buffer, &map)
        addVideoMeta(buffer, width: region.width, height: region.height)
        return buffer
    }

    private static func addVideoMeta(_ buffer: UnsafeMutablePointer<GstBuffer>, width: Int, height: Int) {
        var strides: [gint] = [gint(width * 4), 0, 0, 0]
        var offsets: [gsize] = [0, 0, 0, 0]
        _ = gst_buffer_add_video_meta_full(buffer, GstVideoFrameFlags(rawValue: 0), overlayFormat, guint(width),
                                           guint(height), 1, &offsets, &strides)
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
