import ARCore

/// Several frames of one unread 1D region fused into one strip (`RegionDecoder` strips: rows
/// across the bars, columns along the axis): noise and compression artefacts that differ from frame
/// to frame average out, the bars do not. Each earlier strip is aligned to the newest along the
/// axis by the shift that best matches their column profiles (the code's motion along its axis,
/// measured on its own bars); a strip that matches too poorly (another code, a different place) is
/// left out. Pure and deterministic.
struct StripFusion {
    /// Calls a region may go unseen before its strips are dropped.
    static let maxAge: UInt64 = 2
    /// Least normalised correlation of an earlier strip's profile with the newest one's.
    static let minCorrelation = 0.8

    struct Entry {
        /// Where the region was last seen, frame pixels.
        var quad: Quad
        /// Pass pixels per frame pixel its strips are rendered at (one scale for all of them).
        var scale: Double
        /// Oldest first: each strip's pixels (`rows` × its width) and width.
        var strips: [(pixels: [UInt8], width: Int)]
        var lastCall: UInt64
    }

    private(set) var entries: [Entry] = []

    /// The entry of a region seen at `quad` on an earlier call: centres inside each other's quads.
    func entry(at quad: Quad) -> Int? {
        entries.firstIndex { $0.quad.contains(quad.center) && quad.contains($0.quad.center) }
    }

    /// Adds `pixels` (`rows` rows of `width`) seen at `quad` on `call`, rendered at `scale`, keeping
    /// the region's newest `keep` strips; returns the fusion of it with the earlier strips that
    /// align (nil when none does: nothing to fuse). `fused` then `record`.
    mutating func add(_ pixels: [UInt8], width: Int, rows: Int, quad: Quad, scale: Double, call: UInt64, keep: Int) -> [UInt8]? {
        let out = fused(pixels, width: width, rows: rows, quad: quad, scale: scale, call: call, keep: keep)
        record(pixels, width: width, quad: quad, scale: scale, call: call, keep: keep)
        return out
    }

    /// The fusion of `pixels` (`rows` rows of `width`, seen at `quad` on `call`, rendered at `scale`)
    /// with the region's earlier strips that align (the newest `keep` − 1 of them); nil when none
    /// does. Changes nothing: several regions' fusions can be computed at once.
    func fused(_ pixels: [UInt8], width: Int, rows: Int, quad: Quad, scale: Double, call: UInt64, keep: Int) -> [UInt8]? {
        guard let i = entry(at: quad), call <= entries[i].lastCall + Self.maxAge, entries[i].scale == scale else { return nil }
        let current = Self.profile(pixels, width: width, rows: rows)
        var sums = pixels.map { Double($0) }, counts = [Double](repeating: 1, count: pixels.count)
        var fused = false
        for e in entries[i].strips.suffix(max(0, keep - 1)) {
            let other = Self.profile(e.pixels, width: e.width, rows: rows)
            guard let shift = Self.alignment(of: other, to: current), shift.correlation >= Self.minCorrelation else { continue }
            fused = true
            for r in 0..<rows {
                for x in 0..<width {
                    let xo = x + shift.offset
                    guard xo >= 0, xo < e.width else { continue }
                    sums[r * width + x] += Double(e.pixels[r * e.width + xo])
                    counts[r * width + x] += 1
                }
            }
        }
        guard fused else { return nil }
        return zip(sums, counts).map { UInt8(min(255, max(0, ($0 / $1).rounded()))) }
    }

    /// Records `pixels` (`width` columns) as the newest strip of the region seen at `quad` on
    /// `call`, rendered at `scale`, keeping its newest `keep`; a region seen at another scale, or
    /// new, starts again from this strip. Regions unseen for `maxAge` calls are dropped.
    mutating func record(_ pixels: [UInt8], width: Int, quad: Quad, scale: Double, call: UInt64, keep: Int) {
        entries.removeAll { call > $0.lastCall + Self.maxAge }
        guard let i = entry(at: quad), entries[i].scale == scale else {
            entries.removeAll { $0.quad.contains(quad.center) || quad.contains($0.quad.center) }
            entries.append(Entry(quad: quad, scale: scale, strips: [(pixels, width)], lastCall: call))
            return
        }
        entries[i].strips = Array((entries[i].strips + [(pixels, width)]).suffix(max(1, keep)))
        entries[i].quad = quad
        entries[i].lastCall = call
    }

    /// Forgets the region at `quad` (read: nothing left to fuse).
    mutating func remove(at quad: Quad) {
        entries.removeAll { $0.quad.contains(quad.center) || quad.contains($0.quad.center) }
    }

    /// Sum of each column over the rows: its mean times the rows, which no correlation sees.
    static func profile(_ pixels: [UInt8], width: Int, rows: Int) -> [Int] {
        var p = [Int](repeating: 0, count: width)
        for r in 0..<rows { for x in 0..<width { p[x] += Int(pixels[r * width + x]) } }
        return p
    }

    /// The offset `o` (columns) for which `other[x + o]` best matches `current[x]`, searched within a
    /// quarter of the width with at least 60 % of `current` overlapping, and its normalised
    /// correlation; nil when no offset overlaps enough. Whole numbers but for the last division: a
    /// window's sums come from running sums, and only the products need a pass per offset.
    static func alignment(of other: [Int], to current: [Int]) -> (offset: Int, correlation: Double)? {
        let maxShift = max(1, current.count / 4)
        /// Running sums of `v` and of its squares: entry i sums `v[0..<i]`.
        func running(_ v: [Int]) -> (sum: [Int], square: [Int]) {
            var sum = [Int](repeating: 0, count: v.count + 1), square = sum
            for (i, x) in v.enumerated() {
                sum[i + 1] = sum[i] + x
                square[i + 1] = square[i] + x * x
            }
            return (sum, square)
        }
        let (a1, a2) = running(current), (b1, b2) = running(other)
        var best: (offset: Int, correlation: Double)?
        current.withUnsafeBufferPointer { a in
            other.withUnsafeBufferPointer { b in
                for o in -maxShift...maxShift {
                    let x0 = max(0, -o), x1 = min(a.count, b.count - o)
                    guard x1 - x0 >= a.count * 6 / 10, x1 - x0 >= 8 else { continue }
                    var ab = 0
                    for x in x0..<x1 { ab &+= a[x] &* b[x + o] }
                    // The window's covariance and variances, times its length squared.
                    let n = x1 - x0, sa = a1[x1] - a1[x0], sb = b1[x1 + o] - b1[x0 + o]
                    let cov = n * ab - sa * sb, va = n * (a2[x1] - a2[x0]) - sa * sa, vb = n * (b2[x1 + o] - b2[x0 + o]) - sb * sb
                    let c = va > 0 && vb > 0 ? Double(cov) / (Double(va).squareRoot() * Double(vb).squareRoot()) : 0
                    if best.map({ c > $0.correlation }) ?? true { best = (o, c) }
                }
            }
        }
        return best
    }
}
