import ARCore
import CZBar
import Foundation

/// Decodes one `LocatedRegion`: the region turned upright and resampled to about
/// `targetModulePixels` per module, contrast-normalised, then scanned pass by pass (as is,
/// sharpened, inverted, at the other scale) until a pass reads a confirmed code. Not thread-safe:
/// one per thread (it owns its zbar scanners and buffers).
final class RegionDecoder {
    /// Pixels per module the region is resampled to (zbar reads 1D bars from about 1.5 px and QR
    /// modules from about 2 px).
    static let targetModulePixels = 3.0
    /// Rows of a 1D strip: bands across the bars, each the mean of its band along the bars (noise
    /// and blur along the bars average out).
    static let stripRows = 16
    /// Rows of a strip counted as one reading when they agree.
    static let rowsPerGroup = 4
    /// Motion blur across the bars measured and undone (`LumaPlane.deblur`) from this many modules long…
    static let deblurShortest = 1.2
    /// …to this many.
    static let deblurLongest = 8.0
    /// Strips whose edges ramp over fewer modules than this are not deblurred (`LumaPlane.rowEdgeRamp`):
    /// on the camera clips, bars blurred under a module ramp over 0.5–0.9 modules, bars blurred
    /// 2 modules or more over 1.7 or more. At 1.5, camera seed 17 read a blurred EAN-13 on 20
    /// frames fewer; at 1.0 it reads them, at 9 % more frames per second than with no gate.
    static let deblurRamp = 1.0

    private let linearScanner: ZBarScanner
    private let matrixScanner: ZBarScanner
    /// 2D decoders only, for regions where a 2D code is expected (1D decoders there cost a third of
    /// the scan and read nothing a QR track needs), and for blobs of texture left unread before.
    private let expectedMatrixScanner: ZBarScanner
    private var work = LumaPlane(width: 1, height: 1)
    private var pass = LumaPlane(width: 1, height: 1)
    /// One strip row's sums, reused.
    private var sums: [Double] = []

    init(symbologies: [Symbology]) throws {
        let linear = symbologies.filter { !$0.isTwoDimensional }
        // Fresh scanners: a region starts without EAN/UPC halves kept from other regions.
        linearScanner = try ZBarScanner(symbologies: linear.isEmpty ? symbologies : linear, fresh: true, columns: false)
        matrixScanner = try ZBarScanner(symbologies: symbologies, fresh: true)
        let matrix = symbologies.filter(\.isTwoDimensional)
        expectedMatrixScanner = try ZBarScanner(symbologies: matrix.isEmpty ? symbologies : matrix, fresh: true)
        hasLinear = !linear.isEmpty
    }

    private let hasLinear: Bool

    /// Passes run (zbar scans of a pass image) since this decoder was made.
    private(set) var passes = 0

    /// The codes read in `region` of `luma` (frame pixels), best pass first; empty when no pass reads.
    /// `linearInBlob`: whether a blob of texture (`LocatedRegion.isBlob`) is scanned for 1D codes as
    /// well as 2D ones (`MissLedger.blobScansLinear`).
    func decode(_ region: LocatedRegion, in luma: LumaImage, options: DetectorOptions, linearInBlob: Bool = true) -> [Detection] {
        switch region.kind {
        case .linear where hasLinear: return decodeLinear(region, in: luma, options: options)
        default: return decodeMatrix(region, in: luma, options: options, linearInBlob: linearInBlob)
        }
    }

    // MARK: - Passes

