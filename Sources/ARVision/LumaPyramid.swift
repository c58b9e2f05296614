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
        for _ in Self.levelSizes(width: plane.width, height: plane.height, levelCount: levelCount).dropFirst() {
            levels.append(levels[levels.count - 1].halved())
        }
        self.levels = levels
    }

    /// The pyramid of a `width` × `height` plane of zeros (every level zeros), its levels made
    /// without reducing one into the next: spare buffers for `init(copying:…)`.
    public init(zerosWidth width: Int, height: Int, levelCount: Int) {
        levels = Self.levelSizes(width: width, height: height, levelCount: levelCount).map { LumaPlane(width: $0.width, height: $0.height) }
    }

    /// The sizes of the levels of a `width` × `height` plane's pyramid of up to `levelCount`
    /// levels (1...8): each half the one before (rounded down), stopping before a level would be
    /// under 16 pixels wide or high.
    private static func levelSizes(width: Int, height: Int, levelCount: Int) -> [(width: Int, height: Int)] {
        var sizes = [(width: width, height: height)]
        while sizes.count < clamped(levelCount), let last = sizes.last, last.width / 2 >= 16, last.height / 2 >= 16 {
            sizes.append((last.width / 2, last.height / 2))
        }
        return sizes
    }

    /// The same pyramid as `init(LumaPlane(copying:…), levelCount:)`, built from `width` × `height`
    /// pixels at `base` (rows `stride` bytes apart), writing into the pixel buffers of `spare` (a
    /// per-frame pyramid then allocates nothing; a buffer something else holds is copied first:
    /// see `sharesPixels`). `spare` is consumed (nil after).
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
        let sizes = Self.levelSizes(width: width, height: height, levelCount: levelCount)
        levels.reserveCapacity(sizes.count)
        for (w, h) in sizes.dropFirst() {
            var px = buffer(levels.count, w * h)
            levels[levels.count - 1].withImage { src in px.withUnsafeMutableBufferPointer { LumaPlane.halve(src, into: $0) } }
            levels.append(LumaPlane(width: w, height: h, pixels: px))
        }
        self.levels = levels
    }

    private static func clamped(_ levelCount: Int) -> Int { max(1, min(8, levelCount)) }

    /// Level 0's size, pixels.
    public var width: Int { levels[0].width }
    public var height: Int { levels[0].height }

    /// Whether `other` holds this pyramid's level-0 pixel buffer (a copy of the pyramid does until
    /// one of them is written): reusing such a pyramid's buffers would copy them first.
    public func sharesPixels(with other: LumaPyramid?) -> Bool {
        guard let other else { return false }
        return levels[0].pixels.withUnsafeBufferPointer { a in
            other.levels[0].pixels.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress }
        }
    }
}
