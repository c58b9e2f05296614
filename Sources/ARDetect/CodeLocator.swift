import ARCore
import Foundation

/// A code-like region found by `CodeLocator`, before any decoding.
public struct LocatedRegion: Hashable, Sendable {
    /// The kind of code the region looks like.
    public enum Kind: String, Hashable, Sendable {
        /// Parallel bars (EAN/UPC, Code 128, Code 39, ITF, …).
        case linear = "1D"
        /// A 2D matrix (QR).
        case matrix = "2D"
    }

    public var kind: Kind
    /// Oriented box in frame pixels, quiet zone included, clockwise. For a 1D region the top edge
    /// runs across the bars (top-left → top-right along `axisDegrees`).
    public var quad: Quad
    /// 1D: direction across the bars; 2D: the grid's direction modulo 90°. Degrees clockwise on
    /// screen from the x axis.
    public var axisDegrees: Double
    /// Estimated width of the narrowest bar or module, frame pixels.
    public var moduleSize: Double
    /// Ranking: bigger and denser regions first.
    public var score: Double
    /// Whether the region passed the strict check (1D: at least `CodeLocator.minEdges` bar edges
    /// whose profile agrees across the bars' height, which is at least a tenth of their length; 2D: one QR code's three finder patterns; the region is then that code alone). Only
    /// verified regions are reported as located when no pass decodes them.
    public var verified: Bool
    /// A QR code's three finder patterns outline the region (its timing patterns may still be
    /// unreadable, e.g. blurred): always worth decoding, verified only with its timing patterns.
    public var outlinedByFinderPatterns = false
    /// The module grid of the QR code in perspective the region holds (its three finder patterns
    /// are not a right isosceles triangle, and fit this grid), measured on the frame itself.
    public var grid: QRGrid?
    /// The three finder patterns of the QR code the region holds, its top-left one first, when they
    /// outline it (without a `grid`, its grid is measured from them when it is decoded).
    var finders: [FinderPattern] = []
    /// Where a track expects a code of this kind (`CodeLocator.region(around:kind:in:)`): read with
    /// that kind's decoders only, since a reading of another kind there confirms nothing.
    public var expected = false

    /// Bar edges counted across a 1D region (its densest band); 0 when not measured.
    var barEdges = 0

    /// Whether this 1D region is a code of its own lying on `coarse` (a 1D region found on a coarser
    /// level), not a piece of it: bars enough for a code (`CodeLocator.minEdges`) of a module finer
    /// than a piece's can be (`CodeLocator.joinsPieces`).
    func isFinerCode(on coarse: LocatedRegion) -> Bool {
        kind == .linear && coarse.kind == .linear && barEdges >= CodeLocator.minEdges && 1.5 * moduleSize < coarse.moduleSize
    }

    /// A blob of texture: a 2D region outlined neither by finder patterns nor by a track (so not
    /// verified), where a code may be (a QR code whose patterns were not found, a 1D code among
    /// other texture).
    public var isBlob: Bool { kind == .matrix && !expected && !outlinedByFinderPatterns && !verified }
}

/// A code already followed at a place (e.g. a live track), left to its own re-decode by a scan.
public struct KnownCode: Hashable, Sendable {
    /// Outline, frame pixels.
    public var quad: Quad
    /// The kind of region the code is read in; nil: unknown (a region or a reading of either kind
    /// on it is taken for that code).
    public var kind: LocatedRegion.Kind?

    /// A code at `quad` (frame pixels) read in regions of `kind` (nil: unknown).
    public init(quad: Quad, kind: LocatedRegion.Kind? = nil) {
        self.quad = quad
        self.kind = kind
    }

    /// Whether a region or reading of `kind` at this code's place can be this code: another kind
    /// is another code (a 1D label stuck over a tracked QR code).
    func isSame(kind other: LocatedRegion.Kind) -> Bool {
        kind.map { $0 == other } ?? true
    }
}

extension LocatedRegion.Kind {
    /// The kind of region a code of `symbology` is read in.
    public init(symbology: String) {
        self = Detection.isSelfChecking(symbology: symbology) ? .matrix : .linear
    }
}

/// Finds code-like regions from gradient statistics on a grid of cells (`cell` pixels square,
/// gradients sampled every other pixel, i.e. on a half-resolution grid), then measures each region:
/// 1D regions are trimmed to their first and last bar edge, their module size estimated from the
/// edges' count and checked for bars that run across their whole height; 2D regions are searched
/// for QR finder patterns. Cheap enough for every frame (a tenth of a zbar scan). Pure Swift.
public struct CodeLocator: Sendable {
    /// Cell size, pixels.
    public var cell = 16
    /// A gradient (central difference over 2 px) above this many grey levels counts as an edge.
    public var edgeThreshold = 24
    /// A cell is textured when at least this fraction of its samples are edges.
    public var minEdgeFraction = 0.15
    /// A textured cell whose gradients agree at least this much belongs to a 1D code.
    public var minCoherence = 0.65
    /// Fewest bar edges of a verified 1D region (an EAN-8 has 43, a 3-character Code 39 about 30).
    public static let minEdges = 30
    /// Least mean correlation of a verified 1D region's band profiles with their mean.
    public static let minBandAgreement = 0.85

    public init() {}

    private struct Cell {
        var jxx = 0.0, jyy = 0.0, jxy = 0.0
        /// Sums of cos 4φ and sin 4φ weighted by gradient magnitude: a grid's orientation mod 90°.
        var c4 = 0.0, s4 = 0.0
        var edges = 0, samples = 0
        var textured = false
        /// Inside a known 2D code: in no blob, but in 1D groups (a label stuck over the code).
        var onKnown2D = false
        var coherence = 0.0, angle = 0.0
    }

    /// Coarser levels searched too (each half the size of the one before), for codes whose bars
    /// are wider than a cell's edge density can show.
    public var coarseLevels = 2

