import ARCore
import Foundation

/// The exact mapping between a code's local frame and screen pixels for one placement.
///
/// Local frame: pixels relative to the symbol centre, unrotated, x right, y down; the symbol spans
/// [-halfW, halfW] × [-halfH, halfH] and the quiet zone adds `margin` pixels on every side.
/// Forward: local (u, v) → keystone (u, v) / (1 + k·v) → rotate clockwise by θ → + centre.
/// Inverse: − centre → rotate by −θ → (u', v') / (1 − k·v'). Both are exact projective maps, so
/// straight module edges stay straight.
struct CodeProjection: Sendable {
    let cx: Double, cy: Double
    let cosT: Double, sinT: Double
    /// Keystone coefficient, 1/pixels.
    let k: Double
    let halfW: Double, halfH: Double
    let margin: Double
    /// Pixels per matrix column / per matrix row (bar height for 1D codes).
    let unitX: Double, unitY: Double
    let cols: Int, rows: Int
    /// Quiet zone in column / row units.
    let quietX: Double, quietY: Double

    init(matrix: CodeMatrix, placement p: CodePlacement) throws {
        let values = [p.center.x, p.center.y, p.moduleSize, p.rotationDegrees, p.barHeight, p.perspective]
        guard values.allSatisfy({ $0.isFinite }) else { throw CodeGenError.invalidPlacement("non-finite value in \(p)") }
        guard p.moduleSize > 0 else { throw CodeGenError.invalidPlacement("module size \(p.moduleSize) px is not positive") }
        if matrix.isLinear, !(p.barHeight > 0) {
            throw CodeGenError.invalidPlacement("bar height \(p.barHeight) px is not positive")
        }
        cx = p.center.x
        cy = p.center.y
        // Exact values at multiples of 90° so axis-aligned placements give exact corners.
        let r = p.rotationDegrees.truncatingRemainder(dividingBy: 360)
        let quarter = r / 90
        if quarter == quarter.rounded() {
            switch (Int(quarter) % 4 + 4) % 4 {
            case 0: (cosT, sinT) = (1, 0)
            case 1: (cosT, sinT) = (0, 1)
            case 2: (cosT, sinT) = (-1, 0)
            default: (cosT, sinT) = (0, -1)
            }
        } else {
            let t = r * Double.pi / 180
            (cosT, sinT) = (cos(t), sin(t))
        }
        cols = matrix.width
        rows = matrix.height
        unitX = p.moduleSize
        unitY = matrix.isLinear ? p.barHeight : p.moduleSize
        halfW = Double(cols) * unitX / 2
        halfH = Double(rows) * unitY / 2
        margin = Double(matrix.quietZoneModules) * p.moduleSize
        quietX = Double(matrix.quietZoneModules)
        quietY = margin / unitY
        k = p.perspective / halfH
        let reach = abs(p.perspective) * (halfH + margin) / halfH
        guard reach <= 0.9 else { throw CodeGenError.perspectiveTooStrong(p.perspective) }
    }

    /// Screen position of local point (u, v), pixels.
    @inline(__always)
    func forward(_ u: Double, _ v: Double) -> Point {
        let w = 1 / (1 + k * v)
        let a = u * w, b = v * w
        return Point(x: cx + a * cosT - b * sinT, y: cy + a * sinT + b * cosT)
    }

    /// The quad with local half extents (hw, hh), clockwise from the code's top-left.
    func quad(halfWidth hw: Double, halfHeight hh: Double) -> Quad {
        Quad(topLeft: forward(-hw, -hh), topRight: forward(hw, -hh),
             bottomRight: forward(hw, hh), bottomLeft: forward(-hw, hh))
    }

    /// Outline of the dark-module area (quiet zone excluded).
    var symbolQuad: Quad { quad(halfWidth: halfW, halfHeight: halfH) }
    /// Outline of the quiet zone (the white rectangle drawn around the symbol).
    var quietZoneQuad: Quad { quad(halfWidth: halfW + margin, halfHeight: halfH + margin) }

    // Cell keys: every screen point falls in a region that is a product of two intervals in local
    // coordinates (one matrix column/row, one quiet-zone column/row band, or one of the eight
    // unbounded regions around the quiet zone), hence convex on screen too. If all four corners of
    // a pixel share a key, the whole pixel has that key's colour.
    static let low = -(1 << 21), high = 1 << 21, bias = 1 << 22
    /// Key of points beyond the vanishing line (never part of the code).
    static let far = -1

    /// The region key of screen point (x, y).
    @inline(__always)
    func key(_ x: Double, _ y: Double) -> Int {
        let dx = x - cx, dy = y - cy
        let up = dx * cosT + dy * sinT
        let vp = -dx * sinT + dy * cosT
        let d = 1 - k * vp
        if !(d > 1e-12) { return Self.far }
        let mx = (up / d + halfW) / unitX
        let my = (vp / d + halfH) / unitY
        let kx = mx < -quietX ? Self.low : (mx >= Double(cols) + quietX ? Self.high : Int(mx.rounded(.down)))
        let ky = my < -quietY ? Self.low : (my >= Double(rows) + quietY ? Self.high : Int(my.rounded(.down)))
        return ((kx + Self.bias) << 24) | (ky + Self.bias)
    }

    /// Colour class of a key: 0 = outside the quiet zone (keep background), 1 = light, 2 = dark.
    @inline(__always)
    func shade(_ key: Int, _ matrix: CodeMatrix) -> Int {
        if key == Self.far { return 0 }
        let kx = (key >> 24) - Self.bias, ky = (key & 0xFF_FFFF) - Self.bias
        if kx == Self.low || kx == Self.high || ky == Self.low || ky == Self.high { return 0 }
        return matrix.isDark(x: kx, y: ky) ? 2 : 1
    }
}