    /// Tries `scales` in turn (each rendered into `work` by `render`), the first also sharpened
    /// (when `sharpenFirst`; `sharpenRadius`, pass pixels), inverted (when its `quiet` sides are
    /// darker than the rest: see `marginIsDarker`; nil: the code is known to be dark on light) and,
    /// with `binarize` (1D strips), sharpened and binarized row by row; with `modulePixels` (1D
    /// strips: a module's width in pass pixels at a scale) and `options.deblur`, the first scale and
    /// scale `deblurAt` (the finest: blur makes a region's measured modules wider than they are)
    /// also deblurred across the bars and binarized (`deblur`); until `read` finds a confirmed code:
    /// read on two or more scan lines (row groups), or a QR code. Returns that, else the best
    /// reading seen (most lines).
    private func firstConfirmed(scales: [Double], options: DetectorOptions, sharpenFirst: Bool = true, binarize: Bool = false,
                                modulePixels: ((Double) -> Double)? = nil, deblurAt: Int = 0,
                                quiet: LumaPlane.QuietSides?, sharpenRadius: (Double) -> Int,
                                render: (Double) -> Void, read: (LumaImage, Double) -> [Detection]) -> [Detection] {
        var best: [Detection] = []
        for (i, scale) in scales.enumerated() {
            render(scale)
            var variants: [(sharpen: Bool, invert: Bool, binarize: Bool, deblur: Bool)] = [(false, false, false, false)]
            if i == 0 {
                if options.sharpen, sharpenFirst { variants.append((true, false, false, false)) }
                // A light-on-dark code lies on dark: its quiet zone is darker than its modules. (On
                // camera clips no code is light on dark; the inverted pass read nothing there.)
                if options.invert, let quiet, work.marginIsDarker(quiet, fraction: Self.quietMargin) {
                    variants.append((false, true, false, false))
                }
                if options.sharpen, binarize { variants.append((true, false, true, false)) }
            }
            if options.deblur, modulePixels != nil, i == 0 || i == deblurAt { variants.append((false, false, true, true)) }
            for v in variants {
                pass = work
                if v.deblur, let modulePixels, !pass.deblur(modulePixels: modulePixels(scale)) { continue }
                passes += 1
                if v.sharpen { pass.sharpenRows(radius: max(1, sharpenRadius(scale))) }
                if v.binarize { pass.binarizeRows() }
                if v.invert { pass.invert() }
                let found = pass.withImage { read($0, scale) }
                if Self.strength(found) > Self.strength(best) { best = found }
                if Self.strength(best) >= 2 { return best }
            }
        }
        return best
    }

    /// The outer part of a pass image taken for its quiet zone, as a fraction of its size: within a
    /// 1D region's quiet ends (15 % each) and a 2D region's margin (7.5 % each side).
    static let quietMargin = 0.05

    /// How far the best of `detections` is confirmed: its agreeing lines, 2 for a QR code.
    private static func strength(_ detections: [Detection]) -> Int {
        detections.map { Detection.isSelfChecking(symbology: $0.symbology) ? max(2, $0.quality) : $0.quality }.max() ?? 0
    }

    /// A rough measure of what decoding `region` costs, to hand out a batch's costliest regions
    /// first: the pixels of its first pass (a 2D region's box, a 1D region's strip).
    static func cost(_ region: LocatedRegion) -> Double {
        cost(region.quad, kind: region.kind)
    }

    /// `cost` of a region of `kind` at `quad` (frame pixels), e.g. a tracked code's before it is measured.
    static func cost(_ quad: Quad, kind: LocatedRegion.Kind) -> Double {
        kind == .matrix ? abs(quad.signedArea) : quad.topLeft.distance(to: quad.topRight) * Double(stripRows)
    }

    // MARK: - 1D strips

    /// Where a 1D region's strip lies in the frame: its top edge from `origin` along `u` (unit,
    /// across the bars) over `length` px, `height` px across it along `d` (unit, along the bars).
    struct StripPlacement: Equatable {
        var origin: Point, u: Point, d: Point
        var length: Double, height: Double

        /// Columns of the strip at `scale` pass pixels per frame pixel.
        func width(_ scale: Double) -> Int { min(4096, max(16, Int(length * scale))) }
    }

    /// `region`'s strip placement, cut to the lines inside the frame; nil for a region too small.
    static func placement(_ region: LocatedRegion, in luma: LumaImage) -> StripPlacement? {
        var q = region.quad
        let length = q.topLeft.distance(to: q.topRight)
        guard length >= 8, q.topLeft.distance(to: q.bottomLeft) >= 2 else { return nil }
        let u = (q.topRight - q.topLeft) * (1 / length), d = (q.bottomLeft - q.topLeft) * (1 / q.topLeft.distance(to: q.bottomLeft))
        // Bars cut by the frame's edge: the strip keeps the lines inside the frame (rows past the
        // edge would be white and read nothing, leaving the code unconfirmed).
        q = Self.clippedAcross(q, u: u, d: d, width: luma.width, height: luma.height)
        let height = q.topLeft.distance(to: q.bottomLeft)
        guard height >= 2 else { return nil }
        return StripPlacement(origin: q.topLeft, u: u, d: d, length: length, height: height)
    }