    /// Code-like regions of `luma`, best first (ties in scan order: deterministic). Regions found
    /// on a coarser level are kept where no finer level found one. A group of cells lying wholly
    /// inside one of `skipping` (e.g. tracked codes, re-decoded on their own) is not measured: its
    /// region would be that code. Cells on a known 2D code join no blob but may join a 1D group
    /// reaching out of it (a label stuck over it); other skipped codes' cells join no group.
    ///
    /// `forEach(n, body)` calls `body` for every index in `0..<n` and returns when all have
    /// returned; a caller with threads passes one that spreads the calls over them (each call
    /// writes only its own result: the regions do not depend on the split).
    ///
    /// `halvings`: `luma` halved once, twice, … (2×2 box filter, as `LumaPlane.halved`), when the
    /// caller has them (a tracker's pyramid); the coarser levels not given are computed.
    public func regions(in luma: LumaImage, skipping: [KnownCode] = [],
                        forEach: (Int, @escaping (Int) -> Void) -> Void = { n, body in for i in 0..<n { body(i) } },
                        halvings: [LumaPlane] = []) -> [LocatedRegion] {
        var out = regionsAtOneScale(luma, skipping: skipping, forEach: forEach)
        /// Level `k` (1 = half size) halved from `finer`: the caller's when it has it.
        func coarser(_ k: Int, _ finer: LumaImage) -> LumaPlane? {
            if k - 1 < halvings.count, halvings[k - 1].width == finer.width / 2, halvings[k - 1].height == finer.height / 2,
               finer.width / 2 >= 4 * cell, finer.height / 2 >= 4 * cell {
                return halvings[k - 1]
            }
            return self.coarser(finer)
        }
        var level = coarser(1, luma)
        var scale = 1.0
        for k in 0..<coarseLevels {
            guard let next = level else { break }
            defer { level = next.withImage { coarser(k + 2, $0) } }
            scale *= 2
            let skip = skipping.map { KnownCode(quad: $0.quad.scaled(sx: 1 / scale, sy: 1 / scale), kind: $0.kind) }
            for var r in next.withImage({ regionsAtOneScale($0, skipping: skip, forEach: forEach) }) {
                r.quad = r.quad.scaled(sx: scale, sy: scale)
                r.moduleSize *= scale
                // A grid measured on a coarser level is measured again on the frame when decoded.
                r.grid = nil
                r.finders = r.finders.map { FinderPattern(centre: $0.centre * scale, moduleSize: $0.moduleSize * scale) }
                let overlapping = out.indices.filter { out[$0].quad.contains(r.quad.center) || r.quad.contains(out[$0].quad.center) }
                if overlapping.isEmpty {
                    out.append(r)
                } else if joinsPieces(r, overlapping.map { out[$0] }) {
                    // A finer code lying on its bars (a label over a poster's code) is no piece of
                    // it: kept beside it.
                    let pieces = overlapping.filter { !out[$0].isFinerCode(on: r) }
                    out = out.indices.filter { !pieces.contains($0) }.map { out[$0] } + [r]
                }
            }
        }
        return Self.ranked(out)
    }

    /// Whether `whole` (a coarser level's region) is a 1D code that the finer level saw in pieces
    /// only: spaces between its bars wider than a cell (modules of a quarter cell or more) split it
    /// there into regions that are too short to verify, or shorter than it (the bars each piece
    /// reached, of about its module). It then stands for those pieces. It must be verified and hold
    /// each piece's centre; no piece may be outlined by finder patterns (a QR code of its own).
    func joinsPieces(_ whole: LocatedRegion, _ pieces: [LocatedRegion]) -> Bool {
        func length(_ r: LocatedRegion) -> Double { r.quad.topLeft.distance(to: r.quad.topRight) }
        guard whole.kind == .linear, whole.verified, whole.moduleSize >= Double(cell) / 4 else { return false }
        return pieces.allSatisfy { piece in
            guard !piece.outlinedByFinderPatterns, whole.quad.contains(piece.quad.center) else { return false }
            guard piece.verified else { return true }
            return piece.kind == .linear && length(piece) < 0.9 * length(whole)
                && max(piece.moduleSize, whole.moduleSize) <= 1.5 * min(piece.moduleSize, whole.moduleSize)
        }
    }

    /// `image` halved, when the result still holds a few cells each way.
    private func coarser(_ image: LumaImage) -> LumaPlane? {
        image.width / 2 >= 4 * cell && image.height / 2 >= 4 * cell ? LumaPlane.halved(image) : nil
    }

    /// Regions by score; ties in scan order.
    private static func ranked(_ regions: [LocatedRegion]) -> [LocatedRegion] {
        regions.enumerated().sorted { a, b in
            a.element.score != b.element.score ? a.element.score > b.element.score : a.offset < b.offset
        }.map(\.element)
    }

    private func regionsAtOneScale(_ luma: LumaImage, skipping: [KnownCode], forEach: (Int, @escaping (Int) -> Void) -> Void)
        -> [LocatedRegion] {
        let cols = luma.width / cell, rows = luma.height / cell
        guard cols >= 2, rows >= 2 else { return [] }
        // Cells in bands of rows, a band per call.
        var cells = [Cell](repeating: Cell(), count: cols * rows)
        let bands = min(rows, 8)
        cells.withUnsafeMutableBufferPointer { out in
            let out = out  // each band writes its own rows only
            forEach(bands) { b in
                let band = (b * rows / bands)..<((b + 1) * rows / bands)
                self.measureCells(luma, cols: cols, rows: band, into: out)
                for i in (band.lowerBound * cols)..<(band.upperBound * cols) where out[i].samples > 0 {
                    let c = out[i]
                    out[i].textured = Double(c.edges) >= self.minEdgeFraction * Double(c.samples)
                    let trace = c.jxx + c.jyy
                    if trace > 0 {
                        out[i].coherence = ((c.jxx - c.jyy) * (c.jxx - c.jyy) + 4 * c.jxy * c.jxy).squareRoot() / trace
                        out[i].angle = 0.5 * atan2(2 * c.jxy, c.jxx - c.jyy)
                    }
                }
            }
        }
        // Cells inside a skipped code (tracked, re-decoded on its own) join no group: a blob around
        // a tracked code is searched without the code's own modules. Those of a known 2D code still
        // join 1D groups: a 1D label stuck over it reaches out of it (a group wholly inside it is
        // dropped below).
        for k in skipping {
            let q = k.quad, box = q.boundingBox
            let c0 = max(0, Int(box.minX) / cell), c1 = min(cols - 1, Int(box.maxX) / cell)
            let r0 = max(0, Int(box.minY) / cell), r1 = min(rows - 1, Int(box.maxY) / cell)
            guard c0 <= c1, r0 <= r1 else { continue }
            for r in r0...r1 {
                for c in c0...c1 where q.contains(centre(r * cols + c, cols: cols)) {
                    if k.kind == .matrix { cells[r * cols + c].onKnown2D = true } else { cells[r * cols + c].textured = false }
                }
            }
        }
        var out: [LocatedRegion] = []
        // 1D groups (coherent cells of one direction) and blobs (any textured cells), side by side.
        var grouped = [[[Int]]](repeating: [], count: 2)
        grouped.withUnsafeMutableBufferPointer { found in
            let found = found  // each call writes its own index only
            let cells = cells
            forEach(2) { k in
                found[k] = k == 0
                    ? self.components(cells, cols: cols, rows: rows, minCells: 2, member: { $0.textured && $0.coherence >= self.minCoherence },
                                      joins: { a, b in axisDifference(a.angle, b.angle) < 0.3 })
                    : self.components(cells, cols: cols, rows: rows, minCells: 4, member: { $0.textured && !$0.onKnown2D }, joins: { _, _ in true })
            }
        }
        let linearGroups = grouped[0]
        // Skip quads grown by a cell each way: a code's edge cells straddle its outline.
        let skip = skipping.map { $0.quad.grown(by: 1, plus: Double(cell)) }
        func skipped(_ group: [Int]) -> Bool {
            skip.contains { q in group.allSatisfy { q.contains(centre($0, cols: cols)) } }
        }
        let linear = linearGroups.filter { !skipped($0) }
        let blobs = grouped[1].filter { !skipped($0) }
        // Each group measured in its own call; results kept in group order.
        var measured = [[LocatedRegion]](repeating: [], count: linear.count + blobs.count)
        measured.withUnsafeMutableBufferPointer { found in
            let found = found  // each call writes its own index only
            let cells = cells
            // Largest groups first (a large blob's finder search, a long group's profiles).
            let groups = linear + blobs
            let order = DecodePool.costliestFirst(groups.map { Double($0.count) })
            forEach(groups.count) { k in
                let i = order[k]
                found[i] = i < linear.count ? self.linear(linear[i], cells: cells, cols: cols, luma: luma).map { [$0] } ?? []
                                            : self.matrix(blobs[i - linear.count], cells: cells, cols: cols, luma: luma, skipping: skipping.map(\.quad))
            }
        }
        // Two blobs reaching over one QR code both outline it by its finder patterns: it is decoded
        // once, as the higher-scoring one's (the other's score is no ranking of the code).
        for r in measured.joined() {
            if let i = out.firstIndex(where: { $0.outlinedByFinderPatterns && r.outlinedByFinderPatterns && $0.quad == r.quad && $0.finders == r.finders }) {
                if r.score > out[i].score { out[i] = r }
            } else {
                out.append(r)
            }
        }
        return Self.withoutBlobsAroundLinear(out)
    }

