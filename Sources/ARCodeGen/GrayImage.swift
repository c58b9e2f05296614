/// An 8-bit grayscale image (0 = black, 255 = white), rows top to bottom, `stride` bytes per row.
///
/// Pixel (x, y) covers the square [x, x+1) × [y, y+1) in frame-pixel coordinates, so its centre is
/// at (x + 0.5, y + 0.5); `Quad`s returned by the renderer use the same coordinates.
public struct GrayImage: Hashable, Sendable {
    /// Width in pixels (≥ 1).
    public let width: Int
    /// Height in pixels (≥ 1).
    public let height: Int
    /// Bytes per row (≥ width); bytes past `width` in a row are padding.
    public let stride: Int
    /// `stride × height` bytes, row-major.
    public var pixels: [UInt8]

    /// An image filled with the gray level `fill` (0...255). `stride` (bytes per row) defaults to
    /// `width`. Throws `.invalidImageSize` unless width, height ≥ 1, stride ≥ width and the buffer
    /// stays below 2^31 bytes.
    public init(width: Int, height: Int, stride: Int? = nil, fill: UInt8 = 0) throws {
        let s = stride ?? width
        try Self.validate(width: width, height: height, stride: s)
        self.width = width
        self.height = height
        self.stride = s
        self.pixels = Array(repeating: fill, count: s * height)
    }

    /// An image wrapping existing row-major `pixels` (`stride × height` bytes). Throws
    /// `.invalidImageSize` for a bad size or a buffer of the wrong length.
    public init(width: Int, height: Int, stride: Int? = nil, pixels: [UInt8]) throws {
        let s = stride ?? width
        try Self.validate(width: width, height: height, stride: s)
        guard pixels.count == s * height else { throw CodeGenError.invalidImageSize(width: width, height: height, stride: s) }
        self.width = width
        self.height = height
        self.stride = s
        self.pixels = pixels
    }

    /// For callers that have already validated the size (internal use).
    init(validatedWidth width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.stride = width
        self.pixels = pixels
    }

    private static func validate(width: Int, height: Int, stride: Int) throws {
        guard width >= 1, height >= 1, stride >= width, stride <= 1 << 20, height <= 1 << 20,
              stride * height < 1 << 31 else {
            throw CodeGenError.invalidImageSize(width: width, height: height, stride: stride)
        }
    }

    /// The gray level (0...255) of pixel (x, y); x in 0..<width, y in 0..<height (out-of-range
    /// indices trap, as for `Array`).
    @inline(__always)
    public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * stride + x] }
        set { pixels[y * stride + x] = newValue }
    }

    /// The image as one raw I420 frame: the Y plane (`width × height` bytes, row stride = width,
    /// i.e. tightly packed, padding dropped), then the U and V planes, each
    /// `((width + 1) / 2) × ((height + 1) / 2)` bytes at 128 (neutral chroma), also tightly packed.
    ///
    /// Total size: `width·height + 2·⌈width/2⌉·⌈height/2⌉` bytes. GStreamer's default I420 layout
    /// pads rows to multiples of 4 bytes (and the Y plane to an even height), so when `width` is
    /// not a multiple of 8 or `height` is odd, tell `rawvideoparse` the packed layout with
    /// `plane-strides` and `plane-offsets`; for e.g. 640×480 the two layouts are identical.
    public func i420Frame() -> [UInt8] {
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        var out = [UInt8](repeating: 128, count: width * height + 2 * cw * ch)
        out.withUnsafeMutableBufferPointer { dst in
            pixels.withUnsafeBufferPointer { src in
                for y in 0..<height {
                    let d = dst.baseAddress! + y * width
                    d.update(from: src.baseAddress! + y * stride, count: width)
                }
            }
        }
        return out
    }

    /// The image as one GRAY8 frame, tightly packed (`width × height` bytes, row stride = width).
    /// Like `i420Frame()`, GStreamer's default GRAY8 layout pads rows to 4 bytes.
    public func gray8Frame() -> [UInt8] {
        if stride == width { return pixels }
        var out = [UInt8](); out.reserveCapacity(width * height)
        for y in 0..<height { out += pixels[(y * stride)..<(y * stride + width)] }
        return out
    }

    /// The image as RGBA, 4 bytes per pixel (R = G = B = gray, A = 255), tightly packed
    /// (`width × height × 4` bytes, row stride = 4 × width).
    public func rgbaFrame() -> [UInt8] {
        var out = [UInt8](repeating: 255, count: width * height * 4)
        out.withUnsafeMutableBufferPointer { dst in
            pixels.withUnsafeBufferPointer { src in
                var o = 0
                for y in 0..<height {
                    let row = y * stride
                    for x in 0..<width {
                        let g = src[row + x]
                        dst[o] = g; dst[o + 1] = g; dst[o + 2] = g
                        o += 4
                    }
                }
            }
        }
        return out
    }

    /// The image as a binary PGM file (P5, maxval 255): readable by `zbarimg`, ImageMagick, etc.
    public func pgmFile() -> [UInt8] {
        Array("P5\n\(width) \(height)\n255\n".utf8) + gray8Frame()
    }
}