    /// Pass pixels per frame pixel that make `region`'s modules about `targetModulePixels` wide.
    static func baseScale(_ region: LocatedRegion) -> Double {
        min(4, max(0.25, targetModulePixels / max(0.5, region.moduleSize)))
    }

    private func decodeLinear(_ region: LocatedRegion, in luma: LumaImage, options: DetectorOptions) -> [Detection] {
        guard let p = Self.placement(region, in: luma) else { return [] }
        let base = Self.baseScale(region)
        var scales = [base]
        if options.upscale, base * 2 <= 6 { scales.append(base * 2) }
        if options.downscale, base / 2 * region.moduleSize >= 1.2 { scales.append(base / 2) }
        return firstConfirmed(
            scales: scales, options: options, binarize: true, modulePixels: { $0 * region.moduleSize },
            deblurAt: scales.indices.max { scales[$0] < scales[$1] } ?? 0, quiet: .ends, sharpenRadius: { Int(($0 * region.moduleSize).rounded()) },
            render: { strip(luma, p, width: p.width($0)) },
            read: { image, _ in self.readStrip(image, p, in: luma) })
    }

    /// `region`'s strip at `scale` (pass pixels per frame pixel) as the first pass sees it, with
    /// its placement; nil for a region too small.
    func renderedStrip(_ region: LocatedRegion, in luma: LumaImage, scale: Double) -> (image: LumaPlane, placement: StripPlacement)? {
        guard let p = Self.placement(region, in: luma) else { return nil }
        strip(luma, p, width: p.width(scale))
        return (work, p)
    }

    /// The 1D passes (as is, sharpened, inverted, binarized) on a given strip of `region` placed at
    /// `placement` (e.g. several frames' strips fused), corners in `luma`'s pixels.
    func decode(strip: LumaPlane, placement: StripPlacement, region: LocatedRegion, in luma: LumaImage,
                options: DetectorOptions) -> [Detection] {
        let scale = Double(strip.width) / placement.length
        return firstConfirmed(scales: [scale], options: options, binarize: true, modulePixels: { $0 * region.moduleSize }, quiet: .ends,
                              sharpenRadius: { Int(($0 * region.moduleSize).rounded()) },
                              render: { _ in work = strip }, read: { image, _ in self.readStrip(image, placement, in: luma) })
    }

    /// zbar's 1D readings of the strip `image` placed at `p`, outlines fitted in `luma`.
    private func readStrip(_ image: LumaImage, _ p: StripPlacement, in luma: LumaImage) -> [Detection] {
        let sx = p.length / Double(image.width), sy = p.height / Double(Self.stripRows)
        return linearScanner.scan(image).compactMap { s -> Detection? in
            guard !s.payload.isEmpty, !s.isTwoDimensional else { return nil }
            // Strip pixels → frame: x along the axis, y across the bars (band centres).
            let points = s.points.map { q in p.origin + p.u * ((q.x + 0.5) * sx) + p.d * ((q.y + 0.5) * sy) }
            let reading = s.orientation == ZBAR_ORIENT_DOWN ? p.u * -1 : p.u
            guard let quad = LinearOutline.fit(points: points, reading: reading, axisKnown: true, barEdges: s.barEdges, in: luma),
                  s.isWhole(quad, in: luma) else { return nil }
            // Neighbouring rows share blur: agreement counts once per group of four rows
            // (a quarter of the bars' height), so two agreeing readings are two independent ones.
            let groups = Set(s.points.map { Int($0.y) / Self.rowsPerGroup }).count
            return Detection(symbology: s.name, payload: s.payload, quad: quad, quality: groups)
        }
    }