    /// `regions` without the 2D blobs around a 1D region (any 2D region around a verified one): such
    /// a blob is that code with its surroundings. A region outlined by three finder patterns is a QR
    /// code of its own, kept even when its box reaches over a 1D code's centre (a QR card turned on
    /// a poster's bars: its upright box is half as large again as the code).
    static func withoutBlobsAroundLinear(_ regions: [LocatedRegion]) -> [LocatedRegion] {
        regions.filter { r in
            r.kind == .linear || r.outlinedByFinderPatterns || !regions.contains {
                $0.kind == .linear && ($0.verified || !r.verified) && r.quad.contains($0.quad.center)
                    && abs($0.quad.signedArea) >= 0.3 * abs(r.quad.signedArea)
            }
        }
    }

    // MARK: - Cells

    /// Gradient statistics of the cells in `rows` (of `cols` columns) written into `cells`: every
    /// second pixel of every second row, cell by cell (its sums kept in registers and stored once;
    /// each row's sums feed the 4φ terms as they are made, in row order).
    private func measureCells(_ luma: LumaImage, cols: Int, rows: Range<Int>, into cells: UnsafeMutableBufferPointer<Cell>) {
        let t = edgeThreshold, stride = luma.stride
        for r in rows {
            let yStart = max(1, r * cell), yEnd = min(luma.height - 1, (r + 1) * cell)
            for c in 0..<cols {
                let xStart = max(1, c * cell), xEnd = min(luma.width - 1, (c + 1) * cell)
                // A whole cell of 16 inside the frame: its 8 samples a row at once (the same sums).
                let whole = cell == 16 && c > 0 && xEnd == xStart + 16
                var jxx = 0, jyy = 0, jxy = 0, edges = 0, samples = 0
                var c4 = 0.0, s4 = 0.0
                var row = luma.base + yStart * stride
                for _ in Swift.stride(from: yStart, to: yEnd, by: 2) {
                    let above = row - stride, below = row + stride
                    var rxx = 0, ryy = 0, rxy = 0
                    if whole {
                        let (xx, yy, xy, e) = Self.gradientSums(left: row + xStart - 1, above: above + xStart, below: below + xStart, threshold: t)
                        rxx = xx; ryy = yy; rxy = xy
                        edges += e
                        samples += 8
                    } else {
                        for x in Swift.stride(from: xStart, to: xEnd, by: 2) {
                            let gx = Int(row.load(fromByteOffset: x + 1, as: UInt8.self)) - Int(row.load(fromByteOffset: x - 1, as: UInt8.self))
                            let gy = Int(below.load(fromByteOffset: x, as: UInt8.self)) - Int(above.load(fromByteOffset: x, as: UInt8.self))
                            if abs(gx) + abs(gy) > t {
                                edges += 1
                                rxx += gx * gx; ryy += gy * gy; rxy += gx * gy
                            }
                            samples += 1
                        }
                    }
                    jxx += rxx; jyy += ryy; jxy += rxy
                    // (gx + i·gy)⁴ / |g|² summed over the row: magnitude-weighted cos 4φ, sin 4φ.
                    let p = Double(rxx - ryy), q = Double(2 * rxy)
                    let m = Double(rxx + ryy)
                    if m > 0 {
                        c4 += (p * p - q * q) / m
                        s4 += 2 * p * q / m
                    }
                    row += 2 * stride
                }
                let i = r * cols + c
                cells[i].jxx = Double(jxx); cells[i].jyy = Double(jyy); cells[i].jxy = Double(jxy)
                cells[i].edges = edges; cells[i].samples = samples
                cells[i].c4 = c4; cells[i].s4 = s4
            }
        }
    }

    /// Gradient sums over pixels x = 0, 2, …, 14 of a row (central differences: `left` points at
    /// pixel −1, `above` and `below` at pixel 0 of the rows around): Σ gx², Σ gy², Σ gx·gy and
    /// the count over the pixels whose |gx| + |gy| exceeds `threshold`. Reads 18 bytes from `left`
    /// and 16 from the others.
    @inline(__always)
    static func gradientSums(left: UnsafeRawPointer, above: UnsafeRawPointer, below: UnsafeRawPointer,
                             threshold: Int) -> (Int, Int, Int, Int) {
        // 16-bit lanes (every SSE2 step one instruction): the even pixels are the low bytes of a
        // 16-byte load's 16-bit words. |g| ≤ 255, so g² and |gx·gy| fit 16 bits unsigned; the
        // products' signs are kept apart and the sums widened to 32 bits.
        let low = SIMD8<UInt16>(repeating: 0x00FF)
        func even(_ p: UnsafeRawPointer) -> SIMD8<Int16> {
            unsafeBitCast(unsafeBitCast(p.loadUnaligned(as: SIMD16<UInt8>.self), to: SIMD8<UInt16>.self) & low, to: SIMD8<Int16>.self)
        }
        let gx = even(left + 2) &- even(left), gy = even(below) &- even(above)
        let zero = SIMD8<Int16>(repeating: 0)
        let ax = pointwiseMax(gx, zero &- gx), ay = pointwiseMax(gy, zero &- gy)
        let strong = (ax &+ ay) .> SIMD8<Int16>(repeating: Int16(clamping: threshold))
        let mx = unsafeBitCast(zero.replacing(with: ax, where: strong), to: SIMD8<UInt16>.self)
        let my = unsafeBitCast(zero.replacing(with: ay, where: strong), to: SIMD8<UInt16>.self)
        // All ones where gx·gy < 0.
        let negative = unsafeBitCast((gx ^ gy) &>> 15, to: SIMD8<UInt16>.self)
        let xy = mx &* my
        // Each vector's 16-bit lanes added in pairs to 32 bits, then the four vectors summed at
        // once (pairwise adds of their even and odd lanes, twice).
        func pairs(_ v: SIMD8<UInt16>) -> SIMD4<UInt32> {
            let words = unsafeBitCast(v, to: SIMD4<UInt32>.self)
            return (words & 0xFFFF) &+ (words &>> 16)
        }
        func halves(_ a: SIMD4<UInt32>, _ b: SIMD4<UInt32>) -> SIMD4<UInt32> {
            let both = SIMD8(lowHalf: a, highHalf: b)
            return both.evenHalf &+ both.oddHalf
        }
        let sums = halves(halves(pairs(mx &* mx), pairs(my &* my)), halves(pairs(xy & ~negative), pairs(xy & negative)))
        let count = zero.replacing(with: 1, where: strong)
        return (Int(sums[0]), Int(sums[1]), Int(sums[2]) - Int(sums[3]), Int(count.wrappedSum()))
    }

