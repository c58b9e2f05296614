import ARCore

/// A code's look where its track is: the luma under its quad, sampled on a fixed grid in the
/// quad's own coordinates at a pyramid level where the grid is about as fine as the pixels (so each
/// sample is an average, not one aliased pixel of fine bars). Compared between frames, it tells
/// whether the code is still there: covered by a hand or a box, torn off, or out of the frame, the
/// texture under the quad no longer matches.
public struct Appearance: Sendable, Equatable {
    /// Samples per side of the grid.
    public static let gridSize = 16

    /// Samples minus their mean, scaled to unit length (all zero for a flat patch).
    public private(set) var normalised: [Float]
    /// Standard deviation of the samples, grey levels: the patch's contrast.
    public private(set) var contrast: Float

    /// The look of `quad` (level-0 pixels, clockwise from the code's own top-left) in `pyramid`;
    /// nil when fewer than half of the grid's samples lie inside the frame.
    public init?(_ pyramid: LumaPyramid, quad: Quad) {
        let n = Self.gridSize
        // The level where the quad spans about two pixels per sample.
        var level = 0
        while level + 1 < pyramid.levels.count, quad.meanSide / Double(1 << (level + 1)) >= Double(2 * n) { level += 1 }
        let plane = pyramid.levels[level]
        let s = 1 / Double(1 << level)
        let c = quad.corners.map { Point(x: $0.x * s, y: $0.y * s) }
        var values = [Float](repeating: 0, count: n * n)
        var inside = [Bool](repeating: false, count: n * n)
        var count = 0, sum: Float = 0
        for j in 0..<n {
            let v = (Double(j) + 0.5) / Double(n)
            let left = c[0] + (c[3] - c[0]) * v, right = c[1] + (c[2] - c[1]) * v
            for i in 0..<n {
                let p = left + (right - left) * ((Double(i) + 0.5) / Double(n))
                guard let value = Self.sample(plane, p.x, p.y) else { continue }
                values[j * n + i] = value
                inside[j * n + i] = true
                count += 1
                sum += value
            }
        }
        guard count * 2 >= n * n else { return nil }
        let mean = sum / Float(count)
        var squares: Float = 0
        for k in values.indices where inside[k] {
            values[k] -= mean
            squares += values[k] * values[k]
        }
        // Samples outside the frame count as the mean: they neither match nor contradict.
        for k in values.indices where !inside[k] { values[k] = 0 }
        contrast = (squares / Float(count)).squareRoot()
        let norm = squares.squareRoot()
        normalised = norm > 0 ? values.map { $0 / norm } : values
    }

    /// Normalised cross-correlation with `other`, −1…1: 1 the same texture (whatever the
    /// brightness and contrast), about 0 an unrelated one.
    public func similarity(to other: Appearance) -> Double {
        var dot: Float = 0
        for k in normalised.indices { dot += normalised[k] * other.normalised[k] }
        return Double(dot)
    }

    /// Whether this patch still shows the code whose look was `reference`: similar texture
    /// (correlation at least `minSimilarity`) and not much flatter (contrast at least
    /// `minContrastRatio` of the reference's; a hand or a blank box over a code is flat).
    public func matches(_ reference: Appearance, minSimilarity: Double = 0.3, minContrastRatio: Double = 0.35) -> Bool {
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
