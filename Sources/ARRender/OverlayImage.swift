import CPangoCairo

/// A decoded PNG as a premultiplied ARGB32 cairo surface. Immutable once loaded.
public final class OverlayImage: @unchecked Sendable {
    /// Where it was read from.
    public let path: String
    /// Size, pixels.
    public let width: Int
    public let height: Int
    let surface: OpaquePointer

    /// Why an image could not be used.
    public struct LoadError: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Reads the PNG at `path`.
    public init(path: String) throws {
        guard let png = cairo_image_surface_create_from_png(path) else { throw LoadError(path: path, reason: "cannot read") }
        defer { cairo_surface_destroy(png) }
        let status = cairo_surface_status(png)
        guard status == CAIRO_STATUS_SUCCESS else {
            let reason = status == CAIRO_STATUS_FILE_NOT_FOUND ? "file not found" : "not a readable PNG (\(String(cString: cairo_status_to_string(status))))"
            throw LoadError(path: path, reason: reason)
        }
        let w = cairo_image_surface_get_width(png), h = cairo_image_surface_get_height(png)
        // Always ARGB32: RGB24 PNGs leave the alpha byte undefined.
        let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h)!
        let cr = cairo_create(s)
        cairo_set_source_surface(cr, png, 0, 0)
        cairo_paint(cr)
        cairo_destroy(cr)
        cairo_surface_flush(s)
        self.path = path
        width = Int(w)
        height = Int(h)
        surface = s
    }

    deinit {
        cairo_surface_destroy(surface)
    }

    /// Premultiplied ARGB32 pixels and bytes per row.
    var pixels: (data: UnsafePointer<UInt32>, stride: Int) {
        (UnsafePointer(OpaquePointer(cairo_image_surface_get_data(surface)!)), Int(cairo_image_surface_get_stride(surface)))
    }
}
