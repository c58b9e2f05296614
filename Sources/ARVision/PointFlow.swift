import ARCore

/// Sparse optical flow: pyramidal Lucas–Kanade (Bouguet's formulation) on a few points.
///
/// For each point the displacement is refined from the coarsest pyramid level to the finest,
/// starting from a guess (e.g. the motion model's prediction), with a square window of
/// `2·windowRadius + 1` pixels on every level. Pure and deterministic.
public struct PointFlow: Sendable {
    /// Window half-size, pixels (on every level).
    public var windowRadius: Int
    /// Most Gauss–Newton steps per level.
    public var iterations: Int
    /// A point whose final mean absolute difference over its window exceeds this (gray levels) is dropped.
    public var maxResidual: Double
    /// A window whose gradient matrix's smaller eigenvalue (per pixel, gray levels²) is below this is untrackable.
    public var minEigenvalue: Double

    /// Defaults: 9×9 windows, 8 steps per level, residual ≤ 18 gray levels, eigenvalue ≥ 4.
    public init(windowRadius: Int = 4, iterations: Int = 8, maxResidual: Double = 18, minEigenvalue: Double = 4) {
        self.windowRadius = windowRadius
        self.iterations = iterations
        self.maxResidual = maxResidual
        self.minEigenvalue = minEigenvalue
    }

