import ARGst
import ARRender
import CGStreamer

/// Blends render tiles into a mapped frame with GStreamer's blending (`gst_video_blend`, which
/// unpacks and packs every raw layout), on a view of the frame cropped to each tile: the blend
/// then touches only the tile's pixels, not whole frame rows.
///
/// What keeps it cheap (all of it GStreamer's own code paths, chosen by how frames are described):
/// - A frame without an alpha channel is opaque, so it is described as premultiplied: for an
///   opaque destination both readings are the same pixels, and `gst_video_blend` then takes its
///   "over a premultiplied destination" loop, which has no per-pixel division.
/// - Cached tiles (upright labels, the hint) are kept as `GstVideoOverlayRectangle`s across frames,
///   in straight alpha; on YUV (and grey) frames they are blended from the rectangle's AYUV pixels,
///   which GStreamer converts once and caches in the rectangle, so no colour matrix runs per frame.
/// - On RGB frames, tiles are blended premultiplied, as cairo drew them: no conversion at all.
final class OverlayBlender {
    private let cache = OverlayTileCache()
    /// Scratch pixels of one-colour tiles: their alpha mask, and their AYUV buffer.
    private var mask: UnsafeMutableRawPointer?
    private var maskCapacity = 0
    private var scratch: UnsafeMutablePointer<GstBuffer>?
    /// AYUV words of one-colour tiles' colours (alpha byte zero).
    private var inks: [Color: UInt32] = [:]

    deinit {
        mask?.deallocate()
        if let scratch { overlayUnref(scratch) }
    }

    /// What `gst_video_blend` gets for a tile: its pixels and their layout.
    private struct Source {
        var pixels: UnsafeMutablePointer<GstBuffer>
        var info: GstVideoInfo
    }

    /// Whether cropped views work for frames in `format` (not tiled or palettised).
    static func supports(_ frame: VideoFrame) -> Bool {
        let finfo = frame.raw.pointee.info.finfo.pointee
        // Cropping needs a whole number of bytes per pixel in every component (not v210, UYVP, IYU1…).
        let strides = withUnsafeBytes(of: finfo.pixel_stride) { Array($0.bindMemory(to: Int32.self)) }
        let packedBits = (0..<Int(finfo.n_components)).contains { strides[$0] <= 0 }
        return finfo.flags.rawValue & (formatFlagTiled | formatFlagPalette) == 0 && !packedBits
    }

    func endFrame() {
        cache.endFrame()
    }

    /// Blends `tiles` in order; false when GStreamer refused one.
    func blend(_ tiles: [RenderTile], into frame: VideoFrame) -> Bool {
        let finfo = frame.raw.pointee.info.finfo.pointee
        let rgb = finfo.flags.rawValue & formatFlagRGB != 0
        let opaque = finfo.flags.rawValue & formatFlagAlpha == 0
        var ok = true
        for tile in tiles where tile.width > 0 && tile.height > 0 && tile.opacity > 0 {
            let source: Source
            if let key = tile.cacheKey {
                source = cachedSource(tile, key: key, rgb: rgb)
            } else if !rgb, let solid = tile.solid {
                source = solidSource(tile, solid)
            } else {
                source = Self.drawnSource(tile, premultiplied: rgb)
            }
            defer { overlayUnref(source.pixels) }
            var info = source.info
            var mapped = GstVideoFrame()
            guard gst_video_frame_map(&mapped, &info, source.pixels, GstMapFlags(rawValue: 1) /* GST_MAP_READ */) != 0 else {
                ok = false
                continue
            }
            ok = Self.blend(mapped, tile: tile, into: frame, opaque: opaque) && ok
            gst_video_frame_unmap(&mapped)
        }
        return ok
    }

    /// A cached tile's pixels for an RGB frame (straight BGRA) or any other (straight AYUV, the
    /// rectangle's cached conversion). Transfer full.
    private func cachedSource(_ tile: RenderTile, key: AnyHashable, rgb: Bool) -> Source {
        let rect: OpaquePointer
        if let cached = cache.object(for: key) {
            rect = OpaquePointer(cached)
        } else {
            let buffer = Self.pixels(tile, premultiplied: false)
            rect = gst_video_overlay_rectangle_new_raw(buffer.pixels, 0, 0, guint(tile.width), guint(tile.height),
                                                       GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE)!
            overlayUnref(buffer.pixels)
            cache.store(UnsafeMutableRawPointer(rect).assumingMemoryBound(to: GstMiniObject.self), for: key)
        }
        defer { overlayUnref(rect) }
        // Transfer none: the buffers live as long as the rectangle (the AYUV one in its cache).
        let pixels = rgb ? gst_video_overlay_rectangle_get_pixels_unscaled_argb(rect, GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE)!
            : gst_video_overlay_rectangle_get_pixels_unscaled_ayuv(rect, GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE)!
        gst_mini_object_ref(UnsafeMutableRawPointer(pixels).assumingMemoryBound(to: GstMiniObject.self))
        let meta = gst_buffer_get_video_meta(pixels)!.pointee
        var info = GstVideoInfo()
        _ = gst_video_info_set_format(&info, meta.format, meta.width, meta.height)
        return Source(pixels: pixels, info: info)
    }

