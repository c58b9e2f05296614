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
        lowX = -Int(quietX) - 1
        highX = cols + Int(quietX)
        lowY = Int((-quietY).rounded(.down)) - 1
        highY = Int((Double(rows) + quietY).rounded(.up))
        invUnitX = 1 / unitX
        invUnitY = 1 / unitY
        endX = Double(cols) + quietX
        endY = Double(rows) + quietY
        intShiftX = Int(quietX) + 1
        intShiftY = Int(quietY.rounded(.up)) + 1
        shiftX = Double(intShiftX)
        shiftY = Double(intShiftY)
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

    // Cells: along each local axis the plane is cut into consecutive intervals, numbered in
    // order: `lowX` (beyond the quiet zone), the quiet-zone and matrix columns (floor of the
    // module coordinate), `highX` (beyond the other side); likewise for rows. A pixel is convex,
    // so its module coordinates lie between those of its four corners: it lies inside the block
    // of cells spanned by its corners' indices, and if every cell of that block has the same
    // shade, so does the whole pixel.
    /// Column index of cells left of the quiet zone.
    let lowX: Int
    /// Column index of cells right of the quiet zone.
    let highX: Int
    /// Row index of cells above the quiet zone.
    let lowY: Int
    /// Row index of cells below the quiet zone.
    let highY: Int
    // Precomputed for `cell(up:vp:)`.
    private let invUnitX: Double, invUnitY: Double, endX: Double, endY: Double
    private let shiftX: Double, shiftY: Double, intShiftX: Int, intShiftY: Int
    /// Column index marking points beyond the vanishing line (never part of the code).
    static let far = Int.min

    /// Screen point (x, y) rotated back into the code's axes (before undoing the keystone):
    /// (u', v') in pixels relative to the centre.
    @inline(__always)
    func unrotated(_ x: Double, _ y: Double) -> (Double, Double) {
        let dx = x - cx, dy = y - cy
        return (dx * cosT + dy * sinT, -dx * sinT + dy * cosT)
    }

    /// The cell (column, row index) of screen point (x, y); column `far` beyond the vanishing line.
    @inline(__always)
    func cell(_ x: Double, _ y: Double) -> (Int, Int) {
        let (up, vp) = unrotated(x, y)
        return cell(up: up, vp: vp)
    }

    /// The cell of the point with unrotated coordinates (u', v'), pixels (see `unrotated`).
    @inline(__always)
    func cell(up: Double, vp: Double) -> (Int, Int) {
        let d = 1 - k * vp
        if !(d > 1e-12) { return (Self.far, 0) }
        let inv = 1 / d
        let mx = (up * inv + halfW) * invUnitX
        let my = (vp * inv + halfH) * invUnitY
        // Truncation equals floor here because the shifted coordinate is not negative.
        let kx = mx < -quietX ? lowX : (mx >= endX ? highX : Int(mx + shiftX) - intShiftX)
        let ky = my < -quietY ? lowY : (my >= endY ? highY : Int(my + shiftY) - intShiftY)
        return (kx, ky)
    }

    /// Shade of a cell: 0 = outside the quiet zone (keep background), 1 = light, 2 = dark.
    @inline(__always)
    func shade(_ kx: Int, _ ky: Int, _ matrix: CodeMatrix) -> Int {
        if kx <= lowX || kx >= highX || ky <= lowY || ky >= highY { return 0 }
        return matrix.isDark(x: kx, y: ky) ? 2 : 1
    }
}