    /// Where each of `points` (level-0 pixels in `previous`) went in `next`; nil where it was lost.
    /// `guesses` are the expected positions in `next` (nil: the same positions). Both pyramids must
    /// have the same level-0 size; the coarser of their level counts is used.
    public func track(_ points: [Point], from previous: LumaPyramid, to next: LumaPyramid, guesses: [Point]? = nil) -> [Point?] {
        let levels = min(previous.levels.count, next.levels.count)
        guard previous.width == next.width, previous.height == next.height else { return points.map { _ in nil } }
        let n = (2 * windowRadius + 1) * (2 * windowRadius + 1)
        // Window values and gradients, shared by every point (one allocation per call).
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 3 * n) { buffer in
            let iv = buffer.baseAddress!, gx = iv + n, gy = gx + n
            return points.indices.map { i in
                let guess = guesses?[i] ?? points[i]
                return trackOne(points[i], guess: guess, previous: previous, next: next, levels: levels, iv: iv, gx: gx, gy: gy)
            }
        }
    }

    private func trackOne(_ p: Point, guess: Point, previous: LumaPyramid, next: LumaPyramid, levels: Int,
                          iv: UnsafeMutablePointer<Double>, gx: UnsafeMutablePointer<Double>,
                          gy: UnsafeMutablePointer<Double>) -> Point? {
        let top = levels - 1
        var scale = Double(1 << top)
        // Displacement on the current level.
        var g = Point(x: (guess.x - p.x) / scale, y: (guess.y - p.y) / scale)
        let r = windowRadius, n = (2 * r + 1) * (2 * r + 1)
        for level in stride(from: top, through: 0, by: -1) {
            let a = previous.levels[level], b = next.levels[level]
            let q = Point(x: p.x / scale, y: p.y / scale)
            guard let (sxx, sxy, syy) = window(a, at: q, values: iv, gx: gx, gy: gy) else {
                if level == 0 { return nil }
                g = g * 2; scale /= 2; continue
            }
            let det = sxx * syy - sxy * sxy
            let trace = sxx + syy
            let minEig = (trace - ((sxx - syy) * (sxx - syy) + 4 * sxy * sxy).squareRoot()) / 2
            guard det > 1e-9, minEig / Double(n) >= minEigenvalue else {
                if level == 0 { return nil }
                g = g * 2; scale /= 2; continue
            }
            var v = Point(x: 0, y: 0)
            for _ in 0..<iterations {
                guard let (bx, by, _) = mismatch(b, at: q + g + v, values: iv, gx: gx, gy: gy) else { return nil }
                let ex = (syy * bx - sxy * by) / det, ey = (sxx * by - sxy * bx) / det
                v = v + Point(x: ex, y: ey)
                if ex * ex + ey * ey < 0.0004 { break }
            }
            if level == 0 {
                guard let (_, _, residual) = mismatch(b, at: q + g + v, values: iv, gx: gx, gy: gy),
                      residual / Double(n) <= maxResidual else { return nil }
                return p + g + v
            }
            g = (g + v) * 2
            scale /= 2
        }
        return nil
    }

    /// Samples the window around `c` in `plane`: values and central-difference gradients, and the
    /// gradient matrix's entries. Nil when the window (plus one pixel) leaves the plane.
    private func window(_ plane: LumaPlane, at c: Point, values: UnsafeMutablePointer<Double>,
                        gx: UnsafeMutablePointer<Double>, gy: UnsafeMutablePointer<Double>) -> (Double, Double, Double)? {
        let r = Double(windowRadius)
        guard c.x - r - 1.5 >= 0, c.y - r - 1.5 >= 0, c.x + r + 1.5 < Double(plane.width),
              c.y + r + 1.5 < Double(plane.height) else { return nil }
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        plane.pixels.withUnsafeBufferPointer { px in
            let w = plane.width
            // Bilinear weights are the same for every window pixel.
            let fx = c.x - 0.5 - r, fy = c.y - 0.5 - r
            let x0 = Int(fx.rounded(.down)), y0 = Int(fy.rounded(.down))
            let ax = fx - Double(x0), ay = fy - Double(y0)
            let w00 = (1 - ax) * (1 - ay), w10 = ax * (1 - ay), w01 = (1 - ax) * ay, w11 = ax * ay
            // The window plus a one-pixel border, sampled once; gradients are differences of it.
            let side = 2 * windowRadius + 1, ps = side + 2
            withUnsafeTemporaryAllocation(of: Double.self, capacity: ps * ps) { patch in
                for j in 0..<ps {
                    var o = (y0 - 1 + j) * w + x0 - 1
                    for i in 0..<ps {
                        patch[j * ps + i] = w00 * Double(px[o]) + w10 * Double(px[o + 1]) + w01 * Double(px[o + w]) + w11 * Double(px[o + w + 1])
                        o += 1
                    }
                }
                var k = 0
                for j in 0..<side {
                    for i in 0..<side {
                        let c = (j + 1) * ps + i + 1
                        values[k] = patch[c]
                        let dx = (patch[c + 1] - patch[c - 1]) / 2, dy = (patch[c + ps] - patch[c - ps]) / 2
                        gx[k] = dx; gy[k] = dy
                        sxx += dx * dx; sxy += dx * dy; syy += dy * dy
                        k += 1
                    }
                }
            }
        }
        return (sxx, sxy, syy)
    }

    /// Σ (I − J)·∇I over the window placed at `c` in `plane`, and Σ |I − J|. Nil outside the plane.
    private func mismatch(_ plane: LumaPlane, at c: Point, values: UnsafeMutablePointer<Double>,
                          gx: UnsafeMutablePointer<Double>, gy: UnsafeMutablePointer<Double>) -> (Double, Double, Double)? {
        let r = Double(windowRadius)
        guard c.x.isFinite, c.y.isFinite, c.x - r - 0.5 >= 0, c.y - r - 0.5 >= 0, c.x + r + 1.5 < Double(plane.width),
              c.y + r + 1.5 < Double(plane.height) else { return nil }
        var bx = 0.0, by = 0.0, abs = 0.0
        plane.pixels.withUnsafeBufferPointer { px in
            let w = plane.width
            let fx = c.x - 0.5 - r, fy = c.y - 0.5 - r
            let x0 = Int(fx.rounded(.down)), y0 = Int(fy.rounded(.down))
            let ax = fx - Double(x0), ay = fy - Double(y0)
            let w00 = (1 - ax) * (1 - ay), w10 = ax * (1 - ay), w01 = (1 - ax) * ay, w11 = ax * ay
            let side = 2 * windowRadius + 1
            var k = 0
            for j in 0..<side {
                var o = (y0 + j) * w + x0
                for _ in 0..<side {
                    let jv = w00 * Double(px[o]) + w10 * Double(px[o + 1]) + w01 * Double(px[o + w]) + w11 * Double(px[o + w + 1])
                    let d = values[k] - jv
                    bx += d * gx[k]; by += d * gy[k]
                    abs += d < 0 ? -d : d
                    k += 1; o += 1
                }
            }
        }
        return (bx, by, abs)
    }
}
