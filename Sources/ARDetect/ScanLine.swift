import ARCore

/// A line of grey samples across a 1D code cut into bars and spaces, for the checks that read a
/// code by its elements' widths (`EANCheck`, `Code128Check`): its edges are where it crosses the
/// grey halfway between its dark and its light (the 5th and 95th percentiles), or a local
/// threshold, placed between samples by linear interpolation.
struct ScanLine {
    /// Edge positions, in samples from the line's start.
    let edges: [Double]
    /// Whether dark follows each edge.
    let darkAfter: [Bool]
    /// The line's length, in samples.
    let length: Double

    /// Nil for a line of under `minimumSamples`, or with less than `minimumContrast` grey levels
    /// between its dark and its light. `window` > 0: edges against a local threshold instead,
    /// halfway between the darkest and lightest samples within `window` samples either side, where
    /// those differ by at least `localContrast` of the line's contrast (elsewhere the line's
    /// halfway): a narrow space that ink spread or blur keeps below the line's halfway grey still
    /// rises above its neighbours'.
    init?(_ samples: [Double], minimumSamples: Int, window: Int = 0, localContrast: Double = 0.25, minimumContrast: Double = 20) {
        guard let crossings = Self.crossings(samples, minimumSamples: minimumSamples, window: window,
                                             localContrast: localContrast, minimumContrast: minimumContrast) else { return nil }
        edges = crossings.map { Double($0.i - 1) + $0.a / ($0.a - $0.b) }
        darkAfter = crossings.map { $0.b < 0 }
        length = Double(samples.count - 1)
    }

    private init(edges: [Double], darkAfter: [Bool], length: Double) {
        (self.edges, self.darkAfter, self.length) = (edges, darkAfter, length)
    }

    /// `ScanLine(samples, …)` and `ScanLine(samples.reversed(), …)` from one pass, equal to those
    /// to the last bit: the reversed line's thresholds are the forward line's mirrored, and each
    /// of its edges is placed by the same sums the reversed samples would give.
    static func bothWays(_ samples: [Double], minimumSamples: Int, window: Int = 0, localContrast: Double = 0.25,
                         minimumContrast: Double = 20) -> (forward: ScanLine, reversed: ScanLine)? {
        guard let crossings = Self.crossings(samples, minimumSamples: minimumSamples, window: window,
                                             localContrast: localContrast, minimumContrast: minimumContrast) else { return nil }
        let n = samples.count, length = Double(n - 1)
        let forward = ScanLine(edges: crossings.map { Double($0.i - 1) + $0.a / ($0.a - $0.b) },
                               darkAfter: crossings.map { $0.b < 0 }, length: length)
        // Reversed, a crossing between samples i − 1 and i lies between n − 1 − i and n − i, from b to a.
        let reversed = ScanLine(edges: crossings.reversed().map { Double(n - 1 - $0.i) + $0.b / ($0.b - $0.a) },
                                darkAfter: crossings.reversed().map { $0.a < 0 }, length: length)
        return (forward, reversed)
    }

    /// Where the line crosses its threshold (`init?`'s): between samples `i` − 1 and `i`, `a` and
    /// `b` being those samples less the threshold there; nil for a line too short or too flat.
    private static func crossings(_ samples: [Double], minimumSamples: Int, window: Int, localContrast: Double,
                                  minimumContrast: Double) -> [(i: Int, a: Double, b: Double)]? {
        guard samples.count >= minimumSamples else { return nil }
        var order = samples
        let lo = order.orderStatistic(samples.count / 20), hi = order.orderStatistic(samples.count - 1 - samples.count / 20)
        guard hi - lo >= minimumContrast else { return nil }
        let halfway = (lo + hi) / 2
        let local: [Double]? = window <= 0 ? nil : {
            let (lowest, highest) = samples.slidingExtremes(radius: window)
            return samples.indices.map { i in
                let a = lowest[i], b = highest[i]
                return b - a >= localContrast * (hi - lo) ? (a + b) / 2 : halfway
            }
        }()
        var out: [(i: Int, a: Double, b: Double)] = []
        for i in 1..<samples.count {
            let a = samples[i - 1] - (local?[i - 1] ?? halfway), b = samples[i] - (local?[i] ?? halfway)
            if (a < 0) != (b < 0) { out.append((i, a, b)) }
        }
        return out
    }

    /// The width of element `k`: from edge `k` to edge `k + 1`.
    func width(_ k: Int) -> Double { edges[k + 1] - edges[k] }

    /// The light before edge `k` (to the line's start for the first edge).
    func before(_ k: Int) -> Double { k > 0 ? edges[k] - edges[k - 1] : edges[k] }

    /// The light after edge `k` (to the line's end for the last edge).
    func after(_ k: Int) -> Double { k + 1 < edges.count ? edges[k + 1] - edges[k] : length - edges[k] }

    /// How many of `scans` (lines of grey samples, cut as `ScanLine(_:minimumSamples:window:)`
    /// cuts them) `read` finds each item on, each line read both ways round and counted once per item.
    static func tally<Item: Hashable>(_ scans: [[Double]], minimumSamples: Int, window: Int = 0,
                                      reading read: (ScanLine) -> [Item]) -> [Item: Int] {
        var counts: [Item: Int] = [:]
        for samples in scans {
            guard let line = bothWays(samples, minimumSamples: minimumSamples, window: window) else { continue }
            for item in Set(read(line.forward) + read(line.reversed)) { counts[item, default: 0] += 1 }
        }
        return counts
    }

    /// Grey samples along `lines` lines across `quad` (frame pixels) from its left side to its
    /// right (top-left to top-right), spread evenly from its top to its bottom, each reaching
    /// `reach` of its length past both ends (for the quiet zones); samples `step` px apart.
    static func samples(across quad: Quad, in luma: LumaImage, lines: Int, reach: Double, step: Double) -> [[Double]] {
        (0..<lines).compactMap { i in
            let f = (Double(i) + 0.5) / Double(lines)
            let a = quad.topLeft + (quad.bottomLeft - quad.topLeft) * f, b = quad.topRight + (quad.bottomRight - quad.topRight) * f
            let span = a.distance(to: b)
            guard span > 0 else { return nil }
            let u = (b - a) * (1 / span)
            let start = a - u * (reach * span)
            return (0..<Int((1 + 2 * reach) * span / step)).map { k in
                let p = start + u * (Double(k) * step)
                return luma.sample(p.x, p.y)
            }
        }
    }
}
