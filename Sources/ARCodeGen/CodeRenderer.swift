import ARCore
import Foundation

/// Draws `CodeMatrix`es into `LumaPlane`s with anti-aliasing and reports exact ground truth.
///
/// Each pixel is mapped back into module coordinates (inverse mapping), so rotation and keystone
/// are exact. Pixels lying wholly inside one module (or wholly in the quiet zone, or wholly
/// outside) are filled directly; the others are supersampled on a `samplesPerAxis²` grid and
/// blended (outside samples keep the pixel's previous value). Only pixels inside the bounding box
/// of the quiet zone are touched.
public struct CodeRenderer: Hashable, Sendable {
    /// Gray level of dark modules, 0...255.
    public var darkLevel: UInt8
    /// Gray level of light modules and of the quiet zone, 0...255.
    public var lightLevel: UInt8
    /// Supersampling grid per axis for edge pixels (clamped to 1...16); 4 gives 17 coverage levels.
    public var samplesPerAxis: Int

    /// A renderer; defaults: dark 20, light 255, 4×4 samples per edge pixel.
    public init(darkLevel: UInt8 = 20, lightLevel: UInt8 = 255, samplesPerAxis: Int = 4) {
        self.darkLevel = darkLevel
        self.lightLevel = lightLevel
        self.samplesPerAxis = samplesPerAxis
    }

    /// The exact outline of the symbol (outer corners of the dark-module area, quiet zone
    /// excluded; for 1D codes first bar's left edge to last bar's right edge × bar height), frame
    /// pixels, clockwise from the code's own top-left. Throws `.invalidPlacement` or
    /// `.perspectiveTooStrong`.
    public static func symbolQuad(of matrix: CodeMatrix, placement: CodePlacement) throws -> Quad {
        try CodeProjection(matrix: matrix, placement: placement).symbolQuad
    }

    /// The outline of the white quiet-zone rectangle drawn around the symbol, frame pixels,
    /// clockwise from the code's own top-left. Throws like `symbolQuad(of:placement:)`.
    public static func quietZoneQuad(of matrix: CodeMatrix, placement: CodePlacement) throws -> Quad {
        try CodeProjection(matrix: matrix, placement: placement).quietZoneQuad
    }

    /// Draws `matrix` at `placement` into `image` (the part outside the image is clipped) and
    /// returns the symbol's exact outline, as `symbolQuad(of:placement:)`.
    /// Throws `.invalidPlacement` or `.perspectiveTooStrong`, leaving `image` untouched.
    @discardableResult
    public func render(_ matrix: CodeMatrix, placement: CodePlacement, into image: inout LumaPlane) throws -> Quad {
        let proj = try CodeProjection(matrix: matrix, placement: placement)
        let box = proj.quietZoneQuad.boundingBox
        let x0 = max(0, Int(box.minX.rounded(.down))), x1 = min(image.width, Int(box.maxX.rounded(.up)))
        let y0 = max(0, Int(box.minY.rounded(.down))), y1 = min(image.height, Int(box.maxY.rounded(.up)))
        guard x0 < x1, y0 < y1 else { return proj.symbolQuad }

        let n = min(16, max(1, samplesPerAxis))
        // Sample offsets inside a pixel, pre-rotated: (Δu', Δv') from the pixel's top-left corner.
        var offsetsU: [Double] = [], offsetsV: [Double] = []
        for j in 0..<n {
            for i in 0..<n {
                let ox = (Double(i) + 0.5) / Double(n), oy = (Double(j) + 0.5) / Double(n)
                offsetsU.append(ox * proj.cosT + oy * proj.sinT)
                offsetsV.append(-ox * proj.sinT + oy * proj.cosT)
            }
        }
        let total = n * n
        let levels = [0, Int(lightLevel), Int(darkLevel)]
        let count = x1 - x0 + 1
        // Cells of the pixel corners on the row above (upper) and below (lower) the current pixel row.
        var upperX = [Int](repeating: 0, count: count), upperY = upperX, lowerX = upperX, lowerY = upperX
        for i in 0..<count { (upperX[i], upperY[i]) = proj.cell(Double(x0 + i), Double(y0)) }
        let stride = image.width
        let far = CodeProjection.far

        image.pixels.withUnsafeMutableBufferPointer { px in
            for y in y0..<y1 {
                for i in 0..<count { (lowerX[i], lowerY[i]) = proj.cell(Double(x0 + i), Double(y + 1)) }
                let row = y * stride
                for x in x0..<x1 {
                    let i = x - x0
                    let ax = upperX[i], bx = upperX[i + 1], cx = lowerX[i], dx = lowerX[i + 1]
                    if ax == far, bx == far, cx == far, dx == far { continue }
                    if ax != far, bx != far, cx != far, dx != far {
                        let ay = upperY[i], by = upperY[i + 1], cy = lowerY[i], dy = lowerY[i + 1]
                        let minX = min(min(ax, bx), min(cx, dx)), maxX = max(max(ax, bx), max(cx, dx))
                        let minY = min(min(ay, by), min(cy, dy)), maxY = max(max(ay, by), max(cy, dy))
                        if maxX - minX <= 1, maxY - minY <= 1 {
                            // The pixel lies within this block of at most 2×2 cells.
                            let s = proj.shade(minX, minY, matrix)
                            if s == proj.shade(maxX, minY, matrix), s == proj.shade(minX, maxY, matrix),
                               s == proj.shade(maxX, maxY, matrix) {
                                if s != 0 { px[row + x] = UInt8(levels[s]) }
                                continue
                            }
                        }
                    }
                    var counts = (0, 0, 0)
                    let (u0, v0) = proj.unrotated(Double(x), Double(y))
                    for j in 0..<total {
                        let (kx, ky) = proj.cell(up: u0 + offsetsU[j], vp: v0 + offsetsV[j])
                        switch kx == far ? 0 : proj.shade(kx, ky, matrix) {
                        case 0: counts.0 += 1
                        case 1: counts.1 += 1
                        default: counts.2 += 1
                        }
                    }
                    if counts.0 == total { continue }
                    let sum = counts.0 * Int(px[row + x]) + counts.1 * levels[1] + counts.2 * levels[2]
                    px[row + x] = UInt8((sum + total / 2) / total)
                }
                swap(&upperX, &lowerX)
                swap(&upperY, &lowerY)
            }
        }
        return proj.symbolQuad
    }
}
