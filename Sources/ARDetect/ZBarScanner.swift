import ARCore
import CZBar

/// One symbol as zbar reports it, before the outline is fitted.
struct ScannedSymbol {
    var type: zbar_symbol_type_t
    /// The symbology's reported name, e.g. `QR-Code`, `CODE-32`.
    var name: String
    /// The decoded bytes, exactly as zbar returns them (binary mode for QR).
    var payload: [UInt8]
    /// zbar's location points in the scanned image, pixels: a 2D code's corners; for a 1D code one
    /// point per decoding scan line (where the decode ended: an end or the middle guard of the code).
    var points: [Point]
    var orientation: zbar_orientation_t
    /// Scan lines (1D) or 1 (2D) that agreed.
    var quality: Int

    var isTwoDimensional: Bool { type == ZBAR_QRCODE || type == ZBAR_SQCODE }

    /// What this symbology fixes of a code with this payload (`LinearOutline.layout`), if anything.
    var layout: LinearOutline.Layout? { LinearOutline.layout(symbology: name, payloadLength: payload.count) }

    /// The bar edges a code of this symbology and payload has, if fixed.
    var barEdges: Int? { layout?.barEdges }

    /// This symbol as a detection, its outline fitted in `image` (whose pixels map to the frame
    /// through `map`); nil for an empty reading or a 1D reading whose points straddle a quiet zone.
    func detection(in image: LumaImage, map: AffineMap) -> Detection? {
        // An empty reading (e.g. a Code 128 start, check and stop character read out of bars) names nothing.
        guard !payload.isEmpty else { return nil }
        let quad: Quad?
        if isTwoDimensional {
            // zbar lists a 2D code's corners top-left, bottom-left, bottom-right, top-right.
            quad = points.count == 4 ? Quad(points)?.clockwiseNormalised() : Quad.minimumAreaRectangle(enclosing: points)
        } else {
            if LinearOutline.spansQuietZone(points: points, orientation: orientation, in: image) { return nil }
            quad = LinearOutline.fit(points: points, orientation: orientation, barEdges: barEdges, in: image)
        }
        guard let quad, isWhole(quad, in: image) else { return nil }
        return Detection(symbology: name, payload: payload, quad: map.apply(quad), quality: quality)
    }
}

extension ScannedSymbol {
    /// Whether the code outlined by `quad` (in `image`'s pixels) was read whole: Interleaved 2 of 5
    /// and UPC-E readings need the quiet zones of their modules (`layout`,
    /// `LinearOutline.hasQuietZones`), UPC-E readings no more bars than a UPC-E code has
    /// (`LinearOutline.hasUPCEBars`); other symbologies mark their ends or count their characters.
    func isWhole(_ quad: Quad, in image: LumaImage) -> Bool {
        guard type == ZBAR_I25 || type == ZBAR_UPCE, let modules = layout?.modules else { return true }
        return LinearOutline.hasQuietZones(quad, modules: modules, in: image)
            && (type != ZBAR_UPCE || LinearOutline.hasUPCEBars(quad, in: image))
    }
}

/// A zbar image scanner configured for a set of symbologies: one scan of one luma image.
/// Not thread-safe.
final class ZBarScanner {
    private var scanner: OpaquePointer
    private let image: OpaquePointer
    private let symbologies: [Symbology]
    private let density: Int32
    /// Whether columns are scanned too (false: rows only, for 1D strips turned upright).
    private let columns: Bool
    /// Whether zbar's scanner is made afresh for every image (`fresh`, and an EAN/UPC or QR decoder
    /// runs: zbar's QR reader draws from a random generator that lives as long as the scanner, so a
    /// reused one reads a code a little differently depending on what it read before).
    private let renew: Bool
    /// Scans after which zbar's scanner is replaced by a new one (0 = never). zbar's image scanner
    /// grows by about 0.2 kB per scan for as long as it lives (measured: +1.2 MB over 6000 scans of a
    /// 640x360 frame, not levelling off); a new one starts small again.
    let recycleScans: Int
    /// Scans since zbar's scanner was made.
    private(set) var scansSinceRecycle = 0
    /// zbar scanners made after the first (recycled, or renewed for `fresh`).
    private(set) var scannersMade = 0

    /// Default `recycleScans`: at 30 scans a second, a new scanner every 100 s (≈ 0.6 MB of growth).
    static let defaultRecycleScans = 3000

    /// A scanner for `symbologies`, reading every `density`-th row and column (1 = all).
    /// zbar keeps a decoded EAN/UPC half between scan lines and between images (only making a new
    /// scanner clears it): a later pass over the same code can complete it, but a half from another
    /// code can join it too. `fresh`: start every image without such halves (costs making a scanner).
    /// `columns`: false scans rows only. `recycleScans`: scans after which zbar's scanner is replaced
    /// (bounds its memory; 0 = never).
    init(symbologies: [Symbology], density: Int = 1, fresh: Bool = false, columns: Bool = true,
         recycleScans: Int = ZBarScanner.defaultRecycleScans) throws {
        self.recycleScans = max(0, recycleScans)
        self.symbologies = symbologies
        self.density = Int32(max(1, density))
        self.columns = columns
        guard let image = zbar_image_create() else { throw DetectorError.scannerUnavailable }
        self.image = image
        guard let scanner = Self.makeScanner(symbologies, density: self.density, columns: columns) else {
            zbar_image_destroy(image)
            throw DetectorError.scannerUnavailable
        }
        self.scanner = scanner
        zbar_image_set_format(image, 0x3030_3859)  // fourcc "Y800"
        enabledEAN13 = symbologies.contains { $0.name == "ean13" }
        enabledUPCE = symbologies.contains { $0.name == "upce" }
        enabledCode39 = symbologies.contains { $0.name == "code39" }
        enabledCode32 = symbologies.contains { $0.name == "code32" }
        renew = fresh && symbologies.contains { Symbology.decodedInHalves($0.type) || $0.isTwoDimensional }
    }