    /// `q` (a parallelogram along `u`, across `d`) cut across the bars to the lines whose bars
    /// (the middle 70 % of the line; the rest is quiet zone) lie inside the `width` × `height`
    /// frame; `q` itself when fewer than 2 px of it would remain.
    static func clippedAcross(_ q: Quad, u: Point, d: Point, width: Int, height: Int) -> Quad {
        let h = q.topLeft.distance(to: q.bottomLeft)
        var lo = 0.0, hi = h
        // p + d·s within [0, size] on each axis: an interval of s per point and axis.
        for f in [0.15, 0.85] {
            let p = q.topLeft + (q.topRight - q.topLeft) * f
            for (m, dv, size) in [(p.x, d.x, Double(width)), (p.y, d.y, Double(height))] where abs(dv) > 0.05 {
                let a = (0 - m) / dv, b = (size - m) / dv
                lo = max(lo, min(a, b))
                hi = min(hi, max(a, b))
            }
        }
        guard hi - lo >= 2, lo > 0 || hi < h else { return q }
        return Quad([q.topLeft + d * lo, q.topRight + d * lo, q.topRight + d * hi, q.topLeft + d * hi]) ?? q
    }

    /// The `k` in `0..<count` whose points (x + k·dx, y + k·dy) `holdsInside` `luma`: one range,
    /// since the points lie on a line (empty when none does).
    static func columnsInside(_ luma: LumaImage, x: Double, y: Double, dx: Double, dy: Double, count: Int) -> Range<Int> {
        var lo = 0.0, hi = Double(count)
        for (p, s, limit) in [(x, dx, Double(luma.width)), (y, dy, Double(luma.height))] {
            // 1.5 ≤ p + s·k < limit − 2.5
            if s == 0 {
                if p < 1.5 || p >= limit - 2.5 { return 0..<0 }
                continue
            }
            let a = (1.5 - p) / s, b = (limit - 2.5 - p) / s
            lo = max(lo, min(a, b))
            hi = min(hi, max(a, b))
        }
        guard hi > lo else { return 0..<0 }
        var k0 = max(0, Int(lo.rounded(.up))), k1 = min(count, Int(hi.rounded(.up)))
        // Rounding at the ends: each end checked.
        while k0 < k1, !luma.holdsInside(x + dx * Double(k0), y + dy * Double(k0)) { k0 += 1 }
        while k1 > k0, !luma.holdsInside(x + dx * Double(k1 - 1), y + dy * Double(k1 - 1)) { k1 -= 1 }
        return k0..<k1
    }

    /// Fills `work` with the strip: `width` columns along `u` over `length` px, `stripRows` rows,
    /// each the mean of its band of `height / stripRows` px along `d`.
    private func strip(_ luma: LumaImage, _ p: StripPlacement, width: Int) {
        let origin = p.origin, u = p.u, d = p.d, length = p.length, height = p.height
        let rows = Self.stripRows
        work.resize(width: width, height: rows)
        let band = height / Double(rows)
        // Up to four lines per band: enough to average out noise and blur along the bars.
        let taps = min(4, max(1, Int(band.rounded(.up))))
        let stepX = length / Double(width)
        // Along the axis, a box of the source pixels one output pixel spans (when shrinking).
        let tapsX = min(4, max(1, Int(stepX.rounded())))
        let weight = 1.0 / Double(taps * tapsX)
        let fw = Double(luma.width), fh = Double(luma.height)
        // Sample positions along a line step by `du` (one tap along the axis); each row sums its
        // band's lines into `sums`.
        let samples = width * tapsX
        let du = (u.x * stepX / Double(tapsX), u.y * stepX / Double(tapsX))
        if sums.count < width { sums = [Double](repeating: 0, count: width) }
        work.pixels.withUnsafeMutableBufferPointer { dst in
            sums.withUnsafeMutableBufferPointer { sums in
                for r in 0..<rows {
                    for x in 0..<width { sums[x] = 0 }
                    for j in 0..<taps {
                        let s = (Double(r) + (Double(j) + 0.5) / Double(taps)) * band
                        let px = origin.x + d.x * s + du.0 * 0.5, py = origin.y + d.y * s + du.1 * 0.5
                        // A line whose ends lie well inside the frame needs no clamping.
                        let ex = px + du.0 * Double(samples - 1), ey = py + du.1 * Double(samples - 1)
                        let whole = min(px, ex) >= 0.5 && min(py, ey) >= 0.5 && max(px, ex) < fw - 1.5 && max(py, ey) < fh - 1.5
                        // Sample k·tapsX + t of the line goes to column k: a line per t.
                        for t in 0..<tapsX {
                            let x = px + du.0 * Double(t), y = py + du.1 * Double(t)
                            let dx = du.0 * Double(tapsX), dy = du.1 * Double(tapsX)
                            // A line leaving the frame: its columns well inside stepped, the others one by one.
                            let inside = whole ? 0..<width : Self.columnsInside(luma, x: x, y: y, dx: dx, dy: dy, count: width)
                            luma.addLineInside(x: x + dx * Double(inside.lowerBound), y: y + dy * Double(inside.lowerBound), dx: dx, dy: dy,
                                               count: inside.count, into: sums.baseAddress! + inside.lowerBound)
                            func outside(_ k: Int) {
                                let sx = x + dx * Double(k), sy = y + dy * Double(k)
                                // Past the frame's edge: white, the quiet zone zbar needs.
                                sums[k] += sx < 0 || sy < 0 || sx > fw || sy > fh ? 255 : luma.sample(sx, sy)
                            }
                            for k in 0..<inside.lowerBound { outside(k) }
                            for k in inside.upperBound..<width { outside(k) }
                        }
                    }
                    for x in 0..<width { dst[r * width + x] = UInt8(min(255, max(0, sums[x] * weight + 0.5))) }
                }
            }
        }
        work.stretchContrast(maxSpan: 256)
    }