    /// Connected groups (8-neighbourhood) of member cells, as cell indices.
    private func components(_ cells: [Cell], cols: Int, rows: Int, minCells: Int, member: (Cell) -> Bool,
                            joins: (Cell, Cell) -> Bool) -> [[Int]] {
        var label = [Bool](repeating: false, count: cells.count)
        var out: [[Int]] = []
        for seed in cells.indices where !label[seed] && member(cells[seed]) {
            var group: [Int] = [], stack = [seed]
            label[seed] = true
            while let i = stack.popLast() {
                group.append(i)
                let r = i / cols, c = i % cols
                for dr in -1...1 {
                    for dc in -1...1 {
                        let nr = r + dr, nc = c + dc
                        guard nr >= 0, nr < rows, nc >= 0, nc < cols else { continue }
                        let j = nr * cols + nc
                        if !label[j], member(cells[j]), joins(cells[i], cells[j]) {
                            label[j] = true
                            stack.append(j)
                        }
                    }
                }
            }
            if group.count >= minCells { out.append(group) }
        }
        return out
    }

    private func centre(_ i: Int, cols: Int) -> Point {
        Point(x: (Double(i % cols) + 0.5) * Double(cell), y: (Double(i / cols) + 0.5) * Double(cell))
    }

    // MARK: - 1D

    private func linear(_ group: [Int], cells: [Cell], cols: Int, luma: LumaImage) -> LocatedRegion? {
        var jxx = 0.0, jyy = 0.0, jxy = 0.0, score = 0.0
        for i in group {
            jxx += cells[i].jxx; jyy += cells[i].jyy; jxy += cells[i].jxy
            score += Double(cells[i].edges) / Double(max(1, cells[i].samples))
        }
        let pts = group.map { centre($0, cols: cols) }
        let mean = pts.reduce(Point(x: 0, y: 0), +) * (1 / Double(pts.count))
        // The gradients' direction, then refined by how far the bars shift between parallel lines
        // (gradients over 2 px alias on fine bars).
        let coarse = 0.5 * atan2(2 * jxy, jxx - jyy)
        let u0 = Point(x: cos(coarse), y: sin(coarse))
        let ts0 = pts.map { dot($0 - mean, u0) }
        // Bars span at least three cells across (checked again on the refined axis below): most
        // groups of text strokes and texture stop here, before the costlier measurements.
        guard ts0.max()! - ts0.min()! + 3 * Double(cell) >= 5 * Double(cell) else { return nil }
        let u = LinearOutline.refineAxis(u0, centre: mean, span: [ts0.min()! - Double(cell) / 2, ts0.max()! + Double(cell) / 2], in: luma)
        let d = Point(x: -u.y, y: u.x)
        let ts = pts.map { dot($0 - mean, u) }, ss = pts.map { dot($0 - mean, d) }
        // Cell centres: half a cell in, then a margin for the quiet zone and the cells at the ends.
        let half = Double(cell) * 0.5
        let t0 = ts.min()! - half - Double(cell), t1 = ts.max()! + half + Double(cell)
        let s0 = ss.min()! - half, s1 = ss.max()! + half
        // Bars span at least three cells across, and a code is not much taller than wide: a long
        // thin run of parallel edges is a border or a shadow.
        guard t1 - t0 >= 5 * Double(cell), t1 - t0 >= 0.4 * (s1 - s0) else { return nil }
        // The profile reaches past the cells (a code's end cells may hold too few edges to count).
        return measuredLinear(centre: mean, u: u, t0: t0, t1: t1, s0: s0, s1: s1, reach: max(2 * Double(cell), 0.25 * (t1 - t0)),
                              score: score, luma: luma)
    }

    /// The 1D region across `t0…t1` along `u` and `s0…s1` across it (pixels from `centre`): its bar
    /// profile measured out to `reach` beyond the ends, trimmed to the bars plus a quiet zone.
    private func measuredLinear(centre mean: Point, u: Point, t0: Double, t1: Double, s0: Double, s1: Double, reach: Double,
                                score: Double, luma: LumaImage) -> LocatedRegion {
        var t0 = t0, t1 = t1
        let d = Point(x: -u.y, y: u.x)
        var module = Double(cell) / 4
        var verified = false
        var edges = 0
        let profile = BarProfile(luma: luma, centre: mean, u: u, d: d, t0: t0 - reach, t1: t1 + reach, s0: s0 + 2, s1: s1 - 2)
        if let m = profile.measure() {
            module = m.moduleSize
            edges = m.edges
            // A line of text is much longer than tall; bars are at least a tenth as tall as long.
            verified = m.edges >= Self.minEdges && m.agreement >= Self.minBandAgreement
                && s1 - s0 >= max(10, 0.1 * (m.lastEdge - m.firstEdge))
            // The bars' span plus a quiet zone of ten modules (zbar needs it) on each side.
            t0 = m.firstEdge - 10 * module
            t1 = m.lastEdge + 10 * module
        }
        func p(_ t: Double, _ s: Double) -> Point { mean + u * t + d * s }
        var region = LocatedRegion(kind: .linear,
                                   quad: Quad(topLeft: p(t0, s0), topRight: p(t1, s0), bottomRight: p(t1, s1), bottomLeft: p(t0, s1)),
                                   axisDegrees: atan2(u.y, u.x) * 180 / .pi, moduleSize: module, score: score, verified: verified)
        region.barEdges = edges
        return region
    }

    /// The region where a tracked code of `kind` is expected at `quad` (frame pixels, clockwise from
    /// the code's own top-left), measured like a located one: a 1D code's bars along its top edge,
    /// a QR code's finder patterns. Always verified (the track is the evidence).
    public func region(around quad: Quad, kind: LocatedRegion.Kind, in luma: LumaImage) -> LocatedRegion {
        // The code may have moved a little from where it is expected: a quarter more, and 8 px.
        let c = quad.center
        let quad = quad.grown(by: 1.25, plus: 8)
        switch kind {
        case .linear:
            let along = quad.topRight - quad.topLeft
            let length = max(1, (along.x * along.x + along.y * along.y).squareRoot())
            let u = along * (1 / length), d = Point(x: -u.y, y: u.x)
            let ts = quad.corners.map { dot($0 - c, u) }, ss = quad.corners.map { dot($0 - c, d) }
            var r = measuredLinear(centre: c, u: u, t0: ts.min()!, t1: ts.max()!, s0: ss.min()!, s1: ss.max()!,
                                   reach: 0.25 * length, score: 0, luma: luma)
            r.verified = true
            r.expected = true
            return r
        case .matrix:
            let box = quad.boundingBox
            let finders = FinderPattern.find(in: luma, box: Self.grown(box, by: 0.1))
            let module = finders.isEmpty ? quad.meanSide / 25 : finders.map(\.moduleSize).reduce(0, +) / Double(finders.count)
            let codes = FinderPattern.qrCodes(finders, in: luma)
            return LocatedRegion(kind: .matrix, quad: quad, axisDegrees: quad.rotationDegrees, moduleSize: module, score: 0,
                                 verified: true, grid: codes.count == 1 ? codes[0].grid : nil, finders: codes.count == 1 ? codes[0].finders : [],
                                 expected: true)
        }
    }

