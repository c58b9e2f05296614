import ARCore
import CPangoCairo

/// Draws overlay items with cairo (shapes) and pango (text) into small premultiplied ARGB tiles,
/// one per item, covering only the pixels the item touches. Not thread-safe: one per element.
public final class OverlayRenderer {
    /// Pango font description of labels, e.g. `Sans Bold 14`; the size is scaled with the frame.
    public var fontDescription: String

    private let scratchSurface: OpaquePointer
    private let scratch: OpaquePointer
    private let layout: OpaquePointer

    /// Padding between label text and its background edge, pixels.
    let padding = 4.0

    public init(fontDescription: String = "Sans Bold") {
        self.fontDescription = fontDescription
        scratchSurface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1)
        scratch = cairo_create(scratchSurface)
        layout = pango_cairo_create_layout(scratch)
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(layout))
        cairo_destroy(scratch)
        cairo_surface_destroy(scratchSurface)
    }

    /// Label font size for a frame `frameHeight` pixels tall, pixels.
    public static func fontPixels(frameHeight: Int) -> Double { max(12, Double(frameHeight) / 36) }

    private func setText(_ text: String, frameHeight: Int) {
        let desc = pango_font_description_from_string(fontDescription)
        pango_font_description_set_absolute_size(desc, Self.fontPixels(frameHeight: frameHeight) * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, desc)
        pango_font_description_free(desc)
        pango_layout_set_text(layout, text, -1)
    }

    /// Size of `text` as a label, pixels (logical extents).
    private func textSize(_ text: String, frameHeight: Int) -> (width: Double, height: Double) {
        setText(text, frameHeight: frameHeight)
        var w: Int32 = 0, h: Int32 = 0
        pango_layout_get_pixel_size(layout, &w, &h)
        return (Double(w), Double(h))
    }

    /// The label's box (background included) in frame pixels: centred over the code's top edge,
    /// sitting above the code's bounding box.
    private func labelRect(_ item: OverlayItem, frameHeight: Int) -> Rect? {
        guard !item.label.isEmpty else { return nil }
        let size = textSize(item.label, frameHeight: frameHeight)
        let box = item.quad.boundingBox
        let w = size.width + 2 * padding, h = size.height + 2 * padding
        return Rect(x: box.center.x - w / 2, y: box.minY - item.outlineWidth - h, width: w, height: h)
    }

    /// Where `item` draws, in whole frame pixels (not clipped to the frame).
    public func tile(for item: OverlayItem, frameHeight: Int) -> OverlayTile {
        var r = item.quad.boundingBox.insetBy(item.outlineWidth + 1)
        if let l = labelRect(item, frameHeight: frameHeight) { r = r.union(l) }
        let i = r.integral
        return OverlayTile(x: Int(i.x), y: Int(i.y), width: max(1, Int(i.width)), height: max(1, Int(i.height)))
    }

    /// Draws `item` into `pixels`: premultiplied ARGB32 in native byte order (BGRA in memory on
    /// little-endian), `tile.width` × `tile.height`, `stride` bytes per row, cleared to transparent first.
    public func draw(_ item: OverlayItem, tile: OverlayTile, into pixels: UnsafeMutableRawPointer, stride: Int, frameHeight: Int) {
        let surface = cairo_image_surface_create_for_data(pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
                                                          Int32(tile.width), Int32(tile.height), Int32(stride))
        let cr = cairo_create(surface)!
        defer {
            cairo_destroy(cr)
            cairo_surface_destroy(surface)
        }
        cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
        cairo_paint(cr)
        cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
        cairo_translate(cr, -Double(tile.x), -Double(tile.y))
        cairo_push_group(cr)

        // Outline.
        let c = item.quad.corners
        cairo_move_to(cr, c[0].x, c[0].y)
        for p in c.dropFirst() { cairo_line_to(cr, p.x, p.y) }
        cairo_close_path(cr)
        set(cr, item.outlineColor)
        cairo_set_line_width(cr, item.outlineWidth)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_stroke(cr)

        // Label: background box, then the text.
        if let r = labelRect(item, frameHeight: frameHeight) {
            set(cr, item.backgroundColor)
            cairo_rectangle(cr, r.x, r.y, r.width, r.height)
            cairo_fill(cr)
            setText(item.label, frameHeight: frameHeight)
            set(cr, item.textColor)
            cairo_move_to(cr, r.x + padding, r.y + padding)
            pango_cairo_update_layout(cr, layout)
            pango_cairo_show_layout(cr, layout)
            pango_cairo_update_layout(scratch, layout)
        }

        cairo_pop_group_to_source(cr)
        cairo_paint_with_alpha(cr, max(0, min(1, item.opacity)))
        cairo_surface_flush(surface)
    }

    private func set(_ cr: OpaquePointer, _ color: Color) {
        cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
    }
}
