import Foundation

/// The dot product of `a` and `b` (pixels²).
@inlinable @inline(__always)
public func dot(_ a: Point, _ b: Point) -> Double { a.x * b.x + a.y * b.y }

/// Difference between two axis angles (radians, modulo π: a line's direction either way), 0…π/2.
public func axisDifference(_ a: Double, _ b: Double) -> Double {
    var d = abs(a - b).truncatingRemainder(dividingBy: .pi)
    if d > .pi / 2 { d = .pi - d }
    return d
}

/// A point in frame pixels: x to the right, y down, origin at the top-left corner of the frame.
public struct Point: Hashable, Sendable {
    /// Horizontal position in pixels.
    public var x: Double
    /// Vertical position in pixels (down is positive).
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static func + (a: Point, b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }
    public static func - (a: Point, b: Point) -> Point { Point(x: a.x - b.x, y: a.y - b.y) }
    public static func * (a: Point, s: Double) -> Point { Point(x: a.x * s, y: a.y * s) }

    /// This vector's length (its distance from the origin), pixels.
    public var length: Double { (x * x + y * y).squareRoot() }

    /// This vector scaled to length 1 (zero stays zero).
    public var normalised: Point {
        let l = length
        return l > 0 ? self * (1 / l) : self
    }

    /// Euclidean distance to `other`, in pixels.
    public func distance(to other: Point) -> Double {
        let dx = x - other.x, dy = y - other.y
        return (dx * dx + dy * dy).squareRoot()
    }
}

/// An axis-aligned rectangle in frame pixels.
public struct Rect: Hashable, Sendable {
    /// Left edge, pixels.
    public var x: Double
    /// Top edge, pixels.
    public var y: Double
    /// Width, pixels (not negative).
    public var width: Double
    /// Height, pixels (not negative).
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var minX: Double { x }
    public var minY: Double { y }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var center: Point { Point(x: x + width / 2, y: y + height / 2) }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The smallest rectangle containing all `points`; nil for no points.
    public init?(enclosing points: [Point]) {
        guard let first = points.first else { return nil }
        var lo = first, hi = first
        for p in points.dropFirst() {
            lo.x = min(lo.x, p.x); lo.y = min(lo.y, p.y)
            hi.x = max(hi.x, p.x); hi.y = max(hi.y, p.y)
        }
        self.init(x: lo.x, y: lo.y, width: hi.x - lo.x, height: hi.y - lo.y)
    }

