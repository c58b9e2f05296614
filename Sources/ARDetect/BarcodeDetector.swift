import ARCore
import CZBar

/// Decodes barcodes and QR codes in luma images with zbar. Not thread-safe: one per stream.
public final class BarcodeDetector {
    private let scanner: OpaquePointer
    private let image: OpaquePointer
    /// The symbologies this detector decodes.
    public let symbologies: [Symbology]

    /// A detector for `symbologies` (all of zbar's by default).
    public init(symbologies: [Symbology] = Symbology.all) throws {
        guard let scanner = zbar_image_scanner_create(), let image = zbar_image_create() else {
            throw DetectorError.scannerUnavailable
        }
        self.scanner = scanner
        self.image = image
        self.symbologies = symbologies
        // Disable everything, then enable the chosen ones: fewer decoders run, faster scans.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for s in symbologies {
            zbar_image_scanner_set_config(scanner, s.type, ZBAR_CFG_ENABLE, 1)
        }
        // Raw bytes: zbar would otherwise guess a text encoding and re-encode (mangling UTF-8).
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        // Keep positions so every symbol reports its outline.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_POSITION, 1)
        zbar_image_set_format(image, 0x3030_3859)  // fourcc "Y800"
    }

    deinit {
        zbar_image_destroy(image)
        zbar_image_scanner_destroy(scanner)
    }

    /// Every code found in `luma`, with corners in `luma`'s pixels.
    public func detect(_ luma: LumaImage) -> [Detection] {
        // zbar reads rows `stride` bytes apart; the crop keeps it inside the visible width.
        zbar_image_set_size(image, UInt32(luma.stride), UInt32(luma.height))
        zbar_image_set_crop(image, 0, 0, UInt32(luma.width), UInt32(luma.height))
        zbar_image_set_data(image, luma.base, UInt(luma.stride * luma.height), nil)
        let n = zbar_scan_image(scanner, image)
        guard n > 0 else { return [] }
        var out: [Detection] = []
        var symbol = zbar_image_first_symbol(image)
        while let s = symbol {
            if let d = detection(s, width: luma.width, height: luma.height) { out.append(d) }
            symbol = zbar_symbol_next(s)
        }
        return out
    }

    private func detection(_ s: OpaquePointer, width: Int, height: Int) -> Detection? {
        let type = zbar_symbol_get_type(s)
        let length = Int(zbar_symbol_get_data_length(s))
        guard let data = zbar_symbol_get_data(s) else { return nil }
        let payload = Array(UnsafeRawBufferPointer(start: data, count: length))
        let n = zbar_symbol_get_loc_size(s)
        var points: [Point] = []
        for i in 0..<n {
            points.append(Point(x: Double(zbar_symbol_get_loc_x(s, i)), y: Double(zbar_symbol_get_loc_y(s, i))))
        }
        guard let quad = Self.outline(points: points, type: type, orientation: zbar_symbol_get_orientation(s)) else { return nil }
        return Detection(symbology: Symbology.displayName(type), payload: payload, quad: quad,
                         quality: Int(zbar_symbol_get_quality(s)))
    }

    /// The code's quad from zbar's location points: a 2D code's four corners, or for a 1D code the
    /// tightest rotated rectangle around its scan-line points, ordered from the code's own top-left.
    static func outline(points: [Point], type: zbar_symbol_type_t, orientation: zbar_orientation_t) -> Quad? {
        if type == ZBAR_QRCODE || type == ZBAR_SQCODE, points.count == 4, let q = Quad(points) {
            // zbar lists a QR code's corners top-left, bottom-left, bottom-right, top-right.
            return q.clockwiseNormalised()
        }
        guard let rect = Quad.minimumAreaRectangle(enclosing: points) else { return nil }
        // `rect` starts at the screen's top-left; zbar's orientation says where the code's top is.
        let shift: Int
        switch orientation {
        case ZBAR_ORIENT_RIGHT: shift = 1
        case ZBAR_ORIENT_DOWN: shift = 2
        case ZBAR_ORIENT_LEFT: shift = 3
        default: shift = 0
        }
        let c = rect.corners
        return Quad((0..<4).map { c[($0 + shift) % 4] })
    }
}
