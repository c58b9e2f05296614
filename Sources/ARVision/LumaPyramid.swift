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
        while levels.count < Self.clamped(levelCount) {
            let last = levels[levels.count - 1]
            guard last.width / 2 >= 16, last.height / 2 >= 16 else { break }
            levels.append(last.halved())
        }
        self.levels = levels
    }

    /// The same pyramid as `init(LumaPlane(copying:…), levelCount:)`, built from `width` × `height`
    /// pixels at `base` (rows `stride` bytes apart), writing into the pixel buffers of `spare` when
    /// nothing else holds them (a per-frame pyramid then allocates nothing). `spare` is consumed (nil after).
    public init(copying base: UnsafeRawPointer, width: Int, height: Int, stride: Int, levelCount: Int,
                reusing spare: inout LumaPyramid?) {
        var old = spare?.levels ?? []
        spare = nil
        /// The buffer of level `k` for `count` pixels: `old`'s when it fits, else a new one.
        func buffer(_ k: Int, _ count: Int) -> [UInt8] {
            if k < old.count, old[k].pixels.count == count {
                let px = old[k].pixels
                old[k].pixels = []
                return px
            }
            return [UInt8](unsafeUninitializedCapacity: count) { _, n in n = count }
        }
        var px0 = buffer(0, width * height)
        px0.withUnsafeMutableBytes { dst in
            if stride == width {
                dst.baseAddress!.copyMemory(from: base, byteCount: width * height)
            } else {
                for y in 0..<height {
                    (dst.baseAddress! + y * width).copyMemory(from: base + y * stride, byteCount: width)
                }
            }
        }
        var levels = [LumaPlane(width: width, height: height, pixels: px0)]
        levels.reserveCapacity(Self.clamped(levelCount))
        while levels.count < Self.clamped(levelCount) {
            let last = levels[levels.count - 1]
            guard last.width / 2 >= 16, last.height / 2 >= 16 else { break }
            let w = last.width / 2, h = last.height / 2
            var px = buffer(levels.count, w * h)
            last.pixels.withUnsafeBufferPointer { src in
                px.withUnsafeMutableBufferPointer { dst in LumaPlane.halve(src, width: last.width, into: dst, w, h) }
            }
            levels.append(LumaPlane(width: w, height: h, pixels: px))
        }
        self.levels = levels
    }

    private static func clamped(_ levelCount: Int) -> Int { max(1, min(8, levelCount)) }

    /// Level 0's size, pixels.
    public var width: Int { levels[0].width }
    public var height: Int { levels[0].height }
}

extension LumaPlane {
    /// The plane at half the size (rounded down), each pixel the mean of a 2×2 block.
    public func halved() -> LumaPlane {
        let w = width / 2, h = height / 2
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in Self.halve(src, width: width, into: dst, w, h) }
        }
        return LumaPlane(width: w, height: h, pixels: out)
    }

    /// Writes the `w` × `h` half-size reduction of `src` (rows `width` bytes) into `dst`.
    @inline(__always)
    static func halve(_ src: UnsafeBufferPointer<UInt8>, width sw: Int, into dst: UnsafeMutableBufferPointer<UInt8>,
                      _ w: Int, _ h: Int) {
        let s = UnsafeRawPointer(src.baseAddress!), d = UnsafeMutableRawPointer(dst.baseAddress!)
        let lo: UInt64 = 0x00FF_00FF_00FF_00FF, two: UInt64 = 0x0002_0002_0002_0002
        for y in 0..<h {
            let r0 = s + 2 * y * sw, r1 = r0 + sw, o = d + y * w
            var x = 0
            // Four output pixels from eight input bytes of each row, in 16-bit lanes of a UInt64.
            while x + 4 <= w {
                let a = r0.loadUnaligned(fromByteOffset: 2 * x, as: UInt64.self)
                let b = r1.loadUnaligned(fromByteOffset: 2 * x, as: UInt64.self)
                let sum = (a & lo) &+ ((a >> 8) & lo) &+ (b & lo) &+ ((b >> 8) & lo) &+ two
                let q = (sum >> 2) & lo
                let packed = (q & 0xFF) | ((q >> 8) & 0xFF00) | ((q >> 16) & 0xFF_0000) | ((q >> 24) & 0xFF00_0000)
                o.storeBytes(of: UInt32(truncatingIfNeeded: packed), toByteOffset: x, as: UInt32.self)
                x += 4
            }
            let p0 = r0.assumingMemoryBound(to: UInt8.self), p1 = r1.assumingMemoryBound(to: UInt8.self)
            while x < w {
                let sum = UInt16(p0[2 * x]) &+ UInt16(p0[2 * x + 1]) &+ UInt16(p1[2 * x]) &+ UInt16(p1[2 * x + 1])
                o.storeBytes(of: UInt8(truncatingIfNeeded: (sum &+ 2) >> 2), toByteOffset: x, as: UInt8.self)
                x += 1
            }
        }
    }
}