    /// The overlap of two rectangles; empty (zero size) when they do not overlap.
    public func intersection(_ other: Rect) -> Rect {
        let x0 = max(minX, other.minX), y0 = max(minY, other.minY)
        let x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        if x1 <= x0 || y1 <= y0 { return Rect(x: x0, y: y0, width: 0, height: 0) }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The smallest rectangle containing both.
    public func union(_ other: Rect) -> Rect {
        let x0 = min(minX, other.minX), y0 = min(minY, other.minY)
        let x1 = max(maxX, other.maxX), y1 = max(maxY, other.maxY)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Whether `p` lies inside or on the edge.
    public func contains(_ p: Point) -> Bool { p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY }

    /// Grown by `margin` pixels on every side (shrunk for a negative margin).
    public func insetBy(_ margin: Double) -> Rect {
        Rect(x: x - margin, y: y - margin, width: max(0, width + 2 * margin), height: max(0, height + 2 * margin))
    }

    /// The smallest rectangle with integer edges that contains this one.
    public var integral: Rect {
        let x0 = minX.rounded(.down), y0 = minY.rounded(.down)
        return Rect(x: x0, y: y0, width: maxX.rounded(.up) - x0, height: maxY.rounded(.up) - y0)
    }
}

/// A code's outline: four corners in frame pixels, clockwise on screen starting at the code's own
/// top-left corner (the corner that is top-left when the code is upright, whatever its rotation).
public struct Quad: Hashable, Sendable {
    public var topLeft: Point
    public var topRight: Point
    public var bottomRight: Point
    public var bottomLeft: Point

    public init(topLeft: Point, topRight: Point, bottomRight: Point, bottomLeft: Point) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomRight = bottomRight
        self.bottomLeft = bottomLeft
    }

    /// Builds a quad from exactly four corners given in clockwise order from the code's top-left.
    public init?(_ corners: [Point]) {
        guard corners.count == 4 else { return nil }
        self.init(topLeft: corners[0], topRight: corners[1], bottomRight: corners[2], bottomLeft: corners[3])
    }

    /// The axis-aligned rectangle `rect` as a quad (upright code).
    public init(_ rect: Rect) {
        self.init(topLeft: Point(x: rect.minX, y: rect.minY), topRight: Point(x: rect.maxX, y: rect.minY),
                  bottomRight: Point(x: rect.maxX, y: rect.maxY), bottomLeft: Point(x: rect.minX, y: rect.maxY))
    }

    /// Whether every coordinate is a finite number.
    public var isFinite: Bool { corners.allSatisfy { $0.x.isFinite && $0.y.isFinite } }

    /// The corners in order: top-left, top-right, bottom-right, bottom-left.
    public var corners: [Point] { [topLeft, topRight, bottomRight, bottomLeft] }

    /// Mean of the four corners, pixels.
    public var center: Point {
        Point(x: (topLeft.x + topRight.x + bottomRight.x + bottomLeft.x) / 4,
              y: (topLeft.y + topRight.y + bottomRight.y + bottomLeft.y) / 4)
    }

    /// Axis-aligned bounding box, pixels.
    public var boundingBox: Rect { Rect(enclosing: corners)! }

    /// Signed area (shoelace) in square pixels; positive when the corners run clockwise on screen (y down).
    public var signedArea: Double {
        let c = corners
        var s = 0.0
        for i in 0..<4 {
            let a = c[i], b = c[(i + 1) % 4]
            s += a.x * b.y - b.x * a.y
        }
        return s / 2
    }

    /// Area enclosed, square pixels (shoelace formula; the quad is simple).
    public var area: Double {
        var twice = 0.0
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4]
            twice += a.x * b.y - b.x * a.y
        }
        return abs(twice) / 2
    }

    /// Mean length of the four sides, pixels.
    public var meanSide: Double {
        let c = corners
        var s = 0.0
        for i in 0..<4 { s += c[i].distance(to: c[(i + 1) % 4]) }
        return s / 4
    }

    /// Angle of the top edge (top-left → top-right) in degrees, clockwise on screen from the x axis.
    public var rotationDegrees: Double {
        let d = topRight - topLeft
        return atan2(d.y, d.x) * 180 / Double.pi
    }

    /// Every corner moved by (dx, dy) pixels.
    public func translated(dx: Double, dy: Double) -> Quad {
        let d = Point(x: dx, y: dy)
        return Quad(topLeft: topLeft + d, topRight: topRight + d, bottomRight: bottomRight + d, bottomLeft: bottomLeft + d)
    }

    /// Every corner scaled about the origin: x by `sx`, y by `sy` (e.g. to map between frame sizes).
    public func scaled(sx: Double, sy: Double) -> Quad {
        func s(_ p: Point) -> Point { Point(x: p.x * sx, y: p.y * sy) }
        return Quad(topLeft: s(topLeft), topRight: s(topRight), bottomRight: s(bottomRight), bottomLeft: s(bottomLeft))
    }

    /// The share of this quad that lies inside `other` (0–1), estimated on an `n` × `n` grid of
    /// points spread evenly over this quad (cell centres, bilinear between the corners).
    public func share(inside other: Quad, grid n: Int = 8) -> Double {
        guard n > 0 else { return 0 }
        var inside = 0
        for j in 0..<n {
            let v = (Double(j) + 0.5) / Double(n)
            let left = topLeft + (bottomLeft - topLeft) * v, right = topRight + (bottomRight - topRight) * v
            for i in 0..<n where other.contains(left + (right - left) * ((Double(i) + 0.5) / Double(n))) { inside += 1 }
        }
        return Double(inside) / Double(n * n)
    }

    /// Whether a corner lies within `pixels` of `frame`'s edge, or outside it: the code may be cut
    /// by the frame's edge.
    public func touchesEdge(of frame: Rect, within pixels: Double = 2) -> Bool {
        !corners.allSatisfy(frame.insetBy(-pixels).contains)
    }

    /// Every corner moved away from the centre: its distance scaled by `factor`, then `pixels`
    /// more (a margin of about `pixels` on every side of a rectangle-like quad).
    public func grown(by factor: Double, plus pixels: Double = 0) -> Quad {
        let c = center
        func moved(_ p: Point) -> Point { c + (p - c) * factor + (p - c).normalised * pixels }
        return Quad(topLeft: moved(topLeft), topRight: moved(topRight), bottomRight: moved(bottomRight), bottomLeft: moved(bottomLeft))
    }

    /// The largest distance between a corner of this quad and the same corner of `other`, pixels.
    public func maxCornerDistance(to other: Quad) -> Double {
        zip(corners, other.corners).map { $0.distance(to: $1) }.max()!
    }
}

