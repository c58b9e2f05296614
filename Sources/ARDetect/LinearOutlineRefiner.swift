import ARCore
import Foundation

/// Fits the outline of a decoded 1D code (EAN, UPC, Code 128, …) to the image edge by edge, so a
/// code seen in perspective gets its true quadrilateral rather than a rectangle, and the bar ends
/// are found even where fine bars fan out.
///
/// Starting from an approximate outline (e.g. the detector's: right axis and length, possibly too
/// short across the bars or rectangular where the code is keystoned):
/// 1. top and bottom: in slices along the code, the bar texture (mean absolute difference along the
///    code's axis, which needs no alignment with the bars) measured line by line outward from the
///    centre line; a bar end is where it falls to half its value inside the bars; one line per edge
///    through the slices' ends;
/// 2. left and right: on lines across the bars' height, the first and last bar edge, walking out
///    from the middle of the code edge by edge until a gap wider than any element (the quiet
///    zone); one line per edge;
/// 3. the corners are the four lines' intersections.
///
/// Pure function of the image and the input outline; nil when the image does not support a fit
/// (then keep the input). The second stage of the one 1D outline fit: `LinearOutline` fits the
/// detector's rectangle from zbar's scan-line points; tracking refines it here, whichever element
/// decoded it (`arbarcodetrack`, or `arbarcodedetect ! artrack`).
public struct LinearOutlineRefiner: Sendable {
    /// Slices along the code for the bar ends.
    public var slices = 6
    /// Lines across the bars for the first and last bar edge.
    public var lines = 6

    public init() {}

    /// The outline of the 1D code approximately at `quad` (frame pixels, clockwise from the code's
    /// own top-left, top edge along the reading direction), fitted in `plane`; nil when no fit.
    public func refine(_ quad: Quad, in plane: LumaPlane) -> Quad? {
        plane.withImage { refine(quad, in: $0) }
    }

    /// `refine(_:in:)` on an image borrowed from a frame.
    public func refine(_ quad: Quad, in luma: LumaImage) -> Quad? {
        fit(quad, image: Sampler(luma: luma))
    }

