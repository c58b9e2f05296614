import ARCore

/// The point of a code an overlay's centre attaches to. Anchor points lie on the code's quad, in
/// the code's own orientation (`top-center` is the middle of the code's top edge, wherever it is
/// turned).
public enum Anchor: String, CaseIterable, Sendable {
    case topLeft = "top-left", topCenter = "top-center", topRight = "top-right"
    case centerLeft = "center-left", center = "center", centerRight = "center-right"
    case bottomLeft = "bottom-left", bottomCenter = "bottom-center", bottomRight = "bottom-right"

    /// Position across the code, 0 (left edge) … 1 (right edge).
    public var u: Double {
        switch self {
        case .topLeft, .centerLeft, .bottomLeft: return 0
        case .topCenter, .center, .bottomCenter: return 0.5
        case .topRight, .centerRight, .bottomRight: return 1
        }
    }

    /// Position down the code, 0 (top edge) … 1 (bottom edge).
    public var v: Double {
        switch self {
        case .topLeft, .topCenter, .topRight: return 0
        case .centerLeft, .center, .centerRight: return 0.5
        case .bottomLeft, .bottomCenter, .bottomRight: return 1
        }
    }

    /// The anchor point on `quad` (bilinear between its corners), frame pixels.
    public func point(on quad: Quad) -> Point {
        let top = quad.topLeft * (1 - u) + quad.topRight * u
        let bottom = quad.bottomLeft * (1 - u) + quad.bottomRight * u
        return top * (1 - v) + bottom * v
    }
}
