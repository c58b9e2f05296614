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
    /// Smaller over larger eigenvalue of the gradient matrix for a point with 2D structure.
    public var minEigenRatio = 0.1
    /// Fewest 2D points for them to be used alone.
    public var minCornerPoints = 8

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

    /// Up to `maxPoints` well-textured points on a grid over `quad` (its edges sampled twice as
    /// densely: a 1D code's bar ends lie there), best first by the smaller eigenvalue of the local
    /// gradient matrix. Points with 2D structure (smaller eigenvalue at least `minEigenRatio` of the
    /// larger) are preferred: a point on a straight bar only sees motion across the bar, so a 1D
    /// code moving along its bars would seem to stand. When fewer than `minCornerPoints` such points
    /// exist, the best points of any kind are used.
    public func features(in quad: Quad, plane: LumaPlane) -> [Point] {
        let r = 3
        var scored: [(score: Int, corner: Bool, point: Point)] = []
        let n = max(2, grid)
        var samples: [(u: Double, v: Double)] = []
        for j in 0..<n {
            for i in 0..<n { samples.append((Double(i) / Double(n - 1), Double(j) / Double(n - 1))) }
        }
        for v in [0.0, 1.0] {
            for i in 0..<(n - 1) { samples.append(((Double(i) + 0.5) / Double(n - 1), v)) }
        }
        plane.pixels.withUnsafeBufferPointer { px in
            let w = plane.width
            for (u, v) in samples {
                let p = quad.anchorPoint(u: u, v: v)
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
                let root = ((a - c) * (a - c) + 4 * b * b).squareRoot()
                let minEig = (a + c - root) / 2, maxEig = (a + c + root) / 2
                scored.append((Int(minEig), minEig >= minEigenRatio * maxEig, p))
            }
        }
        guard let top = scored.map(\.score).max(), top > 0 else { return [] }
        let textured = scored.enumerated().filter { $0.element.score * 20 >= top }
        let corners = textured.filter(\.element.corner)
        return (corners.count >= minCornerPoints ? corners : textured)
            .sorted { ($0.element.score, -$0.offset) > ($1.element.score, -$1.offset) }
            .prefix(maxPoints).map(\.element.point)
    }
}