    // MARK: - 2D

    private func decodeMatrix(_ region: LocatedRegion, in luma: LumaImage, options: DetectorOptions, linearInBlob: Bool) -> [Detection] {
        // A code in perspective found on the frame itself comes with its grid; others with their finder patterns.
        let grid = region.grid ?? QRGrid.measure(region.finders, in: luma)
        if let grid {
            let upright = decodeUpright(grid, region, in: luma, options: options)
            if !upright.isEmpty { return upright }
            // The frame-aligned passes are extra ones here: on camera seeds 3, 11, 13 and 17 they read
            // 2 of 173 QR codes whose upright read failed (2 of 4 on the corpus, which gets every pass).
            if options == options.firstPassOnly { return [] }
        }
        // After a failed upright read, the plain pass at the measured scale only: its sharpened
        // and half-size passes cost 7 % of camera seed 37's instructions and changed no camera
        // clip's coverage, nor the corpus's matches (one fast clip lost 0.1 point).
        let afterUpright = grid != nil
        var options = options
        if region.expected, region.finders.isEmpty, region.grid == nil {
            // A tracked QR code whose finder patterns are not found (covered, or blurred past them):
            // zbar's reader needs them too. The first pass and the inverted one only (sharpened, 2× and
            // ½ read 2 of 25 such regions on camera seed 13 and none of 104 on seed 3, at 5 passes' cost).
            let invert = options.invert
            options = options.firstPassOnly
            options.invert = invert
        }
        // Outlined by finder patterns (or tracked): the module size is measured, not guessed.
        let measured = region.verified || region.outlinedByFinderPatterns
        let box = region.quad.boundingBox
        let c = region.quad.center
        let w = box.width * 1.15, h = box.height * 1.15
        guard w >= 8, h >= 8 else { return [] }
        // A QR code at 3 px per module is at most 531 px across: a third of a megapixel per pass at
        // most; a region without measured modules a tenth of a megapixel.
        let cap = ((measured ? 300_000 : 100_000) / (w * h)).squareRoot()
        // The module size is measured on finder patterns (or known from the track); elsewhere it is a guess
        // from the edge density, so such a region is never enlarged.
        let wanted = Self.targetModulePixels / max(0.5, region.moduleSize)
        // Measured regions shrink to no less than 8 px per module: zbar's corners, and so the
        // overlay, keep sub-pixel precision in the frame.
        let base = min(cap, max(0.5, measured ? min(3, max(wanted, min(1, 8 / max(0.5, region.moduleSize))))
                                                     : min(1, wanted)))
        // No pass at twice the size: on the corpus and the camera clips it read nothing the other
        // passes did not.
        var scales = [base]
        if options.downscale, measured, !afterUpright, min(w, h) * base >= 100 { scales.append(base / 2) }
        func map(_ scale: Double) -> AffineMap {
            let ow = max(8, Int(w * scale)), oh = max(8, Int(h * scale))
            return AffineMap.similarity(from: Point(x: Double(ow) / 2, y: Double(oh) / 2), to: c, degrees: 0, scale: 1 / scale)
        }
        let aligned = firstConfirmed(
            // Sharpening needs a module size: only measured regions have one.
            scales: scales, options: options, sharpenFirst: measured && !afterUpright,
            // Finder patterns found (dark-centred rings) make it a dark-on-light code.
            quiet: region.finders.isEmpty && region.grid == nil ? .all : nil,
            sharpenRadius: { Int(($0 * region.moduleSize / 2).rounded()) },
            render: { scale in
                work.resample(luma, map: map(scale), width: max(8, Int(w * scale)), height: max(8, Int(h * scale)))
                work.stretchContrast(maxSpan: 256)
            },
            read: { image, scale in
                // A QR code's own outline (its three finder patterns, or its track) holds no 1D code; a
                // blob of texture may, when first seen at its place.
                let scanner = region.isBlob && linearInBlob ? self.matrixScanner : self.expectedMatrixScanner
                return scanner.scan(image).compactMap { $0.detection(in: image, map: map(scale)) }
            })
        // Finder patterns whose squares do not fit and no pass read: round ones (camera seed 59's
        // design code), sampled module by module.
        if aligned.isEmpty, grid == nil, let centred = QRGrid.measure(centres: region.finders, in: luma) {
            return decodeSampled(centred, in: luma)
        }
        return aligned
    }

