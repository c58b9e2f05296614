/// An owned 8-bit luma (grey) image, rows packed (`width` bytes apart), 0 = black, 255 = white.
///
/// Pixel (x, y) covers the square [x, x+1) × [y, y+1) in pixel coordinates, its centre is at
/// (x + 0.5, y + 0.5). Made from a frame's plane (`init(copying:…)`), by a format conversion or a
/// resampling pass (reused between frames with `resize`), or drawn by the generator.
public struct LumaPlane: Hashable, Sendable {
    /// Size, pixels (≥ 1).
    public private(set) var width: Int
    public private(set) var height: Int
    /// Row-major pixels, `width × height` bytes.
    public var pixels: [UInt8]

    /// Why a size given from outside was refused.
    public enum SizeError: Error, Equatable {
        /// Width or height below 1 or above 2^20 pixels, `width × height` of 2^31 bytes or more, or
        /// `pixelCount` bytes given for `width × height` pixels.
        case invalidSize(width: Int, height: Int, pixelCount: Int)
    }

    /// A plane of `width × height` pixels (both ≥ 1: checked by a precondition) filled with `fill`.
    public init(width: Int, height: Int, fill: UInt8 = 0) {
        precondition(width > 0 && height > 0, "invalid luma plane size")
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: fill, count: width * height)
    }

    /// A plane holding `pixels` (row-major, `width × height` bytes: checked by a precondition).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height, "invalid luma plane size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A plane of a size from outside (a file, a property), filled with `fill`; throws
    /// `SizeError.invalidSize` for a size `validate` refuses.
    public init(validatingWidth width: Int, height: Int, fill: UInt8 = 0) throws(SizeError) {
        try Self.validate(width: width, height: height, pixelCount: width * height)
        self.init(width: width, height: height, fill: fill)
    }

    /// A plane holding `pixels` of a size from outside; throws `SizeError.invalidSize` for a size
    /// `validate` refuses or a buffer of the wrong length.
    public init(validatingWidth width: Int, height: Int, pixels: [UInt8]) throws(SizeError) {
        try Self.validate(width: width, height: height, pixelCount: pixels.count)
        self.init(width: width, height: height, pixels: pixels)
    }

    /// A plane of `width × height` pixels copied from rows `stride` bytes apart starting at `base`.
    public init(copying base: UnsafeRawPointer, width: Int, height: Int, stride: Int) {
        var pixels = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBytes { dst in
            for y in 0..<height {
                (dst.baseAddress! + y * width).copyMemory(from: base + y * stride, byteCount: width)
            }
        }
        self.init(width: width, height: height, pixels: pixels)
    }

    /// An owned copy of a borrowed luma image (row padding dropped).
    public init(copying image: LumaImage) {
        self.init(copying: image.base, width: image.width, height: image.height, stride: image.stride)
    }

    /// Accepts 1…2^20 pixels a side, below 2^31 bytes, and `pixelCount == width × height`.
    private static func validate(width: Int, height: Int, pixelCount: Int) throws(SizeError) {
        guard width >= 1, height >= 1, width <= 1 << 20, height <= 1 << 20, width * height < 1 << 31,
              pixelCount == width * height else {
            throw .invalidSize(width: width, height: height, pixelCount: pixelCount)
        }
    }

    /// Changes the size (both ≥ 1), keeping the storage when it is the same length; pixel values
    /// are then unspecified.
    public mutating func resize(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "invalid luma plane size")
        self.width = width
        self.height = height
        if pixels.count != width * height {
            pixels = [UInt8](repeating: 0, count: width * height)
        }
    }

    /// The grey level (0…255) of pixel (x, y); x in 0..<width, y in 0..<height (out-of-range
    /// indices trap, as for `Array`).
    @inlinable @inline(__always)
    public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    /// Calls `body` with a borrowed view of the pixels, valid only during the call.
    public func withImage<R>(_ body: (LumaImage) throws -> R) rethrows -> R {
        try pixels.withUnsafeBytes { try body(LumaImage(base: $0.baseAddress!, width: width, height: height, stride: width)) }
    }
}

extension LumaPlane {
    /// The plane at half the size (rounded down), each pixel the mean of a 2×2 block (rounded).
    public func halved() -> LumaPlane {
        withImage { Self.halved($0) }
    }

    /// `image` at half the size (rounded down, at least 1 × 1), each pixel the mean of a 2×2
    /// block (rounded): the one reduction of detection, vision and pyramids.
    public static func halved(_ image: LumaImage) -> LumaPlane {
        var out = LumaPlane(width: max(1, image.width / 2), height: max(1, image.height / 2))
        out.pixels.withUnsafeMutableBufferPointer { halve(image, into: $0) }
        return out
    }

    /// Writes the half-size reduction of `src` (`src.width / 2` × `src.height / 2`, rows packed)
    /// into `dst`.
    public static func halve(_ src: LumaImage, into dst: UnsafeMutableBufferPointer<UInt8>) {
        let w = src.width / 2, h = src.height / 2
        guard w > 0, h > 0 else { return }
        let d = UnsafeMutableRawPointer(dst.baseAddress!)
        let lo: UInt64 = 0x00FF_00FF_00FF_00FF, two: UInt64 = 0x0002_0002_0002_0002
        for y in 0..<h {
            let r0 = src.base + 2 * y * src.stride, r1 = r0 + src.stride, o = d + y * w
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
