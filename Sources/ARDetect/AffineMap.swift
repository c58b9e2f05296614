import ARCore
import Foundation

/// A 2-D affine map of pixel coordinates: `(x, y) ↦ (a·x + b·y + tx, c·x + d·y + ty)`.
/// Used to take points from a resampled pass image back to the frame.
struct AffineMap: Equatable {
    var a = 1.0, b = 0.0, tx = 0.0
    var c = 0.0, d = 1.0, ty = 0.0

    static let identity = AffineMap()

    /// A map that rotates by `degrees` (clockwise on screen), scales by `scale`, and then moves
    /// `from` onto `to`: `p ↦ to + R·S·(p − from)`.
    static func similarity(from: Point, to: Point, degrees: Double, scale: Double) -> AffineMap {
        let t = degrees * .pi / 180
        let cs = cos(t) * scale, sn = sin(t) * scale
        var m = AffineMap(a: cs, b: -sn, tx: 0, c: sn, d: cs, ty: 0)
        let r = m.apply(from)
        m.tx = to.x - r.x
        m.ty = to.y - r.y
        return m
    }

    func apply(_ p: Point) -> Point {
        Point(x: a * p.x + b * p.y + tx, y: c * p.x + d * p.y + ty)
    }

    func apply(_ q: Quad) -> Quad {
        Quad(topLeft: apply(q.topLeft), topRight: apply(q.topRight), bottomRight: apply(q.bottomRight),
             bottomLeft: apply(q.bottomLeft))
    }

    /// The inverse map (the maps built here are never singular).
    var inverse: AffineMap {
        let det = a * d - b * c
        let ia = d / det, ib = -b / det, ic = -c / det, id = a / det
        return AffineMap(a: ia, b: ib, tx: -(ia * tx + ib * ty), c: ic, d: id, ty: -(ic * tx + id * ty))
    }

    /// How many source pixels one destination pixel spans (geometric mean of the axes).
    var scale: Double { (abs(a * d - b * c)).squareRoot() }
}
