import ARCore
import CPangoCairo
import Foundation

/// Draws overlays with cairo (shapes, images) and pango (text) into small premultiplied ARGB
/// tiles covering only the pixels they touch. Upright labels are keyed for caching (their pixels
/// depend only on their content and size), so a caller can keep them across frames.
///
/// Whatever the style says, what it draws stays within what can be visible: no tile is larger
/// than the frame (a label larger than the frame is cropped to it and not cached), and no font is
/// larger than the frame is tall.
/// Not thread-safe: one per element, used on the streaming thread.
public final class OverlayRenderer {
    private let scratchSurface: OpaquePointer
    private let scratch: OpaquePointer
    private let layout: OpaquePointer
    private var measured: [LabelContent: (width: Double, height: Double, inkLeft: Double)] = [:]
    private var sizedFonts: [SizedFontKey: String] = [:]

    private struct SizedFontKey: Hashable {
        var font: String
        var frameHeight: Int
    }

    public init() {
        scratchSurface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1)
        scratch = cairo_create(scratchSurface)
        layout = pango_cairo_create_layout(scratch)
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(layout))
        cairo_destroy(scratch)
        cairo_surface_destroy(scratchSurface)
    }

    /// Default label font size for a frame `frameHeight` pixels tall, pixels.
    public static func fontPixels(frameHeight: Int) -> Double { max(12, Double(frameHeight) / 36) }

    /// `font` with a size: as given when it names one no taller than the frame (`frameHeight`
    /// pixels; larger sizes become `frameHeight` pixels), else `frameHeight`-scaled pixels.
    public static func sizedFont(_ font: String, frameHeight: Int) -> String {
        let desc = pango_font_description_from_string(font)
        defer { pango_font_description_free(desc) }
        let size = Double(pango_font_description_get_size(desc)) / Double(PANGO_SCALE)
        if size > 0 {
            // Points are at 96 dpi, pango-cairo's resolution.
            let pixels = pango_font_description_get_size_is_absolute(desc) != 0 ? size : size * 96 / 72
            if pixels <= Double(max(1, frameHeight)) { return font }
            pango_font_description_set_absolute_size(desc, Double(max(1, frameHeight)) * Double(PANGO_SCALE))
        } else {
            pango_font_description_set_absolute_size(desc, fontPixels(frameHeight: frameHeight) * Double(PANGO_SCALE))
        }
        let s = pango_font_description_to_string(desc)!
        defer { g_free(s) }
        return String(cString: s)
    }

    /// `sizedFont(_:frameHeight:)`, remembered: labels ask for it on every frame, and parsing and
    /// printing a font description costs more than a lookup.
    public func sizedFont(_ font: String, frameHeight: Int) -> String {
        let key = SizedFontKey(font: font, frameHeight: frameHeight)
        if let s = sizedFonts[key] { return s }
        let s = Self.sizedFont(font, frameHeight: frameHeight)
        if sizedFonts.count > 64 { sizedFonts.removeAll() }
        sizedFonts[key] = s
        return s
    }

    private func setText(_ label: LabelContent) {
        let desc = pango_font_description_from_string(label.font)
        pango_layout_set_font_description(layout, desc)
        pango_font_description_free(desc)
        pango_layout_set_text(layout, Self.visibleText(label.text), -1)
    }

    /// `text` as pango can lay it out: control characters dropped (a NUL would end the C string
    /// pango reads, so a payload starting with one would show nothing), tabs as spaces, line
    /// breaks kept.
    static func visibleText(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars {
            switch u.value {
            case 0x0A: out.append(u)
            case 0x09: out.append(" ")
            case 0..<0x20, 0x7F: continue
            default: out.append(u)
            }
        }
        return String(out)
    }

    /// A label's size with its padding, pixels (the text's logical extents, rounded up).
    public func size(of label: LabelContent) -> (width: Double, height: Double) {
        if let m = measured[label] { return (m.width, m.height) }
        setText(label)
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        let m = (width: Double(logical.width) + 2 * label.padding, height: Double(logical.height) + 2 * label.padding,
                 inkLeft: Double(logical.x))
        if measured.count > 1024 { measured.removeAll() }
        measured[label] = m
        return (m.width, m.height)
    }

    /// The tiles that draw `op` at `opacity` on a `frameWidth` × `frameHeight` frame; tiles
    /// wholly outside the frame are left out, uncached ones are cropped to it. No tile is larger
    /// than the frame, whatever the geometry (huge, infinite or NaN coordinates included).
    public func tiles(for op: DrawOp, opacity: Double, frameWidth: Int, frameHeight: Int) -> [RenderTile] {
        let frame = Rect(x: 0, y: 0, width: Double(frameWidth), height: Double(frameHeight))
        func tile(_ bounds: Rect, cacheKey: AnyHashable? = nil, draw: @escaping (OpaquePointer) -> Void) -> RenderTile? {
            // A cached tile keeps its whole surface (the same pixels wherever it is) only while it
            // is no larger than the frame; the caller gives no key otherwise.
            let r = (cacheKey == nil ? bounds.intersection(frame) : bounds).integral
            guard r.width >= 1, r.height >= 1, r.width <= frame.width, r.height <= frame.height,
                  r.maxX > 0, r.maxY > 0, r.minX < frame.maxX, r.minY < frame.maxY else { return nil }
            let x = Int(r.x), y = Int(r.y)
            return RenderTile(x: x, y: y, width: Int(r.width), height: Int(r.height), opacity: opacity, cacheKey: cacheKey) {
                pixels, stride in
                OverlayRenderer.withContext(pixels, stride: stride, width: Int(r.width), height: Int(r.height)) { cr in
                    cairo_translate(cr, -Double(x), -Double(y))
                    draw(cr)
                }
            }
        }
        switch op {
        case .outline(let quad, let color, let width):
            let stroke: (OpaquePointer) -> Void = { cr in
                OverlayRenderer.path(cr, quad.corners)
                OverlayRenderer.set(cr, color)
                cairo_set_line_width(cr, width)
                cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
                cairo_stroke(cr)
            }
            // Drawn once into a tile around the quad; when the edges' boxes cover fewer pixels,
            // only they (made disjoint, so corners are blended once) are its parts, and only they
            // are cleared and drawn.
            let whole = quad.boundingBox.insetBy(width / 2 + 1)
            guard var t = tile(whole, draw: stroke) else { return [] }
            let x = t.x, y = t.y, w = t.width, h = t.height
            let c = quad.corners
            let tileRect = Rect(x: Double(x), y: Double(y), width: Double(w), height: Double(h))
            // Each edge's box, cropped to the tile before it becomes whole pixels.
            let edges = (0..<4).compactMap { i -> TileRegion? in
                let r = Rect(enclosing: [c[i], c[(i + 1) % 4]])!.insetBy(width / 2 + 1).intersection(tileRect).integral
                guard r.width >= 1, r.height >= 1 else { return nil }
                return TileRegion(x: Int(r.x), y: Int(r.y), width: Int(r.width), height: Int(r.height)).intersection(t.bounds)
            }
            let parts = TileRegion.disjointCover(edges)
            guard parts.reduce(0, { $0 + $1.area }) < t.bounds.area else {
                t.solid = SolidInk(color: color) { alpha, stride in
                    OverlayRenderer.withContext(alpha, stride: stride, width: w, height: h, format: CAIRO_FORMAT_A8) { cr in
                        cairo_translate(cr, -Double(x), -Double(y))
                        stroke(cr)
                    }
                }
                return [t]
            }
            t.parts = parts
            let local = parts.map { TileRegion(x: $0.x - x, y: $0.y - y, width: $0.width, height: $0.height) }
            func clippedStroke(_ cr: OpaquePointer) {
                for p in local { cairo_rectangle(cr, Double(p.x), Double(p.y), Double(p.width), Double(p.height)) }
                cairo_clip(cr)
                cairo_translate(cr, -Double(x), -Double(y))
                stroke(cr)
            }
            t.draw = { pixels, stride in
                OverlayRenderer.withContext(pixels, stride: stride, width: w, height: h, clearing: local, clippedStroke)
            }
            t.solid = SolidInk(color: color) { alpha, stride in
                OverlayRenderer.withContext(alpha, stride: stride, width: w, height: h, format: CAIRO_FORMAT_A8,
                                            clearing: local, clippedStroke)
            }
            return [t]
        case .fill(let quad, let color):
            return tile(quad.boundingBox.insetBy(1)) { cr in
                OverlayRenderer.path(cr, quad.corners)
                OverlayRenderer.set(cr, color)
                cairo_fill(cr)
            }.map { [$0] } ?? []
        case .dot(let rect, let color):
            return tile(rect.bounds.insetBy(1)) { cr in
                cairo_save(cr)
                cairo_translate(cr, rect.center.x, rect.center.y)
                cairo_rotate(cr, rect.angle)
                cairo_scale(cr, max(0.5, rect.width / 2), max(0.5, rect.height / 2))
                cairo_arc(cr, 0, 0, 1, 0, 2 * .pi)
                cairo_restore(cr)
                OverlayRenderer.set(cr, color)
                cairo_fill(cr)
            }.map { [$0] } ?? []
        case .box(let rect, let color, let radius):
            return tile(rect.bounds.insetBy(1)) { cr in
                OverlayRenderer.roundedRect(cr, rect, radius: radius)
                OverlayRenderer.set(cr, color)
                cairo_fill(cr)
            }.map { [$0] } ?? []
        case .label(let label, let rect):
            let upright = rect.angle == 0
            let bounds: Rect
            var key: AnyHashable?
            if upright {
                // Whole pixels: the same label at any position has the same pixels. Cached only
                // when no larger than the frame; a larger one is cropped to it on every frame.
                let w = rect.width.rounded(), h = rect.height.rounded()
                bounds = Rect(x: (rect.center.x - w / 2).rounded(), y: (rect.center.y - h / 2).rounded(), width: w, height: h)
                if w <= frame.width, h <= frame.height { key = LabelKey(label: label, width: Int(w), height: Int(h)) }
            } else {
                bounds = rect.bounds.insetBy(1)
            }
            let drawRect = upright ? PlacedRect(bounds) : rect
            return tile(bounds, cacheKey: key) { [self] cr in drawLabel(cr, label, in: drawRect) }.map { [$0] } ?? []
        case .image(let image, let rect):
            return tile(rect.bounds.insetBy(1)) { cr in
                cairo_save(cr)
                cairo_translate(cr, rect.center.x, rect.center.y)
                cairo_rotate(cr, rect.angle)
                cairo_scale(cr, rect.width / Double(max(1, image.width)), rect.height / Double(max(1, image.height)))
                cairo_translate(cr, -Double(image.width) / 2, -Double(image.height) / 2)
                cairo_set_source_surface(cr, image.surface, 0, 0)
                cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
                cairo_rectangle(cr, 0, 0, Double(image.width), Double(image.height))
                cairo_fill(cr)
                cairo_restore(cr)
            }.map { [$0] } ?? []
        case .warp(let image, let quad):
            let r = quad.boundingBox.insetBy(1).intersection(frame).integral
            guard r.width >= 1, r.height >= 1 else { return [] }
            let x = Int(r.x), y = Int(r.y), w = Int(r.width), h = Int(r.height)
            return [RenderTile(x: x, y: y, width: w, height: h, opacity: opacity) { pixels, stride in
                for row in 0..<h { memset(pixels + row * stride, 0, w * 4) }
                ImageWarp.draw(image, onto: quad, pixels: pixels, rowBytes: stride, originX: x, originY: y, width: w, height: h)
            }]
        }
    }

    private func drawLabel(_ cr: OpaquePointer, _ label: LabelContent, in rect: PlacedRect) {
        cairo_translate(cr, rect.center.x, rect.center.y)
        cairo_rotate(cr, rect.angle)
        let local = PlacedRect(center: Point(x: 0, y: 0), width: rect.width, height: rect.height)
        if let bg = label.background {
            OverlayRenderer.roundedRect(cr, local, radius: label.radius)
            OverlayRenderer.set(cr, bg)
            cairo_fill(cr)
        }
        let natural = size(of: label)
        setText(label)
        // Text centred in the rectangle (equal to its natural size unless a size was given), clipped to it.
        cairo_rectangle(cr, -rect.width / 2, -rect.height / 2, rect.width, rect.height)
        cairo_clip(cr)
        OverlayRenderer.set(cr, label.color)
        cairo_move_to(cr, (-natural.width / 2 + label.padding).rounded(), (-natural.height / 2 + label.padding).rounded())
        pango_cairo_update_layout(cr, layout)
        pango_cairo_show_layout(cr, layout)
        pango_cairo_update_layout(scratch, layout)
    }

    /// The cache key of an upright label's pixels.
    struct LabelKey: Hashable {
        var label: LabelContent
        var width: Int
        var height: Int
    }

    /// Runs `body` with a cairo context on `pixels` (premultiplied ARGB32), cleared to transparent
    /// (only the `clearing` regions, in tile pixels, when given: `body` must draw only there).
    /// `format` is ARGB32 or A8 (one byte per pixel: alpha only).
    static func withContext(_ pixels: UnsafeMutableRawPointer, stride: Int, width: Int, height: Int,
                            format: cairo_format_t = CAIRO_FORMAT_ARGB32,
                            clearing: [TileRegion]? = nil, _ body: (OpaquePointer) -> Void) {
        let surface = cairo_image_surface_create_for_data(pixels.assumingMemoryBound(to: UInt8.self), format,
                                                          Int32(width), Int32(height), Int32(stride))
        let cr = cairo_create(surface)!
        let bytes = format == CAIRO_FORMAT_A8 ? 1 : 4
        if let clearing {
            for r in clearing {
                for row in r.y..<r.maxY { memset(pixels + row * stride + r.x * bytes, 0, r.width * bytes) }
            }
        } else {
            for row in 0..<height { memset(pixels + row * stride, 0, width * bytes) }
        }
        body(cr)
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        cairo_surface_destroy(surface)
    }

    static func path(_ cr: OpaquePointer, _ points: [Point]) {
        cairo_move_to(cr, points[0].x, points[0].y)
        for p in points.dropFirst() { cairo_line_to(cr, p.x, p.y) }
        cairo_close_path(cr)
    }

    static func roundedRect(_ cr: OpaquePointer, _ rect: PlacedRect, radius: Double) {
        cairo_save(cr)
        cairo_translate(cr, rect.center.x, rect.center.y)
        cairo_rotate(cr, rect.angle)
        let x = -rect.width / 2, y = -rect.height / 2, w = rect.width, h = rect.height
        let r = min(radius, w / 2, h / 2)
        if r <= 0 {
            cairo_rectangle(cr, x, y, w, h)
        } else {
            cairo_new_sub_path(cr)
            cairo_arc(cr, x + w - r, y + r, r, -Double.pi / 2, 0)
            cairo_arc(cr, x + w - r, y + h - r, r, 0, Double.pi / 2)
            cairo_arc(cr, x + r, y + h - r, r, Double.pi / 2, Double.pi)
            cairo_arc(cr, x + r, y + r, r, Double.pi, 3 * Double.pi / 2)
            cairo_close_path(cr)
        }
        cairo_restore(cr)
    }

    static func set(_ cr: OpaquePointer, _ color: Color) {
        cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
    }
}
