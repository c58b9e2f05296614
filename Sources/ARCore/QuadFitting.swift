import Foundation

extension Quad {
    /// The smallest-area rectangle (any rotation) enclosing `points` (pixels), found with a convex hull
    /// and rotating calipers.
    ///
    /// Corners run clockwise on screen (y down), starting from the corner closest to the top-left of
    /// the rectangle's own bounding box (ties go to the higher corner, then the left one). Non-finite
    /// points are ignored. Nil when no finite point is left. One distinct point gives a quad with four
    /// equal corners; two distinct or only collinear points give the enclosing segment as the flat
    /// quad `(a, b, b, a)` with `a` the end closer to the top-left.
    public static func minimumAreaRectangle(enclosing points: [Point]) -> Quad? {
        let hull = convexHull(points.filter { $0.x.isFinite && $0.y.isFinite })
        switch hull.count {
        case 0:
            return nil
        case 1:
            let p = hull[0]
            return Quad(topLeft: p, topRight: p, bottomRight: p, bottomLeft: p)
        case 2:
            let corner = topLeftCorner(of: Rect(enclosing: hull)!)
            let (a, b) = hull[0].distance(to: corner) <= hull[1].distance(to: corner)
                ? (hull[0], hull[1]) : (hull[1], hull[0])
            return Quad(topLeft: a, topRight: b, bottomRight: b, bottomLeft: a)
        default:
            return rotatingCalipers(hull).startingNearTopLeft()
        }
    }

    /// The same corners in clockwise order on screen: when they run counter-clockwise (negative
    /// `signedArea`) they are reordered tl, bl, br, tr → tl, tr, br, bl, keeping `topLeft` first.
    /// Clockwise and flat quads come back unchanged.
    public func clockwiseNormalised() -> Quad {
        guard signedArea < 0 else { return self }
        return Quad(topLeft: topLeft, topRight: bottomLeft, bottomRight: bottomRight, bottomLeft: topRight)
    }

    /// The bilinear point at `(u, v)` in the code's own frame, pixels: (0,0) is `topLeft`, (1,0) is
    /// `topRight`, (1,1) is `bottomRight`, (0,1) is `bottomLeft`. Values outside [0,1] extrapolate.
    public func anchorPoint(u: Double, v: Double) -> Point {
        let top = topLeft * (1 - u) + topRight * u
        let bottom = bottomLeft * (1 - u) + bottomRight * u
        return top * (1 - v) + bottom * v
    }

    /// Mean length of the top and bottom edges, pixels.
    public var width: Double { (topLeft.distance(to: topRight) + bottomLeft.distance(to: bottomRight)) / 2 }

    /// Mean length of the left and right edges, pixels.
    public var height: Double { (topLeft.distance(to: bottomLeft) + topRight.distance(to: bottomRight)) / 2 }

    /// The same cyclic corner order, clockwise on screen, rotated to start at the corner closest to the
    /// bounding box's top-left (ties: smaller y, then smaller x).
    private func startingNearTopLeft() -> Quad {
        let c = clockwiseNormalised().corners
        let origin = topLeftCorner(of: boundingBox)
        var best = 0
        for i in 1..<4 {
            let d = c[i].distance(to: origin), bestD = c[best].distance(to: origin)
            let tolerance = 1e-9 * max(1, bestD)
            if d < bestD - tolerance
                || (abs(d - bestD) <= tolerance && (c[i].y < c[best].y || (c[i].y == c[best].y && c[i].x < c[best].x))) {
                best = i
            }
        }
        return Quad((0..<4).map { c[(best + $0) % 4] })!
    }
}

/// The top-left corner of `rect`, pixels.
private func topLeftCorner(of rect: Rect) -> Point { Point(x: rect.minX, y: rect.minY) }

/// Convex hull (Andrew's monotone chain), counter-clockwise in x-right/y-up terms, without collinear or
/// repeated points. Returns 0, 1 or 2 points for empty, single-point or collinear input.
private func convexHull(_ input: [Point]) -> [Point] {
    let pts = Array(Set(input)).sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
    guard pts.count > 2 else { return pts }
    func cross(_ o: Point, _ a: Point, _ b: Point) -> Double {
        (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
    }
    var lower: [Point] = []
    for p in pts {
        while lower.count >= 2, cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
        lower.append(p)
    }
    var upper: [Point] = []
    for p in pts.reversed() {
        while upper.count >= 2, cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
        upper.append(p)
    }
    let hull = Array(lower.dropLast() + upper.dropLast())
    // All collinear: the chains collapse to the two end points.
    return hull.count == 2 && hull[0] == hull[1] ? [hull[0]] : hull
}

/// Minimum-area enclosing rectangle of a convex hull with at least 3 vertices, in the hull's order.
///
/// One rectangle side lies on some hull edge. For each edge the calipers keep three pointers: the
/// vertex farthest along the edge, farthest from it, and farthest back; each only moves forward as
/// the edge turns, so the whole sweep is linear in the hull size.
private func rotatingCalipers(_ hull: [Point]) -> Quad {
    let n = hull.count
    var best: (area: Double, quad: Quad)? = nil
    var j = 1, k = 1, l = 1
    for i in 0..<n {
        let a = hull[i], b = hull[(i + 1) % n]
        let length = a.distance(to: b)
        let u = Point(x: (b.x - a.x) / length, y: (b.y - a.y) / length)
        // The hull is counter-clockwise (x right, y up), so its interior is to the left of the edge.
        let normal = Point(x: -u.y, y: u.x)
        if i == 0 { j = 1 }
        var steps = 0
        while steps < n, dot(hull[(j + 1) % n], u) > dot(hull[j % n], u) { j += 1; steps += 1 }
        if i == 0 { k = j }
        steps = 0
        while steps < n, dot(hull[(k + 1) % n], normal) > dot(hull[k % n], normal) { k += 1; steps += 1 }
        if i == 0 { l = k }
        steps = 0
        while steps < n, dot(hull[(l + 1) % n], u) < dot(hull[l % n], u) { l += 1; steps += 1 }

        let minU = dot(hull[l % n], u), maxU = dot(hull[j % n], u)
        let minN = dot(a, normal), maxN = dot(hull[k % n], normal)
        let area = (maxU - minU) * (maxN - minN)
        if best == nil || area < best!.area {
            func corner(_ s: Double, _ t: Double) -> Point { u * s + normal * t }
            let quad = Quad(topLeft: corner(minU, minN), topRight: corner(maxU, minN),
                            bottomRight: corner(maxU, maxN), bottomLeft: corner(minU, maxN))
            best = (area, quad)
        }
    }
    return best!.quad
}
