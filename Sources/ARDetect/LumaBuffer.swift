/// An owned 8-bit luma image, rows packed (`stride == width`): the result of a format conversion
/// or of a resampling pass. Reused between frames to avoid allocations.
public struct LumaBuffer {
    /// Size, pixels.
    public private(set) var width: Int
    public private(set) var height: Int
    /// `width × height` bytes, row-major.
    public var pixels: [UInt8]

    /// An image of `width × height` pixels filled with `fill` (0…255).
    public init(width: Int, height: Int, fill: UInt8 = 0) {
        precondition(width > 0 && height > 0, "invalid luma buffer size")
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: fill, count: width * height)
    }

    /// Changes the size, keeping the storage when it is large enough; pixel values are unspecified.
    public mutating func resize(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "invalid luma buffer size")
        self.width = width
        self.height = height
        if pixels.count != width * height {
            pixels = [UInt8](repeating: 0, count: width * height)
        }
    }

    /// Calls `body` with a borrowed view of the pixels.
    public func withLuma<R>(_ body: (LumaImage) throws -> R) rethrows -> R {
        try pixels.withUnsafeBytes { try body(LumaImage(base: $0.baseAddress!, width: width, height: height, stride: width)) }
    }
}
