import ARCore
import Foundation

/// An RGBA image, 4 bytes per pixel (alpha 255), rows packed (`width × 4` bytes). Pixel (x, y)
/// covers [x, x+1) × [y, y+1), as in `LumaPlane`.
public struct RGBAImage: Hashable, Sendable {
    public let width: Int
    public let height: Int
    /// `width × height × 4` bytes, row-major.
    public var pixels: [UInt8]

    /// A `width` × `height` image (each ≥ 1) filled with `red`, `green`, `blue`.
    public init(width: Int, height: Int, red: UInt8 = 0, green: UInt8 = 0, blue: UInt8 = 0) {
        self.width = max(1, width)
        self.height = max(1, height)
        var px = [UInt8](repeating: 255, count: self.width * self.height * 4)
        for o in stride(from: 0, to: px.count, by: 4) { px[o] = red; px[o + 1] = green; px[o + 2] = blue }
        pixels = px
    }

    /// Red, green, blue at (x, y).
    public func rgb(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let o = (y * width + x) * 4
        return (pixels[o], pixels[o + 1], pixels[o + 2])
    }

    /// BT.601 luma of each pixel.
    public func luma() -> LumaPlane {
        var out = [UInt8](repeating: 0, count: width * height)
        for i in 0..<(width * height) {
            let o = 4 * i
            let r: Int = 77 * Int(pixels[o]), g: Int = 150 * Int(pixels[o + 1]), b: Int = 29 * Int(pixels[o + 2])
            out[i] = UInt8((r + g + b + 128) >> 8)
        }
        return LumaPlane(width: width, height: height, pixels: out)
    }

    /// Bilinear colour at (x, y) (pixel centres at +0.5, edges clamped).
    func sample(_ x: Double, _ y: Double) -> (Double, Double, Double) {
        let fx = min(max(x - 0.5, 0), Double(width - 1)), fy = min(max(y - 0.5, 0), Double(height - 1))
        let x0 = Int(fx), y0 = Int(fy), x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let ax = fx - Double(x0), ay = fy - Double(y0)
        var c = [0.0, 0.0, 0.0]
        for k in 0..<3 {
            let a = Double(pixels[(y0 * width + x0) * 4 + k]), b = Double(pixels[(y0 * width + x1) * 4 + k])
            let d = Double(pixels[(y1 * width + x0) * 4 + k]), e = Double(pixels[(y1 * width + x1) * 4 + k])
            c[k] = (a * (1 - ax) + b * ax) * (1 - ay) + (d * (1 - ax) + e * ax) * ay
        }
        return (c[0], c[1], c[2])
    }
}

