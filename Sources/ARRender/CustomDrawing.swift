import CPangoCairo

/// A cairo context for an application's own drawing (the `draw` signal): drawn on an unbounded
/// recording surface in frame pixels, then replayed into a tile covering just the ink.
public final class CustomDrawing {
    private let surface: OpaquePointer
    /// The context to hand out (`cairo_t *`), frame pixel coordinates. Valid until `finish`.
    public let context: OpaquePointer

    public init() {
        surface = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, nil)
        context = cairo_create(surface)
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    /// The context as a raw pointer, for a signal parameter.
    public var contextPointer: UnsafeMutableRawPointer { UnsafeMutableRawPointer(context) }

    /// A tile with what was drawn (cropped to the frame), or nil when nothing was.
    public func finish(opacity: Double, frameWidth: Int, frameHeight: Int) -> RenderTile? {
        cairo_surface_flush(surface)
        var x = 0.0, y = 0.0, w = 0.0, h = 0.0
        cairo_recording_surface_ink_extents(surface, &x, &y, &w, &h)
        let x0 = max(0, Int(x.rounded(.down))), y0 = max(0, Int(y.rounded(.down)))
        let x1 = min(frameWidth, Int((x + w).rounded(.up))), y1 = min(frameHeight, Int((y + h).rounded(.up)))
        guard w > 0, h > 0, x1 > x0, y1 > y0 else { return nil }
        // The tile keeps this object (and so the recording) alive until it is drawn.
        return RenderTile(x: x0, y: y0, width: x1 - x0, height: y1 - y0, opacity: opacity) { [self] pixels, stride in
            OverlayRenderer.withContext(pixels, stride: stride, width: x1 - x0, height: y1 - y0) { cr in
                cairo_set_source_surface(cr, surface, -Double(x0), -Double(y0))
                cairo_paint(cr)
            }
        }
    }
}
