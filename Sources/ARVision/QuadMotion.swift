import ARCore

/// How a code's outline moved between two frames, measured from the image.
public struct QuadMotion: Sendable {
    /// Maps previous-frame pixels onto next-frame pixels (a similarity or a homography).
    public var transform: Homography
    /// Points that agreed with `transform`, and points tracked in all.
    public var inliers: Int
    public var tracked: Int
}

/// Estimates each code's motion between frames: corner-like points inside the quad (Shi–Tomasi
/// score on a grid), followed by `PointFlow`, robustly fitted by `MotionFit`. Pure and deterministic.
public struct QuadMotionEstimator: Sendable {
    public var flow = PointFlow()
    /// Candidate grid per side inside the quad (grid² candidates).
    public var grid = 8
    /// Most points followed per quad.
    public var maxPoints = 32
    /// Agreement threshold of the robust fit, pixels.
    public var threshold = 1.0
    /// Least share of followed points that must agree.
    public var minInlierRatio = 0.5

    public init() {}

    /// The motion of the code at `quad` (pixels of `previous`) into `next`, expected near `predicted`
    /// (a previous→next map, e.g. the last motion again; nil = no motion). Nil when too few points follow.
    public func estimate(_ quad: Quad, from previous: LumaPyramid, to next: LumaPyramid, predicted: Homography? = nil) -> QuadMotion? {
        let points = features(in: quad, plane: previous.levels[0])
        guard points.count >= 4 else { return nil }
        let guesses = predicted.map { h in points.map { h.apply($0) } }
        let moved = flow.track(points, from: previous, to: next, guesses: guesses)
        var src: [Point] = [], dst: [Point] = []
        for (p, q) in zip(points, moved) { if let q { src.append(p); dst.append(q) } }
        guard src.count >= 4,
              let fit = MotionFit.robust(from: src, to: dst, threshold: threshold,
                                         minInliers: max(4, Int((Double(src.count) * minInlierRatio).rounded(.up))))
        else { return nil }
        return QuadMotion(transform: fit.motion, inliers: fit.inliers.count, tracked: src.count)
    }

    /// Up to `maxPoints` well-textured points on a grid over `quad` (its edges included), best
    /// first by the smaller eigenvalue of the local gradient matrix.
    public func features(in quad: Quad, plane: LumaPlane) -> [Point] {
        let r = 3
        var scored: [(score: Int, point: Point)] = []
        let n = max(2, grid)
        plane.pixels.withUnsafeBufferPointer { px in
            let w = plane.width
            for j in 0..<n {
                for i in 0..<n {
                    let p = quad.anchorPoint(u: Double(i) / Double(n - 1), v: Double(j) / Double(n - 1))
                    let cx = Int(p.x), cy = Int(p.y)
                    guard cx - r - 1 >= 0, cy - r - 1 >= 0, cx + r + 1 < w, cy + r + 1 < plane.height else { continue }
                    var sxx = 0, sxy = 0, syy = 0
                    for y in (cy - r)...(cy + r) {
                        for x in (cx - r)...(cx + r) {
                            let o = y * w + x
                            let dx = Int(px[o + 1]) - Int(px[o - 1]), dy = Int(px[o + w]) - Int(px[o - w])
                            sxx += dx * dx; sxy += dx * dy; syy += dy * dy
                        }
                    }
                    let a = Double(sxx), b = Double(sxy), c = Double(syy)
                    let minEig = (a + c - ((a - c) * (a - c) + 4 * b * b).squareRoot()) / 2
                    scored.append((Int(minEig), p))
                }
            }
        }
        guard let top = scored.map(\.score).max(), top > 0 else { return [] }
        return scored.enumerated()
            .filter { $0.element.score * 20 >= top }
            .sorted { ($0.element.score, -$0.offset) > ($1.element.score, -$1.offset) }
            .prefix(maxPoints).map(\.element.point)
    }
}
