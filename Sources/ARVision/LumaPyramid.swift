import ARCore

/// A luma plane and its successive half-size reductions (2×2 box filter): level 0 is the plane,
/// level `k` is `2^k` times smaller. Coordinates follow the frame convention (pixel (i, j) covers
/// [i, i+1) × [j, j+1)), so a point at `p` on level 0 is at `p / 2^k` on level `k`.
public struct LumaPyramid: Sendable {
    /// Levels, finest first; never empty.
    public let levels: [LumaPlane]

    /// Builds up to `levelCount` levels (1...8), stopping before a level would be under 16 pixels wide or high.
    public init(_ plane: LumaPlane, levelCount: Int) {
        var levels = [plane]
        while levels.count < max(1, min(8, levelCount)) {
            let last = levels[levels.count - 1]
            guard last.width / 2 >= 16, last.height / 2 >= 16 else { break }
            levels.append(last.halved())
        }
        self.levels = levels
    }

    /// Level 0's size, pixels.
    public var width: Int { levels[0].width }
    public var height: Int { levels[0].height }
}

extension LumaPlane {
    /// The plane at half the size (rounded down), each pixel the mean of a 2×2 block.
    public func halved() -> LumaPlane {
        let w = width / 2, h = height / 2, sw = width
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let r0 = 2 * y * sw, r1 = r0 + sw, o = y * w
                    for x in 0..<w {
                        let s = Int(src[r0 + 2 * x]) + Int(src[r0 + 2 * x + 1]) + Int(src[r1 + 2 * x]) + Int(src[r1 + 2 * x + 1])
                        dst[o + x] = UInt8((s + 2) >> 2)
                    }
                }
            }
        }
        return LumaPlane(width: w, height: h, pixels: out)!
    }
}