    /// Pixels per module of a QR code turned upright by its grid (`decodeUpright`).
    static let uprightModulePixels = 3.0
    /// Quiet zone around a QR code turned upright, modules (the standard's 4).
    static let uprightQuietModules = 4.0

    /// A QR code outlined by its finder patterns, turned upright and flat by its measured grid
    /// (`QRGrid`, which holds in perspective) and read at `uprightModulePixels`: a fraction of the
    /// pixels the frame-aligned passes need to keep sub-pixel corners, which come from the grid
    /// here. Empty when no pass reads.
    private func decodeUpright(_ grid: QRGrid, _ region: LocatedRegion, in luma: LumaImage, options: DetectorOptions) -> [Detection] {
        let k = Self.uprightModulePixels, quiet = Self.uprightQuietModules
        let (map, width) = grid.upright(pixelsPerModule: k, quiet: quiet)
        // The code's own outline in the upright image, where zbar must find it.
        let n = Double(grid.size)
        let expected = [Point(x: quiet, y: quiet), Point(x: quiet, y: quiet + n), Point(x: quiet + n, y: quiet + n),
                        Point(x: quiet + n, y: quiet)].map { $0 * k }
        // Up to 2 × 2 samples a pixel: enough against aliasing at a third of a module.
        let taps = min(2, max(1, Int((region.moduleSize / k).rounded(.up))))
        return firstConfirmed(
            scales: [1], options: options, quiet: nil, sharpenRadius: { _ in max(1, Int((k / 2).rounded())) },
            render: { _ in
                work.resample(luma, map: map, width: width, height: width, taps: taps)
                work.stretchContrast(maxSpan: 256)
            },
            read: { image, _ in
                self.expectedMatrixScanner.scan(image).compactMap { s -> Detection? in
                    // This code, not a neighbour reaching into its quiet zone, turned as the grid says: zbar's
                    // corners (top-left, bottom-left, bottom-right, top-right) on the grid's, within two modules.
                    guard s.isTwoDimensional, !s.payload.isEmpty, s.points.count == 4,
                          zip(s.points, expected).allSatisfy({ $0.distance(to: $1) <= 2 * k }) else { return nil }
                    return Detection(symbology: s.name, payload: s.payload, quad: grid.quad, quality: s.quality)
                }
            })
    }
}

