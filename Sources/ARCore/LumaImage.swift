/// An 8-bit luma (grey) image borrowed from a video frame: no copy, valid while the frame is mapped.
public struct LumaImage {
    /// First byte of the top row.
    public let base: UnsafeRawPointer
    /// Visible size, pixels.
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next (≥ width).
    public let stride: Int
    /// Whether every row, the last included, may be read up to `stride` bytes (true for a video
    /// frame's plane; false for a sub-image of a larger one). zbar reads whole strides, so an image
    /// with padded rows that may not be read is packed into a copy first.
    public var fullStrides: Bool

    /// A view of `height` rows of `width` pixels, `stride` bytes apart, starting at `base`.
    public init(base: UnsafeRawPointer, width: Int, height: Int, stride: Int, fullStrides: Bool = false) {
        precondition(width > 0 && height > 0 && stride >= width, "invalid luma image geometry")
        self.base = base
        self.width = width
        self.height = height
        self.stride = stride
        self.fullStrides = fullStrides
    }

    /// The grey level of pixel (x, y); no bounds check beyond the caller's.
    @inlinable @inline(__always)
    public func pixel(_ x: Int, _ y: Int) -> UInt8 {
        base.load(fromByteOffset: y * stride + x, as: UInt8.self)
    }

    /// Bilinear sample at (x, y) in pixel-centre coordinates (pixel (i, j) covers [i, i+1) × [j, j+1),
    /// its centre is (i + 0.5, j + 0.5)); clamped at the borders. 0…255.
    @inlinable @inline(__always)
    public func sample(_ x: Double, _ y: Double) -> Double {
        let fx = min(max(x - 0.5, 0), Double(width - 1)), fy = min(max(y - 0.5, 0), Double(height - 1))
        let x0 = Int(fx), y0 = Int(fy)
        return bilinear(x0, y0, min(x0 + 1, width - 1), min(y0 + 1, height - 1), fx - Double(x0), fy - Double(y0))
    }

    /// `sample` without clamping, for a point whose four neighbours lie inside the image
    /// (0.5 ≤ x < width − 1.5, 0.5 ≤ y < height − 1.5): the same value, fewer instructions.
    @inlinable @inline(__always)
    public func sampleInside(_ x: Double, _ y: Double) -> Double {
        let fx = x - 0.5, fy = y - 0.5
        let x0 = Int(fx), y0 = Int(fy)
        return bilinear(x0, y0, x0 + 1, y0 + 1, fx - Double(x0), fy - Double(y0))
    }

    /// `sampleInside` at four points at once: the same arithmetic lane by lane, so the same values.
    @inlinable @inline(__always)
    public func sampleInside(_ x: SIMD4<Double>, _ y: SIMD4<Double>) -> SIMD4<Double> {
        let fx = x - 0.5, fy = y - 0.5
        var ax = SIMD4<Double>(), ay = ax, p00 = ax, p10 = ax, p01 = ax, p11 = ax
        for k in 0..<4 {
            // Scalar conversions: SIMD4<Int>(_:rounding:) is not specialised (a generic call per lane).
            let x0 = Int(fx[k]), y0 = Int(fy[k])
            ax[k] = fx[k] - Double(x0)
            ay[k] = fy[k] - Double(y0)
            let p = base + y0 * stride + x0
            p00[k] = Double(p.load(as: UInt8.self))
            p10[k] = Double(p.load(fromByteOffset: 1, as: UInt8.self))
            p01[k] = Double(p.load(fromByteOffset: stride, as: UInt8.self))
            p11[k] = Double(p.load(fromByteOffset: stride + 1, as: UInt8.self))
        }
        let top = p00 * (1 - ax) + p10 * ax, bottom = p01 * (1 - ax) + p11 * ax
        return top * (1 - ay) + bottom * ay
    }

    /// Whether (x, y) lies a pixel or more inside the range `sampleInside` accepts: the points
    /// between two such points on a line can be sampled with it, rounding included.
    @inlinable @inline(__always)
    public func holdsInside(_ x: Double, _ y: Double) -> Bool {
        x >= 1.5 && y >= 1.5 && x < Double(width) - 2.5 && y < Double(height) - 2.5
    }

    /// Adds to `out[k]`, for k in 0..<`count`, `sampleInside(x + k·dx, y + k·dy)`: a line of
    /// samples whose two ends `holdsInside` (so every point between them does). Stepped in fixed
    /// point (32 fractional bits: under 10⁻⁶ px of drift over 4096 samples) with 16-bit weights:
    /// each value within 0.01 of `sampleInside`'s, in fewer instructions.
    @inlinable
    public func addLineInside(x: Double, y: Double, dx: Double, dy: Double, count: Int, into out: UnsafeMutablePointer<Double>) {
        let one = 4_294_967_296.0
        var fx = Int64(((x - 0.5) * one).rounded()), fy = Int64(((y - 0.5) * one).rounded())
        let sx = Int64((dx * one).rounded()), sy = Int64((dy * one).rounded())
        let stride = self.stride
        for k in 0..<count {
            let p = base + Int(fy >> 32) * stride + Int(fx >> 32)
            let ax = (fx >> 16) & 0xFFFF, ay = (fy >> 16) & 0xFFFF
            let a = Int64(p.load(as: UInt8.self)), b = Int64(p.load(fromByteOffset: 1, as: UInt8.self))
            let c = Int64(p.load(fromByteOffset: stride, as: UInt8.self)), d = Int64(p.load(fromByteOffset: stride + 1, as: UInt8.self))
            let top = (a << 16) + (b - a) * ax, bottom = (c << 16) + (d - c) * ax
            out[k] += Double((top << 16) + (bottom - top) * ay) * (1 / one)
            fx &+= sx
            fy &+= sy
        }
    }

    /// Pixels (x0, y0), (x1, y0), (x0, y1), (x1, y1) weighted by the fractions `ax`, `ay`.
    @inlinable @inline(__always)
    func bilinear(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ ax: Double, _ ay: Double) -> Double {
        let top = Double(pixel(x0, y0)) * (1 - ax) + Double(pixel(x1, y0)) * ax
        let bottom = Double(pixel(x0, y1)) * (1 - ax) + Double(pixel(x1, y1)) * ax
        return top * (1 - ay) + bottom * ay
    }
}

extension SIMD4 where Scalar == Double {
    /// `k`, `k + 1`, `k + 2`, `k + 3`: the indices of four samples taken at once.
    @inlinable @inline(__always)
    public static func counting(from k: Int) -> SIMD4<Double> {
        SIMD4(Double(k), Double(k + 1), Double(k + 2), Double(k + 3))
    }
}