/// Posters and pictures on a wall for testing `arrecttrack`: a rendered colour picture, placed in
/// perspective with exactly known corners over a background. Pure functions of their arguments.
public enum PosterScene {
    /// A colourful picture with texture everywhere (soft colour fields, discs, strokes), like a
    /// painting or a photo, in a dark frame a sixteenth of its height wide (`framed`):
    /// `width` × `height` pixels, a pure function of its arguments.
    public static func picture(width: Int, height: Int, seed: UInt64, framed: Bool = true) -> RGBAImage {
        var rng = SeededRandom(seed: SeededRandom.mix(seed, 0x9057_E800))
        var img = RGBAImage(width: width, height: height)
        // Three colour gradients blended across the picture.
        let c0 = (rng.next(in: 40.0...230), rng.next(in: 40.0...230), rng.next(in: 40.0...230))
        let c1 = (rng.next(in: 40.0...230), rng.next(in: 40.0...230), rng.next(in: 40.0...230))
        for y in 0..<img.height {
            for x in 0..<img.width {
                let t = (Double(x) / Double(img.width) + Double(y) / Double(img.height)) / 2
                let o = (y * img.width + x) * 4
                img.pixels[o] = UInt8(c0.0 * (1 - t) + c1.0 * t)
                img.pixels[o + 1] = UInt8(c0.1 * (1 - t) + c1.1 * t)
                img.pixels[o + 2] = UInt8(c0.2 * (1 - t) + c1.2 * t)
            }
        }
        let unit = Double(min(img.width, img.height))
        // Discs of many sizes and colours: corners and blobs to follow.
        for _ in 0..<60 {
            let cx = rng.next(in: 0.0...Double(img.width)), cy = rng.next(in: 0.0...Double(img.height))
            let r = unit * rng.next(in: 0.02...0.12)
            let col = (UInt8(rng.next(in: 0...255)), UInt8(rng.next(in: 0...255)), UInt8(rng.next(in: 0...255)))
            for y in max(0, Int(cy - r))..<min(img.height, Int(cy + r) + 1) {
                for x in max(0, Int(cx - r))..<min(img.width, Int(cx + r) + 1) {
                    let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                    guard dx * dx + dy * dy <= r * r else { continue }
                    let o = (y * img.width + x) * 4
                    img.pixels[o] = col.0; img.pixels[o + 1] = col.1; img.pixels[o + 2] = col.2
                }
            }
        }
        // Short strokes (darker), like lines of a drawing.
        for _ in 0..<30 {
            var x = rng.next(in: 0.0...Double(img.width)), y = rng.next(in: 0.0...Double(img.height))
            let angle = rng.next(in: 0.0...(2 * Double.pi)), len = unit * rng.next(in: 0.05...0.2)
            let ink = UInt8(rng.next(in: 10...60))
            for _ in 0..<Int(len) {
                for dy in 0...1 {
                    for dx in 0...1 {
                        let px = Int(x) + dx, py = Int(y) + dy
                        guard px >= 0, py >= 0, px < img.width, py < img.height else { continue }
                        let o = (py * img.width + px) * 4
                        img.pixels[o] = ink; img.pixels[o + 1] = ink; img.pixels[o + 2] = ink
                    }
                }
                x += cos(angle); y += sin(angle)
            }
        }
        if framed {
            let border = max(2, img.height / 16)
            for y in 0..<img.height {
                for x in 0..<img.width where x < border || y < border || x >= img.width - border || y >= img.height - border {
                    let o = (y * img.width + x) * 4
                    img.pixels[o] = 40; img.pixels[o + 1] = 32; img.pixels[o + 2] = 28
                }
            }
        }
        return img
    }

