import CPangoCairo
import CRsvg

/// A decoded PNG (or SVG, rendered) as a premultiplied ARGB32 cairo surface. Immutable once loaded.
public final class OverlayImage: @unchecked Sendable {  // Immutable after init; cairo only reads the surface.
    /// Largest width or height accepted, pixels.
    public static let maxSide = 8192
    /// Largest area accepted, pixels (64 MiB decoded).
    public static let maxPixels = 4096 * 4096
    /// Largest PNG file accepted, bytes.
    public static let maxFileBytes = 64 << 20

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

    /// Reads the PNG `file` names: a regular file inside its folder (see `ImageFile`), whose header
    /// gives a size within `maxSide` and `maxPixels`, checked before anything is decoded.
    public convenience init(file: ImageFile) throws {
        let bytes: [UInt8]
        do {
            bytes = try file.read(maxBytes: OverlayImage.maxFileBytes)
        } catch let refusal as PathRefusal {
            throw LoadError(path: file.path, reason: refusal.reason)
        }
        if OverlayImage.looksLikeSVG(bytes, path: file.path) {
            try self.init(svg: bytes, path: file.path)
        } else {
            try self.init(png: bytes, path: file.path)
        }
    }

    /// Longest side an SVG is rendered at, pixels: drawn larger it is scaled up like a PNG.
    public static let svgRasterSide = 512

    /// Whether `bytes` (read from `path`) are an SVG document: a `.svg` name, or XML that opens an `<svg` element.
    static func looksLikeSVG(_ bytes: [UInt8], path: String) -> Bool {
        if path.lowercased().hasSuffix(".svg") { return true }
        let head = String(decoding: bytes.prefix(512), as: UTF8.self)
        return head.drop { $0.isWhitespace }.hasPrefix("<") && head.contains("<svg")
    }

