import ARCore
import Foundation

/// Whether an overlay turns with its code.
public enum Rotation: String, CaseIterable, Sendable {
    /// Stays upright: readable at any angle of the code.
    case upright
    /// Turns with the code's top edge.
    case follow
}

/// The size an overlay has when its style gives none on an axis.
public enum NaturalSize: Hashable, Sendable {
    /// The code's size (boxes, images without any size).
    case code
    /// A fixed size in pixels (labels: their text with padding).
    case fixed(width: Double, height: Double)
    /// The code's size, but when only one axis is given the other keeps this aspect (images).
    case aspect(width: Double, height: Double)
}

/// Where an overlay sits relative to its code: anchor, offset, size and rotation.
public struct Placement: Hashable, Sendable {
    public var anchor: Anchor = .center
    public var offsetX: Length<OffsetUnit>?
    public var offsetY: Length<OffsetUnit>?
    public var width: Length<SizeUnit>?
    public var height: Length<SizeUnit>?
    public var rotate: Rotation = .upright

    public init(anchor: Anchor = .center, offsetX: Length<OffsetUnit>? = nil, offsetY: Length<OffsetUnit>? = nil,
                width: Length<SizeUnit>? = nil, height: Length<SizeUnit>? = nil, rotate: Rotation = .upright) {
        self.anchor = anchor
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.width = width
        self.height = height
        self.rotate = rotate
    }

    /// The code's own size in pixels: width is the mean length of its top and bottom edges,
    /// height of its left and right edges (equal to the bounding box for an upright code).
    public static func codeSize(_ quad: Quad) -> (width: Double, height: Double) {
        ((quad.topLeft.distance(to: quad.topRight) + quad.bottomLeft.distance(to: quad.bottomRight)) / 2,
         (quad.topLeft.distance(to: quad.bottomLeft) + quad.topRight.distance(to: quad.bottomRight)) / 2)
    }

    /// The code's angle in radians, clockwise on screen: the mean direction of its top and bottom edges.
    public static func codeAngle(_ quad: Quad) -> Double {
        let d = (quad.topRight - quad.topLeft) + (quad.bottomRight - quad.bottomLeft)
        return atan2(d.y, d.x)
    }

    /// The overlay's rectangle for a code at `quad` (frame pixels).
    public func resolve(on quad: Quad, natural: NaturalSize = .code) -> PlacedRect {
        let code = Placement.codeSize(quad)
        func length(_ l: Length<SizeUnit>?, codeAxis: Double) -> Double? {
            guard let l else { return nil }
            switch l.unit {
            case .px: return l.value
            case .code: return l.value * codeAxis
            case .ratio: return nil
            }
        }
        var w = length(width, codeAxis: code.width)
        var h = length(height, codeAxis: code.height)
        // Axes without a size: the natural size (labels), the image's aspect, or the code's size.
        switch natural {
        case .code:
            break
        case .fixed(let fw, let fh):
            if w == nil, width?.unit != .ratio { w = fw }
            if h == nil, height?.unit != .ratio { h = fh }
        case .aspect(let aw, let ah) where aw > 0 && ah > 0:
            if w == nil, width == nil, let hh = h { w = hh * aw / ah }
            if h == nil, height == nil, let ww = w { h = ww * ah / aw }
        case .aspect:
            break
        }
        if w == nil, let r = width, r.unit == .ratio, let hh = h { w = r.value * hh }
        if h == nil, let r = height, r.unit == .ratio, let ww = w { h = r.value * ww }
        if w == nil, let r = width, r.unit == .ratio { w = r.value * code.height }
        if h == nil, let r = height, r.unit == .ratio { h = r.value * (w ?? code.width) }
        let fw = max(0, w ?? code.width), fh = max(0, h ?? code.height)

        func offset(_ l: Length<OffsetUnit>?, codeAxis: Double, own: Double) -> Double {
            guard let l else { return 0 }
            switch l.unit {
            case .px: return l.value
            case .code: return l.value * codeAxis
            case .ownSize: return l.value * own
            }
        }
        let dx = offset(offsetX, codeAxis: code.width, own: fw)
        let dy = offset(offsetY, codeAxis: code.height, own: fh)
        let angle = rotate == .follow ? Placement.codeAngle(quad) : 0
        let c = cos(angle), s = sin(angle)
        let origin = anchor.point(on: quad)
        let center = Point(x: origin.x + dx * c - dy * s, y: origin.y + dx * s + dy * c)
        return PlacedRect(center: center, width: fw, height: fh, angle: angle)
    }
}

/// A placed overlay rectangle: centre, size and rotation, frame pixels.
public struct PlacedRect: Hashable, Sendable {
    public var center: Point
    public var width: Double
    public var height: Double
    /// Rotation about the centre, radians, clockwise on screen; 0 for upright.
    public var angle: Double

    public init(center: Point, width: Double, height: Double, angle: Double = 0) {
        self.center = center
        self.width = width
        self.height = height
        self.angle = angle
    }

    /// The upright rectangle `rect`.
    public init(_ rect: Rect) {
        self.init(center: rect.center, width: rect.width, height: rect.height)
    }

    /// Corners clockwise from the top-left (of the unrotated rectangle).
    public var quad: Quad {
        let c = cos(angle), s = sin(angle)
        func p(_ x: Double, _ y: Double) -> Point { Point(x: center.x + x * c - y * s, y: center.y + x * s + y * c) }
        let hw = width / 2, hh = height / 2
        return Quad(topLeft: p(-hw, -hh), topRight: p(hw, -hh), bottomRight: p(hw, hh), bottomLeft: p(-hw, hh))
    }

    /// Axis-aligned bounds, pixels.
    public var bounds: Rect {
        angle == 0 ? Rect(x: center.x - width / 2, y: center.y - height / 2, width: width, height: height) : quad.boundingBox
    }
}
