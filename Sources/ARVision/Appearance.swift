import ARCore

/// A code's look where its track is: the luma under its quad, sampled on a fixed grid in the
/// quad's own coordinates at a pyramid level where the grid is about as fine as the pixels (so each
/// sample is an average, not one aliased pixel of fine bars). Compared between frames, it tells
/// whether the code is still there: covered by a hand or a box, torn off, or out of the frame, the
/// texture under the quad no longer matches. The grid reaches one sample beyond the quad on every
/// side, so a comparison tolerates a track that drifted by up to a sample (a sixteenth of the code).
public struct Appearance: Sendable, Equatable {
    /// Samples per side of the quad's grid.
    public static let gridSize = 16
    /// Samples per side of the stored grid: the quad's and a border of one.
    private static let side = gridSize + 2

    /// `side × side` samples, grey levels; `inside` marks those within the frame.
    private var samples: [Float]
    private var inside: [Bool]
    /// The quad's own window (no shift), zero mean, unit length (all zero when flat).
    public private(set) var normalised: [Float]
    /// Standard deviation of the quad's own samples, grey levels: the patch's contrast.
    public private(set) var contrast: Float
    /// Shade changes along the quad's middle line (left side's midpoint to the right side's, a
    /// sample per level-0 pixel): about a 1D code's bars and spaces, which the grid is too coarse
    /// to see; a few for big bars or print, none for a blank.
    public private(set) var crossings: Int

    /// The look of `quad` (level-0 pixels, clockwise from the code's own top-left) in `pyramid`;
    /// nil when fewer than half of the quad's samples lie inside the frame.
    public init?(_ pyramid: LumaPyramid, quad: Quad) {
        let n = Self.gridSize, m = Self.side
        // The level where the quad spans about two pixels per sample.
        var level = 0
        while level + 1 < pyramid.levels.count, quad.meanSide / Double(1 << (level + 1)) >= Double(2 * n) { level += 1 }
        let plane = pyramid.levels[level]
        let s = 1 / Double(1 << level)
        let c = quad.corners.map { Point(x: $0.x * s, y: $0.y * s) }
        samples = [Float](repeating: 0, count: m * m)
        inside = [Bool](repeating: false, count: m * m)
        for j in 0..<m {
            // Sample centres at (k + 0.5) / n of the quad for k = -1 … n: one beyond each edge.
            let v = (Double(j - 1) + 0.5) / Double(n)
            let left = c[0] + (c[3] - c[0]) * v, right = c[1] + (c[2] - c[1]) * v
            for i in 0..<m {
                let p = left + (right - left) * ((Double(i - 1) + 0.5) / Double(n))
                guard let value = Self.sample(plane, p.x, p.y) else { continue }
                samples[j * m + i] = value
                inside[j * m + i] = true
            }
        }
        guard let (vector, deviation, count) = Self.window(samples, inside, dx: 0, dy: 0), count * 2 >= n * n else { return nil }
        normalised = vector
        contrast = deviation
        crossings = Self.crossings(pyramid.levels[0], from: (quad.corners[0] + quad.corners[3]) * 0.5,
                                   to: (quad.corners[1] + quad.corners[2]) * 0.5)
    }

    /// Shade changes along the line from `a` to `b` (pixels of `plane`): crossings of the line's mean
    /// grey by more than a quarter of its standard deviation either way.
    private static func crossings(_ plane: LumaPlane, from a: Point, to b: Point) -> Int {
        let steps = Int(a.distance(to: b).rounded(.up))
        guard steps >= 2 else { return 0 }
        let line = (0...steps).compactMap { k in sample(plane, a.x + (b.x - a.x) * Double(k) / Double(steps), a.y + (b.y - a.y) * Double(k) / Double(steps)) }
        guard line.count >= 2 else { return 0 }
        let mean = line.reduce(0, +) / Float(line.count)
        let band = 0.25 * (line.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Float(line.count)).squareRoot()
        var count = 0, dark: Bool?
        for v in line {
            if v < mean - band, dark != true { if dark != nil { count += 1 }; dark = true }
            if v > mean + band, dark != false { if dark != nil { count += 1 }; dark = false }
        }
        return count
    }