    private func fit(_ quad: Quad, image: Sampler) -> Quad? {
        let axis = (quad.topRight - quad.topLeft) + (quad.bottomRight - quad.bottomLeft)
        let length = (axis.x * axis.x + axis.y * axis.y).squareRoot()
        guard length > 0, length.isFinite else { return nil }
        let u = axis * (1 / length)
        let d = Point(x: -u.y, y: u.x)  // down in the code's own frame (y down on screen)
        let c = quad.center
        let ts = quad.corners.map { dot($0 - c, u) }
        let tL = (ts[0] + ts[3]) / 2, tR = (ts[1] + ts[2]) / 2
        let width = tR - tL
        guard width >= 16 else { return nil }

        // 1. Bar ends, slice by slice.
        let reach = max(12, width)
        var top: [(t: Double, s: Double)] = [], bottom: [(t: Double, s: Double)] = []
        for k in 0..<slices {
            let a = tL + width * (0.08 + 0.84 * Double(k) / Double(slices))
            let b = tL + width * (0.08 + 0.84 * Double(k + 1) / Double(slices))
            // Mean |I(t + 1) − I(t − 1)| over t = a, a + 1, … ≤ b on the line s: each sample taken
            // once, as the right neighbour of one point and the left of the one two further.
            let points = Int((b - a).rounded(.down)) + 1
            var line = [Double](repeating: 0, count: points + 2)
            func texture(_ s: Double) -> Double? {
                guard points > 0 else { return nil }
                let start = c + u * (a - 1) + d * s
                if image.holdsInside(start), image.holdsInside(start + u * Double(points + 1)) {
                    // Four points at a time, each as `start + u * k` computes it.
                    var k = 0
                    while k + 4 <= points + 2 {
                        let f = SIMD4<Double>.counting(from: k)
                        let v = image.luma.sampleInside(start.x + u.x * f, start.y + u.y * f)
                        for j in 0..<4 { line[k + j] = v[j] }
                        k += 4
                    }
                    while k < points + 2 {
                        line[k] = image.sampleInside(start + u * Double(k))
                        k += 1
                    }
                } else {
                    for k in 0..<(points + 2) {
                        guard let v = image.sample(start + u * Double(k)) else { return nil }
                        line[k] = v
                    }
                }
                var sum = 0.0
                for k in 0..<points { sum += abs(line[k + 2] - line[k]) }
                return sum / Double(points)
            }
            var inner: [Double] = []
            for s in [-2.0, -1, 0, 1, 2] { if let e = texture(s) { inner.append(e) } }
            guard inner.count == 5 else { continue }
            let reference = inner.sorted()[2]
            guard reference > 4 else { continue }
            for direction in [-1.0, 1.0] {
                var previous = reference, s = 1.0
                while s <= reach {
                    guard let e = texture(direction * s) else { break }
                    if e < reference / 2 {
                        let end = s - 1 + (previous - reference / 2) / max(previous - e, 1e-9)
                        let point = (t: (a + b) / 2, s: direction * end)
                        if direction < 0 { top.append(point) } else { bottom.append(point) }
                        break
                    }
                    previous = min(e, reference)
                    s += 1
                }
            }
        }
        guard let topLine = Self.fitLine(top.map { ($0.t, $0.s) }, tolerance: 1.5),
              let bottomLine = Self.fitLine(bottom.map { ($0.t, $0.s) }, tolerance: 1.5) else { return nil }
        let tMid = (tL + tR) / 2
        let sTop = topLine.at(tMid), sBottom = bottomLine.at(tMid)
        let height = sBottom - sTop
        guard height >= 4 else { return nil }

        // 2. First and last bar edge on lines across the height.
        var left: [(s: Double, t: Double)] = [], right: [(s: Double, t: Double)] = []
        let margin = 0.2 * width + 6
        for j in 0..<lines {
            let f = 0.1 + 0.8 * Double(j) / Double(max(1, lines - 1))
            let s = sTop + f * height
            guard let span = Self.barSpan(image, centre: c + d * s, u: u, d: d, from: tL - margin, to: tR + margin,
                                          inner: (tL + 0.25 * width)...(tR - 0.25 * width)) else { continue }
            left.append((s, span.lowerBound))
            right.append((s, span.upperBound))
        }
        guard let leftLine = Self.fitLine(left.map { ($0.s, $0.t) }, tolerance: 1.0),
              let rightLine = Self.fitLine(right.map { ($0.s, $0.t) }, tolerance: 1.0) else { return nil }

        // 3. Corners: top/bottom lines give s(t), left/right lines give t(s).
        func corner(_ edge: Line, _ side: Line) -> Point? {
            // s = e0 + e1 t, t = s0 + s1 s  ⇒  t = s0 + s1 (e0 + e1 t).
            let denom = 1 - side.slope * edge.slope
            guard abs(denom) > 1e-6 else { return nil }
            let t = (side.offset + side.slope * edge.offset) / denom
            return c + u * t + d * edge.at(t)
        }
        guard let tl = corner(topLine, leftLine), let tr = corner(topLine, rightLine),
              let br = corner(bottomLine, rightLine), let bl = corner(bottomLine, leftLine) else { return nil }
        let fitted = Quad(topLeft: tl, topRight: tr, bottomRight: br, bottomLeft: bl)
        // Plausibility: clockwise, convex, about as long as the input.
        let newLength = (tr.distance(to: tl) + br.distance(to: bl)) / 2
        guard fitted.signedArea > 0, Self.isConvex(fitted), newLength > 0.8 * width, newLength < 1.25 * width
        else { return nil }
        return fitted
    }

    // MARK: - Pieces

    /// y = offset + slope · x.
    struct Line {
        var offset: Double
        var slope: Double
        func at(_ x: Double) -> Double { offset + slope * x }
    }

    /// Least-squares line through `points` (x, y), refitted once without points farther than
    /// `tolerance` (or than 2.5 × the residuals' median) from the first fit; nil with fewer than 3.
    static func fitLine(_ points: [(Double, Double)], tolerance: Double) -> Line? {
        func fit(_ p: [(Double, Double)]) -> Line? {
            guard p.count >= 2 else { return nil }
            let n = Double(p.count)
            let mx = p.reduce(0) { $0 + $1.0 } / n, my = p.reduce(0) { $0 + $1.1 } / n
            var sxx = 0.0, sxy = 0.0
            for (x, y) in p { sxx += (x - mx) * (x - mx); sxy += (x - mx) * (y - my) }
            guard sxx > 1e-9 else { return nil }
            let slope = sxy / sxx
            return Line(offset: my - slope * mx, slope: slope)
        }
        guard points.count >= 3, let first = fit(points) else { return nil }
        let residuals = points.map { abs($0.1 - first.at($0.0)) }
        let median = residuals.sorted()[residuals.count / 2]
        let limit = max(tolerance, 2.5 * median)
        let kept = points.indices.filter { residuals[$0] <= limit }.map { points[$0] }
        guard kept.count >= 3 else { return nil }
        return kept.count == points.count ? first : fit(kept)
    }

