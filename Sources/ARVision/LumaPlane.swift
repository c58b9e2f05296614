/// An owned 8-bit luma image, rows `width` bytes apart: the input of image-motion estimation.
public struct LumaPlane: Sendable {
    /// Size, pixels.
    public let width: Int
    public let height: Int
    /// Row-major pixels, `width * height` bytes.
    public var pixels: [UInt8]

    /// A plane of `width` × `height` pixels copied from rows `stride` bytes apart starting at `base`.
    public init(copying base: UnsafeRawPointer, width: Int, height: Int, stride: Int) {
        self.width = width
        self.height = height
        var pixels = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBytes { dst in
            for y in 0..<height {
                (dst.baseAddress! + y * width).copyMemory(from: base + y * stride, byteCount: width)
            }
        }
        self.pixels = pixels
    }

    /// A plane holding `pixels` (row-major, `width * height` bytes).
    public init?(width: Int, height: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, pixels.count == width * height else { return nil }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The pixel at (x, y); x and y must be inside the plane.
    @inline(__always)
    public subscript(x x: Int, y y: Int) -> UInt8 { pixels[y * width + x] }
}