    /// The quad's window shifted by (`dx`, `dy`) samples, zero mean and unit length (samples outside
    /// the frame count as the mean: they neither match nor contradict), its standard deviation and
    /// how many of its samples lie inside the frame; nil when none does.
    private static func window(_ samples: [Float], _ inside: [Bool], dx: Int, dy: Int) -> ([Float], Float, Int)? {
        let n = gridSize, m = side
        var values = [Float](repeating: 0, count: n * n)
        var count = 0, sum: Float = 0
        for j in 0..<n {
            for i in 0..<n where inside[(j + 1 + dy) * m + i + 1 + dx] {
                let v = samples[(j + 1 + dy) * m + i + 1 + dx]
                values[j * n + i] = v
                sum += v
                count += 1
            }
        }
        guard count > 0 else { return nil }
        let mean = sum / Float(count)
        var squares: Float = 0
        for j in 0..<n {
            for i in 0..<n {
                if inside[(j + 1 + dy) * m + i + 1 + dx] {
                    values[j * n + i] -= mean
                    squares += values[j * n + i] * values[j * n + i]
                } else {
                    values[j * n + i] = 0
                }
            }
        }
        let norm = squares.squareRoot()
        return (norm > 0 ? values.map { $0 / norm } : values, (squares / Float(count)).squareRoot(), count)
    }

    /// Normalised cross-correlation with `reference`'s own window, −1…1, at the best of this
    /// patch's windows shifted by up to one sample: 1 the same texture (whatever the brightness and
    /// contrast), about 0 an unrelated one.
    public func similarity(to reference: Appearance) -> Double {
        var best: Float = -1
        for dy in -1...1 {
            for dx in -1...1 {
                guard let (w, _, _) = Self.window(samples, inside, dx: dx, dy: dy) else { continue }
                var dot: Float = 0
                for k in w.indices { dot += w[k] * reference.normalised[k] }
                best = max(best, dot)
            }
        }
        return Double(best)
    }

    /// Correlation (`similarity`) at which a patch still shows the code whose look it is compared with.
    public static let sameCodeSimilarity = 0.45

    /// Whether this patch still shows the code whose look was `reference`: similar texture
    /// (correlation at least `minSimilarity`) and not much flatter (contrast at least
    /// `minContrastRatio` of the reference's; a hand or a blank box over a code is flat).
    public func matches(_ reference: Appearance, minSimilarity: Double = sameCodeSimilarity, minContrastRatio: Double = 0.35) -> Bool {
        guard Double(contrast) >= minContrastRatio * Double(reference.contrast) else { return false }
        return similarity(to: reference) >= minSimilarity
    }

    /// Bilinear sample of `plane` at (x, y) (pixel centres at +0.5); nil outside it.
    private static func sample(_ plane: LumaPlane, _ x: Double, _ y: Double) -> Float? {
        let fx = x - 0.5, fy = y - 0.5
        guard fx >= 0, fy >= 0, fx <= Double(plane.width - 1), fy <= Double(plane.height - 1) else { return nil }
        let x0 = Int(fx), y0 = Int(fy)
        let x1 = min(x0 + 1, plane.width - 1), y1 = min(y0 + 1, plane.height - 1)
        let ax = Float(fx - Double(x0)), ay = Float(fy - Double(y0))
        let w = plane.width
        return plane.pixels.withUnsafeBufferPointer { p in
            let top = Float(p[y0 * w + x0]) * (1 - ax) + Float(p[y0 * w + x1]) * ax
            let bottom = Float(p[y1 * w + x0]) * (1 - ax) + Float(p[y1 * w + x1]) * ax
            return top * (1 - ay) + bottom * ay
        }
    }
}