    /// A painted wall for a poster to hang on, warm-tinted: plaster shading (gentle waves, ±20
    /// levels), grain (±6), speckles and short hairline cracks. Textured everywhere, without the
    /// long straight edges of shelves (`TexturedBackground`). A pure function of its arguments.
    public static func wall(width: Int, height: Int, seed: UInt64) -> RGBAImage {
        var rng = SeededRandom(seed: SeededRandom.mix(seed, 0x3A11_0000))
        var waves: [(fx: Double, fy: Double, phase: Double)] = []
        for _ in 0..<3 {
            let period = rng.next(in: 60.0...300.0), dir = rng.next(in: 0.0...(2 * Double.pi))
            waves.append((2 * Double.pi * cos(dir) / period, 2 * Double.pi * sin(dir) / period, rng.next(in: 0.0...(2 * Double.pi))))
        }
        var px = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var v = 150.0
                for w in waves { v += 7 * sin(w.fx * Double(x) + w.fy * Double(y) + w.phase) }
                v += Double(rng.next(in: -6...6))
                px[y * width + x] = UInt8(clamping: Int(v.rounded()))
            }
        }
        let unit = Double(min(width, height))
        for _ in 0..<(width * height / 900) {
            let cx = rng.next(in: 0...(width - 1)), cy = rng.next(in: 0...(height - 1)), r = rng.next(in: 1...3)
            let level = UInt8(rng.next(in: 70...120))
            for y in max(0, cy - r)...min(height - 1, cy + r) {
                for x in max(0, cx - r)...min(width - 1, cx + r) where (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r {
                    px[y * width + x] = level
                }
            }
        }
        for _ in 0..<6 {
            var x = rng.next(in: 0.0...Double(width)), y = rng.next(in: 0.0...Double(height))
            var angle = rng.next(in: 0.0...(2 * Double.pi))
            for _ in 0..<Int(unit * rng.next(in: 0.05...0.15)) {
                let ix = Int(x), iy = Int(y)
                if ix >= 0, iy >= 0, ix < width, iy < height { px[iy * width + ix] = 95 }
                angle += rng.next(in: -0.4...0.4)
                x += cos(angle); y += sin(angle)
            }
        }
        return tinted(LumaPlane(width: width, height: height, pixels: px))
    }

    /// A background of `gray` (e.g. `TexturedBackground`), tinted warm (red ≥ green ≥ blue), as RGBA.
    public static func tinted(_ gray: LumaPlane) -> RGBAImage {
        var img = RGBAImage(width: gray.width, height: gray.height)
        for y in 0..<gray.height {
            for x in 0..<gray.width {
                let v = Double(gray[x, y]), o = (y * gray.width + x) * 4
                img.pixels[o] = UInt8(min(255, v * 1.05)); img.pixels[o + 1] = UInt8(v * 0.85); img.pixels[o + 2] = UInt8(v * 0.6)
            }
        }
        return img
    }

    /// `background` with `picture` drawn in perspective so that its corners land on `quad`
    /// (clockwise from the picture's top-left, frame pixels), edges anti-aliased (4 × 4 samples).
    public static func compose(_ picture: RGBAImage, onto background: RGBAImage, at quad: Quad) -> RGBAImage {
        let rect = Quad(Rect(x: 0, y: 0, width: Double(picture.width), height: Double(picture.height)))
        guard let toFrame = Homography(from: rect, to: quad), let toPicture = toFrame.inverse else { return background }
        var out = background
        let box = quad.boundingBox.integral.intersection(Rect(x: 0, y: 0, width: Double(background.width), height: Double(background.height)))
        guard !box.isEmpty else { return out }
        let n = 4
        for y in Int(box.minY)..<Int(box.maxY) {
            for x in Int(box.minX)..<Int(box.maxX) {
                var sum = (0.0, 0.0, 0.0), inside = 0
                for j in 0..<n {
                    for i in 0..<n {
                        let p = toPicture.apply(Point(x: Double(x) + (Double(i) + 0.5) / Double(n), y: Double(y) + (Double(j) + 0.5) / Double(n)))
                        guard p.x >= 0, p.y >= 0, p.x < Double(picture.width), p.y < Double(picture.height) else { continue }
                        let c = picture.sample(p.x, p.y)
                        sum.0 += c.0; sum.1 += c.1; sum.2 += c.2
                        inside += 1
                    }
                }
                guard inside > 0 else { continue }
                let o = (y * out.width + x) * 4
                let k = Double(inside) / Double(n * n), m = 1 / Double(inside)
                for (c, v) in [sum.0, sum.1, sum.2].enumerated() {
                    out.pixels[o + c] = UInt8(min(255, (v * m * k + Double(out.pixels[o + c]) * (1 - k)).rounded()))
                }
            }
        }
        return out
    }

    /// Where a `width` × `height` poster hanging on a wall appears at `time` (0…1) of a camera
    /// move, in a `frameWidth` × `frameHeight` frame: it drifts sideways across about a fifth of the
    /// frame and turns about its vertical axis from 0 up to `maxTiltDegrees` and back, with a little
    /// roll and a bob (pinhole camera, focal length = the frame width).
    public static func quad(time: Double, frameWidth: Int, frameHeight: Int, posterWidth: Double, posterHeight: Double,
                            maxTiltDegrees: Double = 45) -> Quad {
        let f = Double(frameWidth)
        let yaw = maxTiltDegrees * sin(Double.pi * time) * Double.pi / 180
        let roll = 6 * sin(2 * Double.pi * time) * Double.pi / 180
        let pitch = 8 * sin(3 * Double.pi * time) * Double.pi / 180
        let cx = Double(frameWidth) * (0.5 + 0.1 * sin(2 * Double.pi * time)), cy = Double(frameHeight) * (0.5 + 0.05 * sin(4 * Double.pi * time))
        let depth = f * 1.0
        let corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)].map { (u, v) -> Point in
            var x = u * posterWidth, y = v * posterHeight, z = 0.0
            // Roll (in the poster's plane), pitch (about x), yaw (about y).
            (x, y) = (x * cos(roll) - y * sin(roll), x * sin(roll) + y * cos(roll))
            (y, z) = (y * cos(pitch) - z * sin(pitch), y * sin(pitch) + z * cos(pitch))
            (x, z) = (x * cos(yaw) + z * sin(yaw), -x * sin(yaw) + z * cos(yaw))
            let s = f / (depth + z)
            return Point(x: cx + x * s, y: cy + y * s)
        }
        return Quad(corners)!
    }
}
