import ARCore

/// The generator's images as raw video frames and files (`LumaPlane`: 0 = black, 255 = white).
extension LumaPlane {
    /// The image as one raw I420 frame: the Y plane (`width × height` bytes, row stride = width,
    /// tightly packed), then the U and V planes, each
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
                dst.baseAddress!.update(from: src.baseAddress!, count: width * height)
            }
        }
        return out
    }

    /// The image as one GRAY8 frame, tightly packed (`width × height` bytes, row stride = width).
    /// Like `i420Frame()`, GStreamer's default GRAY8 layout pads rows to 4 bytes.
    public func gray8Frame() -> [UInt8] { pixels }

    /// The image as RGBA, 4 bytes per pixel (R = G = B = gray, A = 255), tightly packed
    /// (`width × height × 4` bytes, row stride = 4 × width).
    public func rgbaFrame() -> [UInt8] {
        var out = [UInt8](repeating: 255, count: width * height * 4)
        out.withUnsafeMutableBufferPointer { dst in
            pixels.withUnsafeBufferPointer { src in
                var o = 0
                for y in 0..<height {
                    let row = y * width
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