    private static func grown(_ r: Rect, by f: Double) -> Rect {
        Rect(x: r.minX - r.width * f, y: r.minY - r.height * f, width: r.width * (1 + 2 * f), height: r.height * (1 + 2 * f))
    }

    // MARK: - 2D

    /// One region per QR code whose three finder patterns lie in the blob (tight, verified, its
    /// module measured), else the blob itself (unverified).
    /// The QR codes a blob's finder patterns outline, and the blob itself when patterns are left
    /// over or none is seen; patterns inside `skipping` (tracked codes) are left out.
    private func matrix(_ group: [Int], cells: [Cell], cols: Int, luma: LumaImage, skipping: [Quad]) -> [LocatedRegion] {
        /// Whether `outline` wholly holds `code`, at most half its area.
        func holds(_ outline: Quad, _ code: Quad) -> Bool {
            code.corners.allSatisfy(outline.contains) && abs(code.signedArea) <= abs(outline.signedArea) / 2
        }
        var minC = Int.max, maxC = Int.min, minR = Int.max, maxR = Int.min, score = 0.0
        var c4 = 0.0, s4 = 0.0
        for i in group {
            minC = min(minC, i % cols); maxC = max(maxC, i % cols)
            minR = min(minR, i / cols); maxR = max(maxR, i / cols)
            score += Double(cells[i].edges) / Double(max(1, cells[i].samples))
            c4 += cells[i].c4; s4 += cells[i].s4
        }
        // 2D codes are square-ish even in perspective; long strips are borders (1D codes have
        // their own, coherent candidates).
        let w = maxC - minC + 1, h = maxR - minR + 1
        guard max(w, h) <= 3 * min(w, h) else { return [] }
        let m = Double(cell) / 2
        let box = Rect(x: Double(minC * cell) - m, y: Double(minR * cell) - m,
                       width: Double(w * cell) + 2 * m, height: Double(h * cell) + 2 * m)
            .intersection(Rect(x: 0, y: 0, width: Double(luma.width), height: Double(luma.height)))
        var finders = FinderPattern.find(in: luma, box: box)
        // A tracked code's own patterns: the blob is that code and its surroundings.
        let seen = finders.count
        finders.removeAll { f in skipping.contains { $0.contains(f.centre) } }
        if seen > 0, finders.isEmpty { return [] }
        let degrees = atan2(s4, c4) / 4 * 180 / .pi
        var codes = FinderPattern.qrCodes(finders, in: luma)
        // Codes cannot overlap: overlapping outlines come from stray patterns (noise, texture, a
        // code turned so its patterns read unevenly), and the blob is decoded whole instead.
        if codes.indices.contains(where: { i in codes.indices.contains { j in j != i && codes[i].quad.contains(codes[j].quad.center) } }) {
            codes = []
        }
        // Nor does a code hold a tracked one: a triangle of patterns around a tracked code, its timing
        // patterns not seen, is patterns of different codes (e.g. untracked ones, half hidden). Its
        // patterns count as accounted for: the blob is not decoded for them.
        let isAround = { (c: FinderPattern.QRCodeOutline) in !c.timing && c.grid == nil && skipping.contains { holds(c.quad, $0) } }
        let around = codes.filter(isAround)
        codes.removeAll(where: isAround)
        let qr = codes.map { LocatedRegion(kind: .matrix, quad: $0.quad, axisDegrees: degrees, moduleSize: $0.moduleSize,
                                           score: score, verified: $0.timing, outlinedByFinderPatterns: true,
                                           grid: $0.grid, finders: $0.finders) }
        // Every finder pattern accounted for (a code's own, or a stray one among its modules): the
        // blob is those codes and their surroundings.
        let accounting = codes + around
        let unaccounted = finders.filter { f in !accounting.contains { $0.quad.contains(f.centre) } }
        guard !unaccounted.isEmpty || finders.isEmpty else { return qr }
        let module: Double
        if finders.isEmpty {
            // Dense texture: about one edge every two modules along a line.
            let edges = group.reduce(0) { $0 + cells[$1].edges }, samples = group.reduce(0) { $0 + cells[$1].samples }
            let density = Double(edges) / Double(max(1, samples))
            module = max(1, min(Double(cell), 1 / max(0.05, density)))
        } else {
            module = unaccounted.map(\.moduleSize).reduce(0, +) / Double(unaccounted.count)
        }
        // A QR code is at most 177 modules (plus its quiet zone) across: a larger blob is texture.
        guard max(box.width, box.height) / module <= 200 else { return qr }
        // Finder patterns of a code not yet outlined (hidden, blurred, or one pattern missed), or
        // none seen: the blob, unverified.
        return qr + [LocatedRegion(kind: .matrix, quad: Quad(box), axisDegrees: degrees, moduleSize: module,
                                   score: score, verified: false)]
    }
}

/// The averaged grey profile of a 1D region along its axis, in bands across the bars.
struct BarProfile {
    /// Samples per pixel along the axis.
    static let oversampling = 2.0
    /// Bands across the bars.
    static let bands = 4

    let luma: LumaImage
    let centre: Point, u: Point, d: Point
    let t0: Double, t1: Double, s0: Double, s1: Double

    struct Measurement {
        var edges: Int
        /// Along the axis from `centre`, pixels.
        var firstEdge: Double, lastEdge: Double
        var moduleSize: Double
        /// Mean correlation of each band's profile with the mean profile (1 = identical bars).
        var agreement: Double
    }