    /// Along the line `centre + u·t`, t in `from...to` (averaged over three lines 1 px apart along
    /// `d`): the first and last bar edge, walking out from the edges in `inner` while the gap to the
    /// next edge is no wider than any element inside.
    static func barSpan(_ image: Sampler, centre: Point, u: Point, d: Point, from: Double, to: Double,
                        inner: ClosedRange<Double>) -> ClosedRange<Double>? {
        let step = 0.5
        let n = Int((to - from) / step) + 1
        guard n >= 8 else { return nil }
        var profile = [Double](repeating: 0, count: n)
        var valid = [Bool](repeating: true, count: n)
        // Lines whose ends lie well inside the plane need no check per sample (same values).
        let ends = [-1.0, 1].flatMap { o in [centre + u * from + d * o, centre + u * (from + Double(n - 1) * step) + d * o] }
        let whole = ends.allSatisfy { image.holdsInside($0) }
        var done = 0
        // Inside, four points at a time, each as `centre + u * t + d * o` computes it.
        while whole, done + 4 <= n {
            let t = from + SIMD4<Double>.counting(from: done) * step
            let px = centre.x + u.x * t, py = centre.y + u.y * t
            var sum = SIMD4<Double>(repeating: 0)
            for o in [-1.0, 0, 1] { sum += image.luma.sampleInside(px + d.x * o, py + d.y * o) }
            let mean = sum / 3
            for k in 0..<4 { profile[done + k] = mean[k] }
            done += 4
        }
        for i in done..<n {
            let p = centre + u * (from + Double(i) * step)
            var sum = 0.0
            for o in [-1.0, 0, 1] {
                guard let v = whole ? image.sampleInside(p + d * o) : image.sample(p + d * o) else { valid[i] = false; break }
                sum += v
            }
            profile[i] = sum / 3
        }
        let iLo = max(1, Int((inner.lowerBound - from) / step)), iHi = min(n - 2, Int((inner.upperBound - from) / step))
        guard iLo < iHi, let edges = LinearOutline.profileEdges(profile, valid: valid, origin: from, step: step,
                                                                 strongIn: iLo...iHi, minStrong: 8) else { return nil }
        let innerEdges = edges.filter { inner.contains($0) }
        guard innerEdges.count >= 4, var first = edges.firstIndex(where: { inner.contains($0) }),
              var last = edges.lastIndex(where: { inner.contains($0) }) else { return nil }
        var gaps: [Double] = []
        for i in 1..<innerEdges.count { gaps.append(innerEdges[i] - innerEdges[i - 1]) }
        gaps.sort()
        let limit = max(3, 1.5 * max(gaps[gaps.count - 1], 2 * gaps[gaps.count / 2]))
        while first > 0, edges[first] - edges[first - 1] <= limit { first -= 1 }
        while last < edges.count - 1, edges[last + 1] - edges[last] <= limit { last += 1 }
        // A walk that reached the end of the searched line, or of the image on it (a code clipped
        // by the frame border), did not find the quiet zone.
        guard let lo = valid.firstIndex(of: true), let hi = valid.lastIndex(of: true) else { return nil }
        let seenFrom = from + Double(lo) * step, seenTo = from + Double(hi) * step
        guard first > 0 || edges[first] - seenFrom > limit, last < edges.count - 1 || seenTo - edges[last] > limit else { return nil }
        return edges[first]...edges[last]
    }

    static func isConvex(_ q: Quad) -> Bool {
        let c = q.corners
        for i in 0..<4 {
            let a = c[i], b = c[(i + 1) % 4], e = c[(i + 2) % 4]
            let cross = (b.x - a.x) * (e.y - b.y) - (b.y - a.y) * (e.x - b.x)
            if cross <= 0 { return false }
        }
        return true
    }

    /// `LumaImage`'s bilinear samples (frame coordinates: pixel (i, j) covers [i, i+1) × [j, j+1)),
    /// nil instead of clamped outside the image.
    struct Sampler {
        let luma: LumaImage

        /// The value at `p`, nil where a neighbour of it lies outside the image.
        func sample(_ p: Point) -> Double? {
            let fx = p.x - 0.5, fy = p.y - 0.5
            guard fx >= 0, fy >= 0, fx < Double(luma.width - 1), fy < Double(luma.height - 1) else { return nil }
            return luma.sampleInside(p.x, p.y)
        }

        /// `LumaImage.holdsInside`: the points between two such points on a line are sampled
        /// with `sampleInside`.
        func holdsInside(_ p: Point) -> Bool { luma.holdsInside(p.x, p.y) }

        /// `sample` without the bounds check, for a point it accepts: the same value.
        func sampleInside(_ p: Point) -> Double { luma.sampleInside(p.x, p.y) }
    }
}
