import ARCore

/// A flat target (a picture, a poster) followed by the motion of its own texture.
///
/// Points with 2D texture inside the target are followed frame to frame (`PointFlow`); each keeps
/// its place on the target (in the unit square of the target's own coordinates, fixed when it was
/// seeded), and one homography from the unit square to the frame is fitted to all of them robustly
/// (`HomographyFit`): points on something passing in front (occlusion) or lost disagree and are
/// dropped, and new points are seeded when fewer than half are left. The fit is against each
/// point's place on the target, not the last frame's, so errors do not add up frame after frame.
/// Pure and deterministic.
public struct PlanarTarget: Sendable {
    /// Where the target is, frame pixels (the unit square's corners mapped by `pose`).
    public private(set) var quad: Quad
    /// Maps the target's unit square ((0,0) top-left … (1,1) bottom-right) onto the frame.
    public private(set) var pose: Homography
    /// Followed points: their place on the target (unit square) and in the last frame (pixels).
    private var reference: [Point] = []
    private var points: [Point] = []
    /// Points after the last seeding.
    private var seeded = 0
    /// The last frame-to-frame motion: the guess for the next.
    private var velocity: Homography?

    /// Most points followed.
    public static let maxPoints = 64
    /// Least points that must agree for a fit.
    public static let minInliers = 8
    /// Agreement threshold of the fit, pixels.
    public static let threshold = 2.0

    static let unitSquare = Quad(topLeft: Point(x: 0, y: 0), topRight: Point(x: 1, y: 0), bottomRight: Point(x: 1, y: 1),
                                 bottomLeft: Point(x: 0, y: 1))

    /// Points now followed.
    public var pointCount: Int { points.count }

    /// A target at `quad` (pixels of `pyramid`'s level 0), with points seeded there; nil when the
    /// quad is degenerate or too few points with texture lie inside it.
    public init?(quad: Quad, pyramid: LumaPyramid) {
        guard let pose = Homography(from: Self.unitSquare, to: quad) else { return nil }
        self.quad = quad
        self.pose = pose
        seed(pyramid)
        guard points.count >= Self.minInliers else { return nil }
    }

    /// Follows the target from `previous` to `next` (consecutive frames' pyramids). False when it
    /// could not be followed (covered, out of the frame, blurred): it then stays where it was.
    public mutating func track(from previous: LumaPyramid, to next: LumaPyramid) -> Bool {
        let flow = PointFlow(windowRadius: 5)
        let guesses = velocity.map { v in points.map { v.apply($0) } }
        let moved = flow.track(points, from: previous, to: next, guesses: guesses)
        var ref: [Point] = [], now: [Point] = []
        for (k, q) in moved.enumerated() {
            if let q { ref.append(reference[k]); now.append(q) }
        }
        reference = ref
        points = now
        guard now.count >= Self.minInliers,
              let fit = HomographyFit.robust(from: ref, to: now, threshold: Self.threshold,
                                             minInliers: max(Self.minInliers, Int((Double(now.count) * 0.4).rounded(.up)))),
              let inverse = pose.inverse
        else {
            velocity = nil
            return false
        }
        let newQuad = fit.homography.apply(Self.unitSquare)
        guard newQuad.isPlausibleMove(from: quad) else {
            velocity = nil
            return false
        }
        velocity = fit.homography * inverse
        pose = fit.homography
        quad = newQuad
        reference = fit.inliers.map { ref[$0] }
        points = fit.inliers.map { now[$0] }
        if points.count * 2 < seeded { seed(next) }
        return true
    }

    /// Moves the target onto `quad` (a fresh detection of it, pixels of `pyramid`), keeping its
    /// points: their places on the target are taken afresh from the new pose.
    public mutating func correct(to quad: Quad, pyramid: LumaPyramid) {
        guard let pose = Homography(from: Self.unitSquare, to: quad), let inverse = pose.inverse else { return }
        self.quad = quad
        self.pose = pose
        reference = points.map { inverse.apply($0) }
        if points.count * 2 < seeded || points.count < Self.minInliers { seed(pyramid) }
    }

    /// Adds points with texture inside the target (away from its border) on `pyramid`'s level 0,
    /// up to `maxPoints`, not within 4 pixels of a point already followed.
    private mutating func seed(_ pyramid: LumaPyramid) {
        guard let inverse = pose.inverse else { return }
        let inner = Quad(Self.unitSquare.corners.map { pose.apply(Point(x: 0.5 + ($0.x - 0.5) * 0.9, y: 0.5 + ($0.y - 0.5) * 0.9)) })!
        var estimator = QuadMotionEstimator()
        estimator.grid = 14
        estimator.maxPoints = Self.maxPoints
        for p in estimator.features(in: inner, plane: pyramid.levels[0]) where points.count < Self.maxPoints {
            guard !points.contains(where: { $0.distance(to: p) < 4 }) else { continue }
            points.append(p)
            reference.append(inverse.apply(p))
        }
        seeded = points.count
    }
}