    func measure() -> Measurement? {
        let n = Int((t1 - t0) * Self.oversampling)
        guard n >= 16, s1 > s0 else { return nil }
        let bandHeight = (s1 - s0) / Double(Self.bands)
        let linesPerBand = 3
        var flat = [Double](repeating: 0, count: n * Self.bands)
        flat.withUnsafeMutableBufferPointer { out in
            for b in 0..<Self.bands {
                for l in 0..<linesPerBand {
                    let s = s0 + bandHeight * (Double(b) + (Double(l) + 0.5) / Double(linesPerBand))
                    let dx = d.x * s, dy = d.y * s
                    func x(_ k: Int) -> Double { centre.x + u.x * (t0 + (Double(k) + 0.5) / Self.oversampling) + dx }
                    func y(_ k: Int) -> Double { centre.y + u.y * (t0 + (Double(k) + 0.5) / Self.oversampling) + dy }
                    let row = out.baseAddress! + b * n
                    // A line well inside the frame needs no clamping (same values, fewer instructions).
                    if luma.holdsInside(x(0), y(0)), luma.holdsInside(x(n - 1), y(n - 1)) {
                        luma.addLineInside(x: x(0), y: y(0), dx: u.x / Self.oversampling, dy: u.y / Self.oversampling, count: n, into: row)
                    } else {
                        for k in 0..<n { row[k] += luma.sample(x(k), y(k)) }
                    }
                }
            }
        }
        let profiles = (0..<Self.bands).map { Array(flat[($0 * n)..<(($0 + 1) * n)]) }
        var mean = [Double](repeating: 0, count: n)
        for b in 0..<Self.bands { for k in 0..<n { mean[k] += profiles[b][k] / Double(Self.bands * linesPerBand) } }
        // Bars slant a little against the sampled lines in perspective: edges are found band by band.
        let runs = profiles.compactMap { Self.barRun(in: $0, t0: t0) }
        guard let best = runs.max(by: { $0.edges < $1.edges }) else { return nil }
        let first = runs.map(\.first).min()!, last = runs.map(\.last).max()!
        // About 1.8 modules per element over EAN/UPC, Code 128, Code 39 and ITF.
        let module = max(0.5, (best.last - best.first) / (1.8 * Double(max(1, best.edges - 1))))
        // Agreement across the bars, over the edges' span.
        let ka = max(0, Int((best.first - t0) * Self.oversampling)), kb = min(n, Int((best.last - t0) * Self.oversampling) + 1)
        guard kb - ka >= 2 else { return nil }
        var agreement = 0.0
        for band in profiles {
            agreement += correlation(Array(band[ka..<kb]), Array(mean[ka..<kb]))
        }
        return Measurement(edges: best.edges, firstEdge: first, lastEdge: last, moduleSize: module,
                           agreement: agreement / Double(Self.bands))
    }

    /// The densest run of edges of `profile` (sampled from `t0`, `oversampling` per pixel): edges
    /// are extremes of its derivative above a contrast threshold, alternating in sign; a run ends
    /// at a gap wider than any element could be (the quiet zone).
    static func barRun(in profile: [Double], t0: Double) -> (edges: Int, first: Double, last: Double)? {
        let n = profile.count
        guard let lo = profile.min(), let hi = profile.max(), hi - lo >= 24 else { return nil }
        let threshold = (hi - lo) * 0.1
        var edgePositions: [Double] = []
        var lastSign = 0
        var k = 1
        while k < n - 1 {
            let g = profile[k + 1] - profile[k - 1]
            if abs(g) >= threshold {
                // The strongest point of this run of same-sign gradient.
                let sign = g > 0 ? 1 : -1
                var best = k, bestG = abs(g)
                var j = k + 1
                while j < n - 1 {
                    let gj = profile[j + 1] - profile[j - 1]
                    if (gj > 0 ? 1 : -1) != sign || abs(gj) < threshold * 0.5 { break }
                    if abs(gj) > bestG { bestG = abs(gj); best = j }
                    j += 1
                }
                if sign != lastSign { edgePositions.append(t0 + (Double(best) + 0.5) / oversampling) }
                lastSign = sign
                k = j
            } else {
                k += 1
            }
        }
        guard edgePositions.count >= 4 else { return nil }
        let gaps = zip(edgePositions.dropFirst(), edgePositions).map { $0 - $1 }.sorted()
        // A quiet zone is at least ten modules, a code's widest element four.
        let split = max(6 * gaps[gaps.count / 2], 2.5 * gaps[gaps.count * 9 / 10])
        var runs: [(Int, Int)] = []
        var start = 0
        for i in 1..<edgePositions.count where edgePositions[i] - edgePositions[i - 1] > split {
            runs.append((start, i - 1))
            start = i
        }
        runs.append((start, edgePositions.count - 1))
        let (a, b) = runs.max { ($0.1 - $0.0) < ($1.1 - $1.0) }!
        return (b - a + 1, edgePositions[a], edgePositions[b])
    }

    private func correlation(_ a: [Double], _ b: [Double]) -> Double {
        guard a.count >= 2 else { return 0 }
        let ma = a.reduce(0, +) / Double(a.count), mb = b.reduce(0, +) / Double(b.count)
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for i in a.indices {
            let x = a[i] - ma, y = b[i] - mb
            sab += x * y; saa += x * x; sbb += y * y
        }
        return saa > 0 && sbb > 0 ? sab / (saa * sbb).squareRoot() : 0
    }
}

/// QR finder patterns (dark-light-dark-light-dark runs in ratio 1:1:3:1:1, across rows and
/// columns through the same centre).
struct FinderPattern: Hashable {
    var centre: Point
    var moduleSize: Double

    /// This pattern's squares fitted in `luma` (`FinderSquares`).
    func squares(in luma: LumaImage) -> FinderSquares? {
        FinderSquares.fit(centre: centre, module: moduleSize, in: luma)
    }

    /// Distinct finder patterns in `box` of `luma`, rows scanned every other line.
    static func find(in luma: LumaImage, box: Rect) -> [FinderPattern] {
        let x0 = max(0, Int(box.minX)), x1 = min(luma.width, Int(box.maxX))
        let y0 = max(0, Int(box.minY)), y1 = min(luma.height, Int(box.maxY))
        guard x1 - x0 >= 14, y1 - y0 >= 14 else { return [] }
        // Threshold: the box's mean of min and max (codes are high contrast).
        var lo = 255, hi = 0
        var y = y0
        var low = SIMD16<UInt8>(repeating: 255), high = SIMD16<UInt8>(repeating: 0)
        // Sixteen pixels at a time, the odd offsets from x0 masked out (white for the minimum, black
        // for the maximum).
        let odd = SIMD16<UInt8>(0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255, 0, 255)
        while y < y1 {
            let row = luma.base + y * luma.stride
            var x = x0
            while x + 16 <= x1 {
                let v = row.loadUnaligned(fromByteOffset: x, as: SIMD16<UInt8>.self)
                let forMin = v | odd, forMax = v & ~odd
                low.replace(with: forMin, where: forMin .< low)
                high.replace(with: forMax, where: forMax .> high)
                x += 16
            }
            while x < x1 { let v = Int(row.load(fromByteOffset: x, as: UInt8.self)); lo = min(lo, v); hi = max(hi, v); x += 2 }
            y += 2
        }
        lo = min(lo, Int(low.min()))
        hi = max(hi, Int(high.max()))
        guard hi - lo >= 40 else { return [] }
        let threshold = (lo + hi) / 2
        let level = SIMD16<UInt8>(repeating: UInt8(threshold))
        var found: [FinderPattern] = []
        y = y0
        // The last five runs of the row (lengths), and where the middle one started.
        var runs = (0, 0, 0, 0, 0), starts = (0, 0, 0, 0, 0)
        // A row's dark pixels as bits (bit i of word k: pixel x0 + 64k + i), and the pixels where
        // the shade changes from the one before.
        let n = x1 - x0, words = (n + 63) / 64
        var bits = [UInt64](repeating: 0, count: words)
        var changes: [Int] = []
        changes.reserveCapacity(n)
        while y < y1 {
            let row = luma.base + y * luma.stride
            bits.withUnsafeMutableBufferPointer { bits in
                for k in 0..<words {
                    var word: UInt64 = 0
                    for chunk in 0..<4 {
                        let x = x0 + 64 * k + 16 * chunk
                        if x + 16 <= x1 {
                            let below = row.loadUnaligned(fromByteOffset: x, as: SIMD16<UInt8>.self) .< level
                            word |= UInt64(Self.bits(below)) << (16 * chunk)
                        } else {
                            for i in 0..<max(0, min(16, x1 - x)) where Int(row.load(fromByteOffset: x + i, as: UInt8.self)) < threshold {
                                word |= 1 << (16 * chunk + i)
                            }
                        }
                    }
                    bits[k] = word
                }
                changes.removeAll(keepingCapacity: true)
                var before = bits[0] & 1
                for k in 0..<words {
                    let word = bits[k]
                    var changed = word ^ (word << 1 | before)
                    before = word >> 63
                    if k == words - 1, n % 64 != 0 { changed &= (1 << (n % 64)) - 1 }
                    while changed != 0 {
                        changes.append(x0 + 64 * k + changed.trailingZeroBitCount)
                        changed &= changed - 1
                    }
                }
            }
            changes.append(x1)
            var dark = bits[0] & 1 == 1
            var runStart = x0, count = 0
            // Each run ends where the shade changes; the row's end closes the last.
            for x in changes {
                let isDark = !dark
                runs = (runs.1, runs.2, runs.3, runs.4, x - runStart)
                starts = (starts.1, starts.2, starts.3, starts.4, runStart)
                count += 1
                runStart = x
                // A dark run just ended: the last five are dark, light, dark, light, dark.
                let endedDark = dark
                dark = isDark
                // Under 1.5 px a module is noise to zbar: not a readable finder.
                if endedDark, count >= 5, let m = ratio(runs.0, runs.1, runs.2, runs.3, runs.4), m >= 1.5 {
                    let cx = Double(starts.2) + Double(runs.2) / 2
                    if let vm = verticalCheck(luma, x: Int(cx), y: y, threshold: threshold, module: m, y0: y0, y1: y1) {
                        let c = Point(x: cx, y: vm.cy)
                        let module = (m + vm.module) / 2
                        if !found.contains(where: { $0.centre.distance(to: c) < 3 * module }) {
                            found.append(FinderPattern(centre: c, moduleSize: module))
                        }
                    }
                }
            }
            y += 2
        }
        return found
    }

