import Foundation

extension Quad {
    /// Whether `p` lies inside this quad (convex, either winding; edges included), pixels.
    public func contains(_ p: Point) -> Bool {
        let c = corners
        var sign = 0.0
        for i in 0..<4 {
            let a = c[i], b = c[(i + 1) % 4]
            let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
            guard cross.isFinite else { return false }
            if cross != 0 {
                if sign == 0 { sign = cross } else if (cross > 0) != (sign > 0) { return false }
            }
        }
        return sign != 0
    }

    /// Whether this quad and `other` (convex, either winding) share more than an edge: no edge
    /// normal of either separates their projections (separating axes).
    public func overlaps(_ other: Quad) -> Bool {
        for quad in [self, other] {
            let c = quad.corners
            for i in 0..<4 {
                let n = Point(x: c[(i + 1) % 4].y - c[i].y, y: c[i].x - c[(i + 1) % 4].x)
                let a = corners.map { dot($0, n) }, b = other.corners.map { dot($0, n) }
                guard let aMin = a.min(), let aMax = a.max(), let bMin = b.min(), let bMax = b.max(),
                      aMin.isFinite, aMax.isFinite, bMin.isFinite, bMax.isFinite else { return false }
                if aMax <= bMin || bMax <= aMin { return false }
            }
        }
        return true
    }
}

extension Quad {
    /// Whether each edge of this quad runs within `maxTurn` radians of the matching edge of
    /// `followed` (corners matched by the cyclic order nearest to `followed`'s; both quads of the
    /// same winding, as every outline here is clockwise): a code's outline
    /// keeps its shape from one frame to the next, whatever its size. A fit that leans its sides
    /// onto a neighbouring code's bars turns them by tens of degrees.
    public func keepsEdgeDirections(of followed: Quad, maxTurn: Double) -> Bool {
        let mine = corners, theirs = followed.corners
        func apart(_ shift: Int) -> Double { (0..<4).reduce(0) { $0 + mine[($1 + shift) % 4].distance(to: theirs[$1]) } }
        let shift = (0..<4).min { apart($0) < apart($1) }!
        return (0..<4).allSatisfy { i in
            let a = mine[(i + 1 + shift) % 4] - mine[(i + shift) % 4], b = theirs[(i + 1) % 4] - theirs[i]
            return axisDifference(atan2(a.y, a.x), atan2(b.y, b.x)) <= maxTurn
        }
    }

    /// Whether this quad is a plausible image of `previous` after one motion step: finite, convex
    /// with the same winding, and its area within `maxAreaRatio` (either way) of `previous`'s. A
    /// motion fitted to a few stray points can fold a quad or blow it up; such a step is refused.
    public func isPlausibleMove(from previous: Quad, maxAreaRatio: Double = 2) -> Bool {
        guard isFinite else { return false }
        let before = previous.signedArea, after = signedArea
        guard before != 0, after != 0, (before > 0) == (after > 0) else { return false }
        let ratio = after / before
        guard ratio <= maxAreaRatio, ratio >= 1 / maxAreaRatio else { return false }
        let c = corners
        var sign = 0.0
        for i in 0..<4 {
            let a = c[i], b = c[(i + 1) % 4], e = c[(i + 2) % 4]
            let cross = (b.x - a.x) * (e.y - b.y) - (b.y - a.y) * (e.x - b.x)
            guard cross != 0 else { return false }
            if sign == 0 { sign = cross } else if (cross > 0) != (sign > 0) { return false }
        }
        return true
    }
}

extension Quad {
    /// The direction of the top and bottom edges (corner 0 → 1 and 3 → 2, summed: a code's reading
    /// direction), radians from the x axis, −π…π.
    public var readingAxis: Double {
        let v = (corners[1] - corners[0]) + (corners[2] - corners[3])
        return atan2(v.y, v.x)
    }
}