    private static func makeScanner(_ symbologies: [Symbology], density: Int32, columns: Bool) -> OpaquePointer? {
        guard let scanner = zbar_image_scanner_create() else { return nil }
        // Disable everything, then enable the chosen ones: fewer decoders run, faster scans.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for s in symbologies {
            zbar_image_scanner_set_config(scanner, s.type, ZBAR_CFG_ENABLE, 1)
        }
        // UPC-A, UPC-E and ISBN are read by the EAN-13 decoder, which must run for them.
        let ean13Family: Set<String> = ["upca", "isbn10", "isbn13"]
        if symbologies.contains(where: { ean13Family.contains($0.name) }) {
            zbar_image_scanner_set_config(scanner, ZBAR_EAN13, ZBAR_CFG_ENABLE, 1)
        }
        // That decoder reads a UPC-E shape (six digits and an end guard) whether UPC-E is asked for
        // or not, and reports it expanded as UPC-A or EAN-13 when it is not: the left half of an
        // EAN-13 whose right half is covered then reads as another EAN-13 (camera seed 29, live).
        // Reported as UPC-E, such readings are dropped unless UPC-E was asked for.
        if symbologies.contains(where: { Symbology.decodedInHalves($0.type) }) {
            zbar_image_scanner_set_config(scanner, ZBAR_UPCE, ZBAR_CFG_ENABLE, 1)
        }
        // Raw bytes: zbar would otherwise guess a text encoding and re-encode (mangling UTF-8).
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        // Keep positions so every symbol reports its outline.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_POSITION, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, columns ? density : 0)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, density)
        return scanner
    }

    /// Whether EAN-13 itself was asked for (it may run only to feed UPC-A or ISBN).
    private let enabledEAN13: Bool
    /// Whether UPC-E was asked for (it is decoded whenever an EAN/UPC decoder runs).
    private let enabledUPCE: Bool
    /// Whether Code 39 and Code 32 were asked for (both are read by zbar's Code 39 decoder).
    private let enabledCode39: Bool
    private let enabledCode32: Bool

    deinit {
        zbar_image_destroy(image)
        zbar_image_scanner_destroy(scanner)
    }

    /// Rows packed for zbar when the image's padding may not be read.
    private var packed = LumaPlane(width: 1, height: 1)

    /// Starts as a new scanner does: a new zbar scanner, without EAN/UPC halves or the QR reader's
    /// random state from the images before, its scans counted from 0 (`BarcodeDetector.reset`).
    func renewScanner() {
        if replaceScanner() { scansSinceRecycle = 0 }
    }

    /// Replaces zbar's scanner by a new one; false (and the old one kept) when zbar cannot make one.
    private func replaceScanner() -> Bool {
        guard let fresh = Self.makeScanner(symbologies, density: density, columns: columns) else { return false }
        zbar_image_scanner_destroy(scanner)
        scanner = fresh
        scannersMade += 1
        return true
    }

    /// Every symbol zbar finds in `luma`.
    func scan(_ luma: LumaImage) -> [ScannedSymbol] {
        if luma.stride != luma.width && !luma.fullStrides {
            packed.copy(luma, x: 0, y: 0, width: luma.width, height: luma.height)
            return packed.withImage { scanInPlace($0) }
        }
        return scanInPlace(luma)
    }

    private func scanInPlace(_ luma: LumaImage) -> [ScannedSymbol] {
        // zbar reads rows `stride` bytes apart; the crop keeps it inside the visible width.
        zbar_image_set_size(image, UInt32(luma.stride), UInt32(luma.height))
        zbar_image_set_crop(image, 0, 0, UInt32(luma.width), UInt32(luma.height))
        zbar_image_set_data(image, luma.base, UInt(luma.stride * luma.height), nil)
        scansSinceRecycle += 1
        if renew || (recycleScans > 0 && scansSinceRecycle > recycleScans), replaceScanner() { scansSinceRecycle = 1 }
        let n = zbar_scan_image(scanner, image)
        defer { zbar_image_set_data(image, nil, 0, nil) }
        guard n > 0 else { return [] }
        var out: [ScannedSymbol] = []
        var symbol = zbar_image_first_symbol(image)
        while let s = symbol {
            symbol = zbar_symbol_next(s)
            let type = zbar_symbol_get_type(s)
            if type == ZBAR_EAN13 && !enabledEAN13 || type == ZBAR_UPCE && !enabledUPCE { continue }
            let length = Int(zbar_symbol_get_data_length(s))
            guard let data = zbar_symbol_get_data(s) else { continue }
            var payload = Array(UnsafeRawBufferPointer(start: data, count: length))
            var name = Symbology.displayName(type)
            if type == ZBAR_CODE39 {
                if enabledCode32, let text = Code32.text(fromCode39: payload) {
                    payload = text
                    name = Code32.symbologyName
                } else if !enabledCode39 {
                    continue
                } else if let text = Code39.fullASCII(payload) {
                    payload = text
                }
            }
            let count = zbar_symbol_get_loc_size(s)
            var points: [Point] = []
            points.reserveCapacity(Int(count))
            for i in 0..<count {
                // Measured on rendered codes: a QR corner or a bar edge at pixel boundary k is reported as k.
                points.append(Point(x: Double(zbar_symbol_get_loc_x(s, i)), y: Double(zbar_symbol_get_loc_y(s, i))))
            }
            out.append(ScannedSymbol(type: type, name: name, payload: payload, points: points,
                                     orientation: zbar_symbol_get_orientation(s), quality: Int(zbar_symbol_get_quality(s))))
        }
        return out
    }
}