    /// Lane i's mask (all ones or all zeros) as bit i.
    @inline(__always)
    private static func bits(_ mask: SIMDMask<SIMD16<Int8>>) -> UInt16 {
        let halves = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        // Each byte's top bit gathered into the top byte, byte 0's lowest.
        func gather(_ h: UInt64) -> UInt64 { ((h & 0x8080_8080_8080_8080) &* 0x0002_0408_1020_4081) >> 56 }
        return UInt16(gather(halves[0]) | gather(halves[1]) << 8)
    }

    /// A QR code outlined by finder patterns: see `qrCodes(_:in:)`.
    typealias QRCodeOutline = (quad: Quad, moduleSize: Double, timing: Bool, grid: QRGrid?, finders: [FinderPattern])

    /// The QR codes three of `finders` outline (each finder used once): modules within a third of
    /// each other, centres on a right isosceles triangle (within 15 %) with sides of 10–180 modules
    /// (a version 1 code has 14); `timing`: whether the timing patterns between them are seen. Each as its box (the fourth corner completes the square; finder
    /// centres lie 3.5 modules inside the code, plus a 2-module margin), module size and the three
    /// patterns, the corner one first. Three patterns that are not such a triangle outline a code
    /// in perspective when its grid fits (`QRGrid.measure`: the patterns' squares on one
    /// homography, the timing patterns in step); its grid is then given and its timing seen.
    static func qrCodes(_ finders: [FinderPattern], in luma: LumaImage) -> [QRCodeOutline] {
        var out: [QRCodeOutline] = []
        guard finders.count >= 3 else { return [] }
        // Triples seen from the front, the most square first (a stray pattern, e.g. an alignment
        // pattern among data modules, can make a looser triangle with two of a code's own).
        var frontal: [(error: Double, corner: Int, others: [Int])] = []
        // Other triples that could be a code in perspective, the likeliest first: seen from any
        // side, the corner pattern's two neighbours lie about as many of their own modules away
        // (N − 7 each).
        var oblique: [(unevenness: Double, triple: [Int])] = []
        for i in 0..<finders.count {
            for j in (i + 1)..<finders.count {
                for k in (j + 1)..<finders.count {
                    let t = [i, j, k], m = t.map { finders[$0].moduleSize }
                    guard m.max()! <= perspectiveModuleRatio * m.min()! else { continue }
                    let module = m.reduce(0, +) / 3
                    // The corner pattern is the one opposite the longest side.
                    let sides = [(0, 1, 2), (1, 2, 0), (0, 2, 1)]
                        .map { (a, b, c) in (finders[t[a]].centre.distance(to: finders[t[b]].centre), t[c]) }
                        .sorted { $0.0 < $1.0 }
                    let (short, mid, long) = (sides[0].0, sides[1].0, sides[2].0)
                    let skew = abs(long - short * 2.0.squareRoot()) / long
                    if m.max()! <= 1.33 * m.min()!, short >= 10 * module, long <= 180 * module * 2.0.squareRoot(),
                       mid <= 1.15 * short, skew <= 0.15 {
                        frontal.append((skew + (mid - short) / short + (m.max()! - m.min()!) / module, sides[2].1,
                                        t.filter { $0 != sides[2].1 }))
                    } else {
                        func modulesApart(_ a: Int, _ b: Int) -> Double {
                            finders[a].centre.distance(to: finders[b].centre) * 2 / (finders[a].moduleSize + finders[b].moduleSize)
                        }
                        let unevenness = t.map { c -> Double in
                            let o = t.filter { $0 != c }, d = [modulesApart(c, o[0]), modulesApart(c, o[1])]
                            return d.min()! >= 8 && d.max()! <= 200 ? abs(log(d[0] / d[1])) : .infinity
                        }.min()!
                        if unevenness <= log(1.35) { oblique.append((unevenness, t)) }
                    }
                }
            }
        }
        var used = Set<Int>()
        // Frontal triples with their timing patterns first, then codes in perspective (their grid
        // verifies them), then frontal triples without timing patterns (blurred codes, or patterns of
        // different codes that happen to make such a triangle).
        let ranked = frontal.enumerated().sorted { ($0.element.error, $0.offset) < ($1.element.error, $1.offset) }.map { c in
            let f = [c.element.corner] + c.element.others
            let module = f.map { finders[$0].moduleSize }.reduce(0, +) / 3
            let others = c.element.others.map { finders[$0].centre }
            return (f, module, hasTimingPatterns(corner: finders[f[0]].centre, others[0], others[1], module: module, in: luma))
        }
        func outlineFrontal(timing: Bool) {
            for (f, module, seen) in ranked where seen == timing && used.isDisjoint(with: f) {
                let corner = finders[f[0]].centre, others = f.dropFirst().map { finders[$0].centre }
                let fourth = others[0] + others[1] - corner
                let pts = [corner, others[0], fourth, others[1]]
                let centre = pts.reduce(Point(x: 0, y: 0), +) * 0.25
                // Out from the centre: finder centres are 3.5 modules (√2 · 3.5 diagonally) inside the code.
                let grown = pts.map { p -> Point in
                    let v = p - centre, l = (v.x * v.x + v.y * v.y).squareRoot()
                    return p + v * ((5.5 * 2.0.squareRoot() * module) / max(l, 1))
                }
                let xs = grown.map(\.x), ys = grown.map(\.y)
                let box = Rect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
                out.append((Quad(box), module, timing, nil, f.map { finders[$0] }))
                used.formUnion(f)
            }
        }
        outlineFrontal(timing: true)
        // Not a square seen from the front: a code in perspective when its grid fits (texture with
        // many finder-like blots costs at most `maxPerspectiveGrids` grids).
        var fits: [Int: FinderSquares?] = [:]
        func squares(_ i: Int) -> FinderSquares? {
            if let known = fits[i] { return known }
            let fit = finders[i].squares(in: luma)
            fits[i] = fit
            return fit
        }
        let likeliest = oblique.enumerated().sorted { ($0.element.unevenness, $0.offset) < ($1.element.unevenness, $1.offset) }
        for t in likeliest.map(\.element.triple).filter({ used.isDisjoint(with: $0) }).prefix(maxPerspectiveGrids)
            where used.isDisjoint(with: t) {
            let fitted = t.compactMap(squares)
            guard fitted.count == 3 else { continue }
            // The top-left pattern's sides run along both lines to the others; each other pattern
            // has one line along its diagonal.
            func worst(_ c: Int) -> Double {
                (0..<3).filter { $0 != c }.map { fitted[c].misalignment(towards: fitted[$0].centre) }.max()!
            }
            let c = (0..<3).min { worst($0) < worst($1) }!
            let others = (0..<3).filter { $0 != c }
            guard let grid = QRGrid.measure(corner: fitted[c], fitted[others[0]], fitted[others[1]], in: luma),
                  let box = Rect(enclosing: grid.outline(margin: 2).corners) else { continue }
            let module = t.map { finders[$0].moduleSize }.reduce(0, +) / 3
            out.append((Quad(box), module, true, grid, ([c] + others).map { finders[t[$0]] }))
            used.formUnion(t)
        }
        outlineFrontal(timing: false)
        return out
    }

