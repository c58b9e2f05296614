import ARCore
import Foundation

/// Draws photos as flat cards: scaled, rotated clockwise about their centre, sampled bilinearly,
/// with edges anti-aliased over one pixel.
///
/// Photo coordinates: (u, v) in [0, width] × [0, height], pixel (i, j) centred at (i + 0.5, j + 0.5).
/// A card at `center`, `scale` frame pixels per photo pixel and `rotationDegrees` maps photo point
/// (u, v) to center + R(θ)·((u − width/2)·scale, (v − height/2)·scale), R as `CodePlacement`'s.
public enum CardRenderer {
    /// The card's outline (the photo's edges), frame pixels, clockwise from the photo's top-left.
    public static func quad(width: Int, height: Int, center: Point, scale: Double, rotationDegrees: Double) -> Quad {
        let t = rotationDegrees * Double.pi / 180, c = cos(t), s = sin(t)
        let hw = Double(width) / 2 * scale, hh = Double(height) / 2 * scale
        func map(_ a: Double, _ b: Double) -> Point { Point(x: center.x + a * c - b * s, y: center.y + a * s + b * c) }
        return Quad(topLeft: map(-hw, -hh), topRight: map(hw, -hh), bottomRight: map(hw, hh), bottomLeft: map(-hw, hh))
    }

    /// Draws `photo` as a card into `image` (clipped to the image) and returns its outline.
    @discardableResult
    public static func render(_ photo: LumaPlane, center: Point, scale: Double, rotationDegrees: Double,
                              into image: inout LumaPlane) -> Quad {
        let outline = quad(width: photo.width, height: photo.height, center: center, scale: scale,
                           rotationDegrees: rotationDegrees)
        guard scale > 0, scale.isFinite else { return outline }
        let box = outline.boundingBox
        let x0 = max(0, Int(box.minX.rounded(.down))), x1 = min(image.width, Int(box.maxX.rounded(.up)))
        let y0 = max(0, Int(box.minY.rounded(.down))), y1 = min(image.height, Int(box.maxY.rounded(.up)))
        guard x0 < x1, y0 < y1 else { return outline }
        let t = rotationDegrees * Double.pi / 180, c = cos(t), s = sin(t)
        let pw = Double(photo.width), ph = Double(photo.height), inv = 1 / scale
        // Photo coordinates change by (du, dv) per frame pixel to the right.
        let du = c * inv, dv = -s * inv
        let maxX = photo.width - 1, maxY = photo.height - 1, srcStride = photo.width, dstStride = image.width
        photo.pixels.withUnsafeBufferPointer { src in
            image.pixels.withUnsafeMutableBufferPointer { dst in
                for y in y0..<y1 {
                    let dy = Double(y) + 0.5 - center.y, dx = Double(x0) + 0.5 - center.x
                    var u = (dx * c + dy * s) * inv + pw / 2
                    var v = (-dx * s + dy * c) * inv + ph / 2
                    for x in x0..<x1 {
                        defer { u += du; v += dv }
                        // Distance inside the card's edge, frame pixels: coverage over one pixel.
                        let inside = min(min(u, pw - u), min(v, ph - v)) * scale
                        if inside <= -0.5 { continue }
                        let fx = u - 0.5, fy = v - 0.5
                        let ix = Int(fx.rounded(.down)), iy = Int(fy.rounded(.down))
                        let ax = fx - Double(ix), ay = fy - Double(iy)
                        let xa = min(maxX, max(0, ix)), xb = min(maxX, max(0, ix + 1))
                        let ya = min(maxY, max(0, iy)) * srcStride, yb = min(maxY, max(0, iy + 1)) * srcStride
                        let top = Double(src[ya + xa]) * (1 - ax) + Double(src[ya + xb]) * ax
                        let bottom = Double(src[yb + xa]) * (1 - ax) + Double(src[yb + xb]) * ax
                        var value = top * (1 - ay) + bottom * ay
                        if inside < 0.5 {
                            let alpha = inside + 0.5
                            value = value * alpha + Double(dst[y * dstStride + x]) * (1 - alpha)
                        }
                        dst[y * dstStride + x] = UInt8(value + 0.5)
                    }
                }
            }
        }
        return outline
    }

    /// `photo` shrunk (area average) so it is at most `maxHeight` pixels tall, keeping its aspect
    /// ratio; unchanged when it already is.
    public static func downscaled(_ photo: LumaPlane, maxHeight: Int) -> LumaPlane {
        guard maxHeight >= 1, photo.height > maxHeight else { return photo }
        let f = Double(photo.height) / Double(maxHeight)
        let w = max(1, Int((Double(photo.width) / f).rounded())), h = maxHeight
        let fx = Double(photo.width) / Double(w)
        var out = [UInt8](repeating: 0, count: w * h)
        for j in 0..<h {
            let ya = Int(Double(j) * f), yb = max(ya + 1, min(photo.height, Int(Double(j + 1) * f)))
            for i in 0..<w {
                let xa = Int(Double(i) * fx), xb = max(xa + 1, min(photo.width, Int(Double(i + 1) * fx)))
                var sum = 0
                for y in ya..<yb { for x in xa..<xb { sum += Int(photo[x, y]) } }
                let n = (yb - ya) * (xb - xa)
                out[j * w + i] = UInt8((sum + n / 2) / n)
            }
        }
        return LumaPlane(width: w, height: h, pixels: out)
    }
}