    /// Renders the SVG document `svg` (its bytes) with librsvg, its longest side at `svgRasterSide`
    /// pixels (its own aspect; 256 × 256 when it states no size). It cannot load other files: it has
    /// no base location. `path` names it in errors.
    public init(svg: [UInt8], path: String) throws {
        var error: UnsafeMutablePointer<GError>?
        let handle = svg.withUnsafeBufferPointer { rsvg_handle_new_from_data($0.baseAddress, gsize($0.count), &error) }
        func reason(_ what: String) -> String {
            defer { if error != nil { g_error_free(error) } }
            return error.map { "\(what) (\(String(cString: $0.pointee.message)))" } ?? what
        }
        guard let handle else { throw LoadError(path: path, reason: reason("not a readable SVG")) }
        defer { g_object_unref(UnsafeMutableRawPointer(handle)) }
        var w = 0.0, h = 0.0
        if rsvg_handle_get_intrinsic_size_in_pixels(handle, &w, &h) == 0 || !(w > 0 && h > 0) || !w.isFinite || !h.isFinite {
            (w, h) = (256, 256)
        }
        let scale = Double(Self.svgRasterSide) / max(w, h)
        let pw = max(1, Int((w * scale).rounded())), ph = max(1, Int((h * scale).rounded()))
        let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(pw), Int32(ph))!
        let cr = cairo_create(s)
        var viewport = RsvgRectangle(x: 0, y: 0, width: Double(pw), height: Double(ph))
        let drawn = rsvg_handle_render_document(handle, cr, &viewport, &error)
        cairo_destroy(cr)
        cairo_surface_flush(s)
        guard drawn != 0 else {
            cairo_surface_destroy(s)
            throw LoadError(path: path, reason: reason("SVG not drawable"))
        }
        self.path = path
        width = pw
        height = ph
        surface = s
    }

    /// Reads the PNG at `path` (written whole in a style: not confined to a folder).
    public convenience init(path: String) throws {
        try self.init(file: ImageFile(path: path))
    }

    /// Decodes `png` (the bytes of a PNG file); `path` names it in errors.
    public init(png: [UInt8], path: String) throws {
        let size = try OverlayImage.checkedSize(png: png, path: path)
        final class Reader {
            let bytes: [UInt8]
            var offset = 0
            init(_ bytes: [UInt8]) { self.bytes = bytes }
        }
        let reader = Reader(png)
        let decoded = withExtendedLifetime(reader) {
            cairo_image_surface_create_from_png_stream({ closure, data, length in
                let r = Unmanaged<Reader>.fromOpaque(closure!).takeUnretainedValue()
                let n = Int(length)
                guard let data, r.offset + n <= r.bytes.count else { return CAIRO_STATUS_READ_ERROR }
                r.bytes.withUnsafeBufferPointer { _ = memcpy(data, $0.baseAddress! + r.offset, n) }
                r.offset += n
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(reader).toOpaque())
        }
        guard let png = decoded else { throw LoadError(path: path, reason: "not a readable PNG") }
        defer { cairo_surface_destroy(png) }
        let status = cairo_surface_status(png)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw LoadError(path: path, reason: "not a readable PNG (\(String(cString: cairo_status_to_string(status))))")
        }
        let w = cairo_image_surface_get_width(png), h = cairo_image_surface_get_height(png)
        guard Int(w) == size.width, Int(h) == size.height else { throw LoadError(path: path, reason: "not a readable PNG") }
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

    /// An image of `width` × `height` RGBA pixels (4 bytes each, rows packed, straight alpha);
    /// `name` names it in messages. Nil for a size that does not match the bytes.
    public init?(rgba: [UInt8], width: Int, height: Int, name: String) {
        guard width > 0, height > 0, width <= Self.maxSide, height <= Self.maxSide, rgba.count == width * height * 4,
              let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else { return nil }
        cairo_surface_flush(s)
        let stride = Int(cairo_image_surface_get_stride(s))
        let data = UnsafeMutableRawPointer(cairo_image_surface_get_data(s)!)
        for y in 0..<height {
            let row = (data + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width {
                let o = (y * width + x) * 4
                let a = UInt32(rgba[o + 3])
                // Premultiplied ARGB32, native endian.
                let r = UInt32(rgba[o]) * a / 255, g = UInt32(rgba[o + 1]) * a / 255, b = UInt32(rgba[o + 2]) * a / 255
                row[x] = a << 24 | r << 16 | g << 8 | b
            }
        }
        cairo_surface_mark_dirty(s)
        path = name
        self.width = width
        self.height = height
        surface = s
    }

    /// Writes `rgba` (`width` × `height` pixels, 4 bytes each, straight alpha) as a PNG file at
    /// `path`; throws `LoadError` when it cannot be written.
    public static func writePNG(rgba: [UInt8], width: Int, height: Int, path: String) throws {
        guard let image = OverlayImage(rgba: rgba, width: width, height: height, name: path) else {
            throw LoadError(path: path, reason: "no image to write")
        }
        let status = cairo_surface_write_to_png(image.surface, path)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw LoadError(path: path, reason: "could not write the PNG (\(String(cString: cairo_status_to_string(status))))")
        }
    }

    deinit {
        cairo_surface_destroy(surface)
    }

    /// The size a PNG's header (its IHDR chunk) declares, pixels; nil when `bytes` do not start
    /// like a PNG file.
    public static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        let signature: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
        guard bytes.count >= 24, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        func u32(_ i: Int) -> Int { bytes[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (u32(16), u32(20))
    }

    /// The size `png` declares when it is a PNG within `maxSide` and `maxPixels`.
    static func checkedSize(png: [UInt8], path: String) throws -> (width: Int, height: Int) {
        guard let size = pngSize(png) else { throw LoadError(path: path, reason: "not a PNG file") }
        guard size.width > 0, size.height > 0 else { throw LoadError(path: path, reason: "not a readable PNG (empty image)") }
        guard size.width <= maxSide, size.height <= maxSide, size.width * size.height <= maxPixels else {
            throw LoadError(path: path, reason: "the PNG is \(size.width) × \(size.height) pixels; images up to \(maxSide) pixels on a "
                            + "side and \(maxPixels) pixels in all (4096 × 4096) are accepted: scale it down")
        }
        return size
    }

    /// Premultiplied ARGB32 pixels and bytes per row.
    var pixels: (data: UnsafePointer<UInt32>, stride: Int) {
        (UnsafePointer(OpaquePointer(cairo_image_surface_get_data(surface)!)), Int(cairo_image_surface_get_stride(surface)))
    }
}