extension RegionDecoder {
    /// Pixels per module of a QR code redrawn from its sampled modules (`decodeSampled`).
    static let sampledModulePixels = 3

    /// A QR code whose finder patterns' squares do not fit (round "design" patterns, often with
    /// dots for modules: zbar reads neither), read from its modules sampled on a grid fitted to the
    /// patterns' centres (`QRGrid.measure(centres:)`) and redrawn as square modules with standard
    /// finder patterns and quiet zone. Its error correction still stands between a wrong sample and a
    /// wrong reading. Empty when zbar reads nothing.
    func decodeSampled(_ grid: QRGrid, in luma: LumaImage) -> [Detection] {
        let n = grid.size, k = Self.sampledModulePixels, quiet = Int(Self.uprightQuietModules)
        let dark = grid.modules(in: luma)
        let width = (n + 2 * quiet) * k
        var pixels = [UInt8](repeating: 255, count: width * width)
        for y in 0..<n {
            for x in 0..<n where QRGrid.finderModule(x: x, y: y, size: n) ?? dark[y * n + x] {
                for py in ((y + quiet) * k)..<((y + quiet + 1) * k) {
                    for px in ((x + quiet) * k)..<((x + quiet + 1) * k) { pixels[py * width + px] = 0 }
                }
            }
        }
        let image = LumaPlane(width: width, height: width, pixels: pixels)
        return image.withImage { expectedMatrixScanner.scan($0) }.compactMap { s in
            guard s.isTwoDimensional, !s.payload.isEmpty else { return nil }
            return Detection(symbology: s.name, payload: s.payload, quad: grid.quad, quality: s.quality)
        }
    }
}

/// The Otsu level of `histogram` (counts of grey levels 0 … 255): the split into a dark class (at
/// or below it) and a light one that maximises the between-class variance; 128 when none splits.
func otsuLevel(_ histogram: [Int]) -> Int {
    let count = histogram.reduce(0, +)
    let sum = histogram.indices.reduce(0) { $0 + $1 * histogram[$1] }
    var below = 0, belowSum = 0, best = 0.0, level = 128
    for t in 0..<255 {
        below += histogram[t]
        belowSum += t * histogram[t]
        let above = count - below
        guard below > 0, above > 0 else { continue }
        let m0 = Double(belowSum) / Double(below), m1 = Double(sum - belowSum) / Double(above)
        let between = Double(below) * Double(above) * (m0 - m1) * (m0 - m1)
        if between > best {
            best = between
            level = t
        }
    }
    return level
}

extension Symbology {
    /// QR and SQ codes: matrix symbologies with their own error correction.
    var isTwoDimensional: Bool { type == ZBAR_QRCODE || type == ZBAR_SQCODE }
}

extension LumaPlane {
    /// Each row black (0) or white (255) at its own Otsu threshold: bars blurred so much that
    /// narrow ones never get dark (zbar's edge detector misses them) still fall below it once
    /// sharpened.
    mutating func binarizeRows() {
        let w = width
        pixels.withUnsafeMutableBufferPointer { px in
            var histogram = [Int](repeating: 0, count: 256)
            for y in 0..<height {
                for i in 0..<256 { histogram[i] = 0 }
                for x in 0..<w { histogram[Int(px[y * w + x])] += 1 }
                let threshold = otsuLevel(histogram)
                for x in 0..<w { px[y * w + x] = Int(px[y * w + x]) <= threshold ? 0 : 255 }
            }
        }
    }

    /// Unsharp mask along rows: `v + (v − mean of the pixels `radius` to each side)`, which steepens
    /// bar edges blurred across the bars.
    mutating func sharpenRows(radius: Int) {
        let w = width
        pixels.withUnsafeMutableBufferPointer { px in
            var row = [Int](repeating: 0, count: w)
            for y in 0..<height {
                for x in 0..<w { row[x] = Int(px[y * w + x]) }
                for x in 0..<w {
                    let l = row[max(0, x - radius)], r = row[min(w - 1, x + radius)]
                    let v = 2 * row[x] - (l + r) / 2
                    px[y * w + x] = UInt8(min(255, max(0, v)))
                }
            }
        }
    }
}
