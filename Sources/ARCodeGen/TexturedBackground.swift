import ARCore
import Foundation

/// What a `CodeClip` draws its codes over.
public enum CodeClipBackground: String, CaseIterable, Hashable, Sendable {
    /// Mid-gray with gentle shading and fine grain (`SyntheticScene`'s background).
    case plain
    /// Cardboard and shelf edges with printed-text-like strokes and bar-like stripe patches: sharp,
    /// high-frequency edges that look code-like to a naive detector (`TexturedBackground`).
    case texture
}

/// A busy background like a shop shelf or a parcel: fibrous cardboard shading, shelf edges, blocks
/// of printed-text-like strokes (lines of "words" made of stems, bars and bowls) and a few patches of
/// bar-like stripes. A pure function of (size, seed); sizes of strokes scale with the image height.
public enum TexturedBackground {
    /// A `width × height` textured background (1...16384 each).
    public static func image(width: Int, height: Int, seed: UInt64) -> LumaPlane {
        var rng = SeededRandom(seed: SeededRandom.mix(seed, 0x7E87_0000))
        var px = [UInt8](repeating: 0, count: width * height)
        let unit = max(1.0, Double(min(width, height)) / 720)

        // Cardboard: smooth blotches (±18 levels, 90 px cells), horizontal fibres (±9, 40 × 3 px) and grain (±5).
        let base = Double(rng.next(in: 125...160))
        let blotches = ValueGrid(width: width, height: height, cellX: 90 * unit, cellY: 90 * unit, rng: &rng)
        let fibres = ValueGrid(width: width, height: height, cellX: 40 * unit, cellY: 3 * unit, rng: &rng)
        px.withUnsafeMutableBufferPointer { p in
            for y in 0..<height {
                for x in 0..<width {
                    let v = base + 18 * blotches.value(x, y) + 9 * fibres.value(x, y) + Double(rng.next(in: -5...5))
                    p[y * width + x] = UInt8(clamping: Int(v.rounded()))
                }
            }
        }

        func fill(_ x0: Int, _ y0: Int, _ w: Int, _ h: Int, _ level: UInt8) {
            let xa = max(0, x0), xb = min(width, x0 + w), ya = max(0, y0), yb = min(height, y0 + h)
            guard xa < xb, ya < yb else { return }
            for y in ya..<yb { for x in xa..<xb { px[y * width + x] = level } }
        }

        // Shelf edges: a dark shadow line above a light lip, every 250...450 px.
        var shelfY = Int(Double(rng.next(in: 120...300)) * unit)
        while shelfY < height {
            let shadow = max(2, Int(Double(rng.next(in: 3...7)) * unit)), lip = max(4, Int(Double(rng.next(in: 8...16)) * unit))
            fill(0, shelfY, width, shadow, UInt8(rng.next(in: 35...60)))
            fill(0, shelfY + shadow, width, lip, UInt8(rng.next(in: 185...225)))
            shelfY += Int(Double(rng.next(in: 250...450)) * unit)
        }

        // Printed text: one block per ~(220 px)² of area.
        let blocks = max(1, Int(Double(width * height) / (220 * 220 * unit * unit)))
        for _ in 0..<blocks {
            let xHeight = max(4, Int(Double(rng.next(in: 6...16)) * unit))
            let stroke = max(1, xHeight / 6 + rng.next(in: 0...1))
            let ink = UInt8(rng.next(in: 20...75))
            var y = rng.next(in: 0...height)
            let left = rng.next(in: -40...width)
            for _ in 0..<rng.next(in: 2...7) {
                var x = left
                for _ in 0..<rng.next(in: 2...8) {
                    for _ in 0..<rng.next(in: 2...9) {
                        let w = max(stroke + 1, xHeight * rng.next(in: 5...8) / 10)
                        switch rng.next(in: 0...5) {
                        case 0: fill(x, y, stroke, xHeight, ink)  // stem
                        case 1:  // ascender
                            fill(x, y - xHeight / 2, stroke, xHeight + xHeight / 2, ink)
                            fill(x, y + xHeight / 2 - stroke / 2, w, stroke, ink)
                        case 2:  // two stems and a bar (n, h, u)
                            fill(x, y, stroke, xHeight, ink); fill(x + w - stroke, y, stroke, xHeight, ink)
                            fill(x, y, w, stroke, ink)
                        case 3:  // bowl (o, e)
                            fill(x, y, w, stroke, ink); fill(x, y + xHeight - stroke, w, stroke, ink)
                            fill(x, y, stroke, xHeight, ink); fill(x + w - stroke, y, stroke, xHeight, ink)
                        case 4:  // descender
                            fill(x + w / 2, y, stroke, xHeight + xHeight / 2, ink); fill(x, y, w, stroke, ink)
                        default:  // bars (z, s, e)
                            fill(x, y, w, stroke, ink); fill(x, y + xHeight / 2, w, stroke, ink)
                            fill(x, y + xHeight - stroke, w, stroke, ink)
                        }
                        x += w + max(1, stroke)
                    }
                    x += xHeight  // word space
                }
                y += xHeight * 2 + rng.next(in: 0...xHeight / 2)
            }
        }

        // Bar-like stripe patches (price labels, ruled forms): one per ~(600 px)², at least two.
        let patches = max(2, Int(Double(width * height) / (600 * 600 * unit * unit)))
        for _ in 0..<patches {
            let ph = max(8, Int(Double(rng.next(in: 20...70)) * unit)), pw = max(16, Int(Double(rng.next(in: 40...160)) * unit))
            let px0 = rng.next(in: 0...max(0, width - pw)), py0 = rng.next(in: 0...max(0, height - ph))
            fill(px0 - 4, py0 - 4, pw + 8, ph + 8, UInt8(rng.next(in: 215...245)))
            var x = px0
            let module = max(1, Int(unit.rounded()))
            while x < px0 + pw {
                let bar = module * rng.next(in: 1...4), gap = module * rng.next(in: 1...4)
                fill(x, py0, min(bar, px0 + pw - x), ph, UInt8(rng.next(in: 15...45)))
                x += bar + gap
            }
        }
        return LumaPlane(width: width, height: height, pixels: px)
    }
}

/// Random values on a coarse grid, bilinearly interpolated: smooth noise in −1...1.
private struct ValueGrid {
    let columns: Int
    let cellX: Double, cellY: Double
    let values: [Double]

    init(width: Int, height: Int, cellX: Double, cellY: Double, rng: inout SeededRandom) {
        self.cellX = max(1, cellX)
        self.cellY = max(1, cellY)
        columns = Int(Double(width) / self.cellX) + 2
        let rows = Int(Double(height) / self.cellY) + 2
        values = (0..<(columns * rows)).map { _ in rng.next(in: -1.0...1.0) }
    }

    @inline(__always)
    func value(_ x: Int, _ y: Int) -> Double {
        let u = Double(x) / cellX, v = Double(y) / cellY
        let i = Int(u), j = Int(v), fu = u - Double(i), fv = v - Double(j)
        let a = values[j * columns + i], b = values[j * columns + i + 1]
        let c = values[(j + 1) * columns + i], d = values[(j + 1) * columns + i + 1]
        return (a * (1 - fu) + b * fu) * (1 - fv) + (c * (1 - fu) + d * fu) * fv
    }
}
