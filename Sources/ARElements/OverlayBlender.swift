import ARGst
import ARRender
import CGStreamer

/// Blends render tiles into a mapped frame with GStreamer's blending (`gst_video_blend`, which
/// unpacks and packs every raw layout), on a view of the frame cropped to each tile: the blend
/// then touches only the tile's pixels, not whole frame rows. Tiles are converted to straight
/// alpha (what `gst_video_blend` expects) once per cached tile.
final class OverlayBlender {
    private let cache = OverlayTileCache()
    private static let straightFormat = gst_video_format_from_string(1.littleEndian == 1 ? "BGRA" : "ARGB")

    /// Whether cropped views work for frames in `format` (not tiled or palettised).
    static func supports(_ frame: VideoFrame) -> Bool {
        let flags = frame.raw.pointee.info.finfo.pointee.flags.rawValue
        return flags & (256 /* TILED */ | 32 /* PALETTE */) == 0
    }

    func endFrame() {
        cache.endFrame()
    }

    /// Blends `tiles` in order; false when GStreamer refused one.
    func blend(_ tiles: [RenderTile], into frame: VideoFrame) -> Bool {
        var ok = true
        for tile in tiles where tile.width > 0 && tile.height > 0 && tile.opacity > 0 {
            let buffer: UnsafeMutablePointer<GstBuffer>
            if let key = tile.cacheKey, let cached = cache.buffer(for: key) {
                buffer = cached
            } else {
                buffer = Self.straightPixels(tile)
                if let key = tile.cacheKey { cache.store(buffer, for: key) }
            }
            defer { overlayUnref(buffer) }
            ok = Self.blend(buffer, tile: tile, into: frame) && ok
        }
        return ok
    }

    /// The tile drawn and converted to straight-alpha BGRA (transfer full).
    private static func straightPixels(_ tile: RenderTile) -> UnsafeMutablePointer<GstBuffer> {
        let stride = tile.width * 4
        let buffer = gst_buffer_new_allocate(nil, gsize(stride * tile.height), nil)!
        var map = GstMapInfo()
        _ = gst_buffer_map(buffer, &map, GstMapFlags(rawValue: 2) /* GST_MAP_WRITE */)
        tile.draw(map.data, stride)
        let px = UnsafeMutableRawPointer(map.data!).assumingMemoryBound(to: UInt32.self)
        for i in 0..<(tile.width * tile.height) {
            let p = px[i]
            let a = p >> 24
            guard a != 0 && a != 255 else { continue }
            func un(_ shift: UInt32) -> UInt32 { min(255, (((p >> shift) & 0xff) * 255 + a / 2) / a) << shift }
            px[i] = (a << 24) | un(16) | un(8) | un(0)
        }
        gst_buffer_unmap(buffer, &map)
        return buffer
    }

    private static func blend(_ pixels: UnsafeMutablePointer<GstBuffer>, tile: RenderTile, into frame: VideoFrame) -> Bool {
        // The part of the frame under the tile, widened to whole chroma blocks (multiples of 4).
        let x0 = max(0, tile.x) & ~3, y0 = max(0, tile.y) & ~3
        let x1 = min(frame.width, (min(frame.width, tile.x + tile.width) + 3) & ~3)
        let y1 = min(frame.height, (min(frame.height, tile.y + tile.height) + 3) & ~3)
        guard x1 > x0, y1 > y0 else { return true }
        var view = frame.raw.pointee
        view.info.width = gint(x1 - x0)
        view.info.height = gint(y1 - y0)
        let finfo = view.info.finfo.pointee
        withUnsafeMutableBytes(of: &view.data) { data in
            let planes = data.bindMemory(to: UnsafeMutableRawPointer?.self)
            var done: Set<Int> = []
            for c in 0..<Int(finfo.n_components) {
                let plane = Int(tuple(finfo.plane, c) as guint)
                guard done.insert(plane).inserted, let base = planes[plane] else { continue }
                let wsub = Int(tuple(finfo.w_sub, c) as guint), hsub = Int(tuple(finfo.h_sub, c) as guint)
                let pstride = Int(tuple(finfo.pixel_stride, c) as gint)
                planes[plane] = base + (y0 >> hsub) * frame.stride(plane) + (x0 >> wsub) * pstride
            }
        }
        var info = GstVideoInfo()
        _ = gst_video_info_set_format(&info, straightFormat, guint(tile.width), guint(tile.height))
        var source = GstVideoFrame()
        guard gst_video_frame_map(&source, &info, pixels, GstMapFlags(rawValue: 1) /* GST_MAP_READ */) != 0 else { return false }
        defer { gst_video_frame_unmap(&source) }
        return gst_video_blend(&view, &source, gint(tile.x - x0), gint(tile.y - y0), Float(tile.opacity)) != 0
    }
}

/// Element `index` of a C array imported as a tuple.
private func tuple<T, E>(_ t: T, _ index: Int) -> E {
    withUnsafeBytes(of: t) { $0.load(fromByteOffset: index * MemoryLayout<E>.stride, as: E.self) }
}