    /// A one-colour tile (an outline) for a YUV or grey frame, drawn now as AYUV: the colour as
    /// GStreamer converts it (once per colour, cached), with the tile's alpha mask as alpha, so
    /// neither an unpremultiply nor a colour matrix runs per pixel. The pixels go to a scratch
    /// buffer reused from tile to tile and frame to frame (`gst_video_blend` keeps no reference).
    /// Transfer full.
    private func solidSource(_ tile: RenderTile, _ solid: SolidInk) -> Source {
        let width = tile.width, height = tile.height
        // The alpha mask: cairo's A8 rows are a multiple of 4 bytes.
        let maskStride = (width + 3) & ~3
        if maskCapacity < maskStride * height {
            mask?.deallocate()
            maskCapacity = maskStride * height
            mask = UnsafeMutableRawPointer.allocate(byteCount: maskCapacity, alignment: 16)
        }
        let mask = self.mask!
        solid.drawAlpha(mask, maskStride)

        var info = GstVideoInfo()
        _ = gst_video_info_set_format(&info, ayuvFormat, guint(width), guint(height))
        let stride = Int(info.stride.0)
        if scratch == nil || gst_mini_object_is_writable(UnsafeMutableRawPointer(scratch!).assumingMemoryBound(to: GstMiniObject.self)) == 0
            || gst_buffer_get_size(scratch!) < info.size {
            if let old = scratch { overlayUnref(old) }
            scratch = gst_buffer_new_allocate(nil, max(info.size, gsize(256 * 256 * 4)), nil)!
        }
        let buffer = scratch!
        let ink = inkWord(solid.color)
        var map = GstMapInfo()
        _ = gst_buffer_map(buffer, &map, GstMapFlags(rawValue: 2) /* GST_MAP_WRITE */)
        let pixels = UnsafeMutableRawPointer(map.data!)
        for r in tile.regions {
            for row in (r.y - tile.y)..<(r.maxY - tile.y) {
                let a = (mask + row * maskStride + (r.x - tile.x)).assumingMemoryBound(to: UInt8.self)
                let p = (pixels + row * stride + (r.x - tile.x) * 4).assumingMemoryBound(to: UInt32.self)
                for i in 0..<r.width { p[i] = ink | (UInt32(a[i]) << alphaShift) }
            }
        }
        gst_buffer_unmap(buffer, &map)
        _ = gst_mini_object_ref(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self))
        return Source(pixels: buffer, info: info)
    }

    /// The AYUV pixel of an opaque `color` with its alpha byte zero, as GStreamer converts it
    /// (through an overlay rectangle, like the cached tiles' pixels), in native byte order.
    private func inkWord(_ color: Color) -> UInt32 {
        if let w = inks[color] { return w }
        let opaque = Color(red: color.red, green: color.green, blue: color.blue)
        let one = RenderTile(x: 0, y: 0, width: 1, height: 1, opacity: 1) { pixels, _ in
            func c(_ v: Double) -> UInt32 { UInt32((min(1, max(0, v)) * 255).rounded()) }
            pixels.storeBytes(of: 0xff00_0000 | c(opaque.red) << 16 | c(opaque.green) << 8 | c(opaque.blue), as: UInt32.self)
        }
        let buffer = Self.pixels(one, premultiplied: false).pixels
        let rect = gst_video_overlay_rectangle_new_raw(buffer, 0, 0, 1, 1, GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE)!
        overlayUnref(buffer)
        defer { overlayUnref(rect) }
        let ayuv = gst_video_overlay_rectangle_get_pixels_unscaled_ayuv(rect, GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE)!
        var map = GstMapInfo()
        _ = gst_buffer_map(ayuv, &map, GstMapFlags(rawValue: 1) /* GST_MAP_READ */)
        let word = UnsafeRawPointer(map.data!).loadUnaligned(as: UInt32.self) & ~(UInt32(0xff) << alphaShift)
        gst_buffer_unmap(ayuv, &map)
        if inks.count > 64 { inks.removeAll() }
        inks[color] = word
        return word
    }

    /// An uncached tile drawn now: premultiplied as cairo draws it (RGB frames), or converted to
    /// straight alpha (what `gst_video_blend` converts to YUV without dividing). Transfer full.
    private static func drawnSource(_ tile: RenderTile, premultiplied: Bool) -> Source {
        var source = pixels(tile, premultiplied: premultiplied)
        if premultiplied { source.info.flags = GstVideoFlags(rawValue: source.info.flags.rawValue | videoFlagPremultiplied) }
        return source
    }

    /// The tile drawn into a new BGRA buffer (ARGB on big-endian machines) with a video meta,
    /// premultiplied or converted to straight alpha (only its `regions`: nothing else is blended).
    private static func pixels(_ tile: RenderTile, premultiplied: Bool) -> Source {
        let stride = tile.width * 4
        let buffer = gst_buffer_new_allocate(nil, gsize(stride * tile.height), nil)!
        var map = GstMapInfo()
        _ = gst_buffer_map(buffer, &map, GstMapFlags(rawValue: 2) /* GST_MAP_WRITE */)
        tile.draw(map.data, stride)
        if !premultiplied {
            for r in tile.regions {
                for row in r.y..<r.maxY {
                    let start = UnsafeMutableRawPointer(map.data!) + (row - tile.y) * stride + (r.x - tile.x) * 4
                    unpremultiply(start.assumingMemoryBound(to: UInt32.self), count: r.width)
                }
            }
        }
        gst_buffer_unmap(buffer, &map)
        var info = GstVideoInfo()
        _ = gst_video_info_set_format(&info, OverlayComposition.overlayFormat, guint(tile.width), guint(tile.height))
        _ = gst_buffer_add_video_meta(buffer, GstVideoFrameFlags(rawValue: 0), OverlayComposition.overlayFormat,
                                      guint(tile.width), guint(tile.height))
        return Source(pixels: buffer, info: info)
    }

    /// Premultiplied native-endian ARGB32 words to straight alpha, in place.
    static func unpremultiply(_ px: UnsafeMutablePointer<UInt32>, count: Int) {
        for i in 0..<count {
            let p = px[i]
            let a = p >> 24
            guard a != 0 && a != 255 else { continue }
            func un(_ shift: UInt32) -> UInt32 { min(255, (((p >> shift) & 0xff) * 255 + a / 2) / a) << shift }
            px[i] = (a << 24) | un(16) | un(8) | un(0)
        }
    }

    /// Blends the tile's regions, each through a view of the source cropped to it.
    private static func blend(_ mapped: GstVideoFrame, tile: RenderTile, into frame: VideoFrame, opaque: Bool) -> Bool {
        let stride = Int(mapped.info.stride.0)
        var ok = true
        for r in tile.regions {
            var part = mapped
            part.info.width = gint(r.width)
            part.info.height = gint(r.height)
            part.data.0 = mapped.data.0.map { $0 + (r.y - tile.y) * stride + (r.x - tile.x) * 4 }
            ok = blend(&part, at: r, into: frame, opacity: tile.opacity, opaque: opaque) && ok
        }
        return ok
    }

    /// Blends `source` (a single-plane frame of `region`'s size) at `region` of the frame.
    private static func blend(_ source: inout GstVideoFrame, at region: TileRegion, into frame: VideoFrame,
                              opacity: Double, opaque: Bool) -> Bool {
        // The part of the frame under the region, widened to whole chroma blocks (multiples of 4).
        let x0 = max(0, region.x) & ~3, y0 = max(0, region.y) & ~3
        let x1 = min(frame.width, (min(frame.width, region.maxX) + 3) & ~3)
        let y1 = min(frame.height, (min(frame.height, region.maxY) + 3) & ~3)
        guard x1 > x0, y1 > y0 else { return true }
        var view = frame.raw.pointee
        view.info.width = gint(x1 - x0)
        view.info.height = gint(y1 - y0)
        // Opaque pixels read the same premultiplied or not; premultiplied selects the blend without division.
        if opaque { view.info.flags = GstVideoFlags(rawValue: view.info.flags.rawValue | videoFlagPremultiplied) }
        let finfo = view.info.finfo.pointee
        withUnsafeMutableBytes(of: &view.data) { data in
            let planes = data.bindMemory(to: UnsafeMutableRawPointer?.self)
            var done: UInt32 = 0  // bit p: plane p moved
            for c in 0..<Int(finfo.n_components) {
                let plane = Int(tuple(finfo.plane, c) as guint)
                guard done & (1 << plane) == 0, let base = planes[plane] else { continue }
                done |= 1 << plane
                let wsub = Int(tuple(finfo.w_sub, c) as guint), hsub = Int(tuple(finfo.h_sub, c) as guint)
                let pstride = Int(tuple(finfo.pixel_stride, c) as gint)
                planes[plane] = base + (y0 >> hsub) * frame.stride(plane) + (x0 >> wsub) * pstride
            }
        }
        return gst_video_blend(&view, &source, gint(region.x - x0), gint(region.y - y0), Float(opacity)) != 0
    }
}

// Flag values of video/video-format.h and video/video-info.h (macros Swift does not import).
private let formatFlagRGB: UInt32 = 1 << 1, formatFlagAlpha: UInt32 = 1 << 3, formatFlagPalette: UInt32 = 1 << 5
private let formatFlagTiled: UInt32 = 1 << 8
private let videoFlagPremultiplied: UInt32 = 1 << 1
private let ayuvFormat = gst_video_format_from_string("AYUV")
/// Where the first byte of a pixel (AYUV's alpha) sits in a native UInt32.
private let alphaShift: UInt32 = 1.littleEndian == 1 ? 0 : 24

/// Element `index` of a C array imported as a tuple.
private func tuple<T, E>(_ t: T, _ index: Int) -> E {
    withUnsafeBytes(of: t) { $0.load(fromByteOffset: index * MemoryLayout<E>.stride, as: E.self) }
}