    /// Most a code's finder patterns' module sizes differ by (a code in strong perspective).
    static let perspectiveModuleRatio = 2.5
    /// Most triples of finder patterns per blob checked for a code in perspective (each measures a
    /// grid, `QRGrid`): texture with many finder-like blots costs no more than this.
    static let maxPerspectiveGrids = 8

    /// Whether the timing patterns of a QR code with its corner finder at `corner` and the other two
    /// at `a` and `b` (centres, pixels) are there: on row and column 6, between the finder patterns,
    /// modules alternate dark and light. Three finder-like blots in a texture rarely have them.
    static func hasTimingPatterns(corner: Point, _ a: Point, _ b: Point, module: Double, in luma: LumaImage) -> Bool {
        func sample(_ p: Point) -> Double? {
            p.x >= 0 && p.y >= 0 && p.x < Double(luma.width) && p.y < Double(luma.height) ? luma.sample(p.x, p.y) : nil
        }
        for (to, side) in [(a, b), (b, a)] {
            let span = corner.distance(to: to)
            // Finder centres are N − 7 modules apart, N = 17 + 4 · version.
            let version = max(1, ((span / module - 10) / 4).rounded())
            let n = 10 + 4 * version, m = span / n
            let v = (to - corner) * (1 / span)
            var w = Point(x: -v.y, y: v.x)
            if dot(side - corner, w) < 0 { w = w * -1 }
            // Module j's centre on the timing row: j − 3 modules along, 3 modules in; j = 8 … n − 2.
            guard let dark = sample(corner), let light = sample(corner + v * (4 * m)) else { return false }
            let threshold = (dark + light) / 2
            var agree = 0, total = 0
            for j in 8...Int(n - 2) {
                guard let g = sample(corner + v * (Double(j - 3) * m) + w * (3 * m)) else { continue }
                total += 1
                if (g < threshold) == (j % 2 == 0) { agree += 1 }
            }
            guard total >= 3, Double(agree) >= 0.7 * Double(total) else { return false }
        }
        return true
    }

    /// The module size when `r` (five runs) is 1:1:3:1:1 within half a module each.
    private static func ratio(_ a: Int, _ b: Int, _ c: Int, _ d: Int, _ e: Int) -> Double? {
        let total = a + b + c + d + e
        // c ≥ 3m − 2·tol implies 7c ≥ 2·total − 14 (tol = m/2 or 1): most texture fails it cheaply.
        guard total >= 7, 7 * c + 14 >= 2 * total else { return nil }
        let m = Double(total) / 7
        let tol = max(0.5 * m, 1)
        guard abs(Double(a) - m) <= tol, abs(Double(b) - m) <= tol, abs(Double(c) - 3 * m) <= 2 * tol,
              abs(Double(d) - m) <= tol, abs(Double(e) - m) <= tol else { return nil }
        return m
    }

    /// The same pattern down the column through (x, y): its centre row and module size.
    private static func verticalCheck(_ luma: LumaImage, x: Int, y: Int, threshold: Int, module: Double,
                                      y0: Int, y1: Int) -> (cy: Double, module: Double)? {
        guard let (back, forward, m) = crossCheck(luma, x: x, y: y, dx: 0, dy: 1, threshold: threshold, module: module,
                                                  yRange: y0..<y1) else { return nil }
        return (Double(y) + (Double(forward) - Double(back)) / 2, m)
    }

    /// The 1:1:3:1:1 pattern through (x, y) along (dx, dy) (pixel steps, each coordinate −1…1):
    /// the centre run's extent back and forward of (x, y), in steps, and the module size in steps.
    private static func crossCheck(_ luma: LumaImage, x: Int, y: Int, dx: Int, dy: Int, threshold: Int, module: Double,
                                   yRange: Range<Int>) -> (back: Int, forward: Int, module: Double)? {
        guard x >= 0, x < luma.width, yRange.contains(y), Int(luma.pixel(x, y)) < threshold else { return nil }
        let reach = Int(module * 6)
        // Each way: centre dark, light, dark.
        func runs(_ sign: Int) -> [Int]? {
            var out = [0, 0, 0]
            var k = 0, state = 0
            while state < 3 {
                let xx = x + sign * dx * k, yy = y + sign * dy * k
                guard xx >= 0, xx < luma.width, yRange.contains(yy), k <= reach else { return state == 2 && out[2] > 0 ? out : nil }
                let want = state != 1
                if (Int(luma.pixel(xx, yy)) < threshold) == want { out[state] += 1; k += 1 } else { state += 1 }
            }
            return out
        }
        guard let back = runs(-1), let forward = runs(1),
              let m = ratio(back[2], back[1], back[0] + forward[0] - 1, forward[1], forward[2]) else { return nil }
        return (back[0], forward[0], m)
    }

}

