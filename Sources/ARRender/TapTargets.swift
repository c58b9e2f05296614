import ARCore
import ARStyle
import Foundation

/// What a tap (a click on the video) can hit on one frame: each code's drawn shapes, the code's
/// own outline grown by a margin included, in drawing order. The last drawn is on top.
public struct TapTargets: Sendable {
    /// One code's shapes on the frame.
    public struct Target: Sendable, Equatable {
        public var trackID: UInt64
        public var symbology: String
        public var text: String
        /// Convex shapes in frame pixels.
        public var shapes: [Quad]
    }

    public private(set) var targets: [Target] = []

    public init() {}

    /// Adds the code with `trackID` at `quad` (frame pixels) and what was drawn for it (`ops`);
    /// the code's outline counts `margin` pixels larger (fingers and mice are not exact).
    public mutating func add(trackID: UInt64, symbology: String, text: String, quad: Quad, ops: [DrawOp], margin: Double = 8) {
        let c = quad.center
        let grown = Quad(quad.corners.map { c + ($0 - c) + ($0 - c) * (margin / max(1, ($0 - c).length)) }) ?? quad
        var shapes = [grown]
        for op in ops {
            switch op {
            case .outline(let q, _, _), .warp(_, let q), .fill(let q, _): shapes.append(q)
            case .box(let r, _, _), .label(_, let r), .image(_, let r), .dot(let r, _): shapes.append(Self.quad(r))
            }
        }
        targets.append(Target(trackID: trackID, symbology: symbology, text: text, shapes: shapes))
    }

    /// The topmost code with a shape containing (`x`, `y`) (frame pixels); nil when none.
    public func hit(x: Double, y: Double) -> Target? {
        let p = Point(x: x, y: y)
        return targets.last { $0.shapes.contains { $0.contains(p) } }
    }

    /// `r`'s corners, clockwise from its top-left, turned by its angle.
    static func quad(_ r: PlacedRect) -> Quad {
        let (s, c) = (sin(r.angle), cos(r.angle))
        let hw = r.width / 2, hh = r.height / 2
        let corners = [(-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)].map { dx, dy in
            Point(x: r.center.x + dx * c - dy * s, y: r.center.y + dx * s + dy * c)
        }
        return Quad(topLeft: corners[0], topRight: corners[1], bottomRight: corners[2], bottomLeft: corners[3])
    }
}
