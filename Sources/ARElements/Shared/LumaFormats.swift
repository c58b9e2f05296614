import ARCore
import ARDetect
import ARGst
import CGStreamer

/// Raw video formats the detecting elements accept, and where each keeps its luma.
enum LumaFormats {
    /// Where the 8-bit luma of a format lives.
    enum Layout: Equatable {
        /// Plane 0 is the luma plane (planar and semi-planar YUV, grey): read in place.
        case plane
        /// Packed 4:2:2 YUV: luma every `step` bytes from byte `offset` of each row.
        case packedYUV(offset: Int, step: Int)
        /// Packed RGB: red, green and blue at these byte offsets of each `step`-byte pixel.
        case rgb(r: Int, g: Int, b: Int, step: Int)
    }

    /// Format name → layout, in the order the caps list them.
    static let layouts: [(name: String, layout: Layout)] = [
        ("I420", .plane), ("YV12", .plane), ("NV12", .plane), ("NV21", .plane), ("Y42B", .plane), ("Y444", .plane),
        ("Y41B", .plane), ("NV16", .plane), ("NV61", .plane), ("NV24", .plane), ("A420", .plane), ("GRAY8", .plane),
        ("YUY2", .packedYUV(offset: 0, step: 2)), ("YVYU", .packedYUV(offset: 0, step: 2)),
        ("UYVY", .packedYUV(offset: 1, step: 2)), ("VYUY", .packedYUV(offset: 1, step: 2)),
        ("BGRx", .rgb(r: 2, g: 1, b: 0, step: 4)), ("BGRA", .rgb(r: 2, g: 1, b: 0, step: 4)),
        ("RGBx", .rgb(r: 0, g: 1, b: 2, step: 4)), ("RGBA", .rgb(r: 0, g: 1, b: 2, step: 4)),
        ("xRGB", .rgb(r: 1, g: 2, b: 3, step: 4)), ("ARGB", .rgb(r: 1, g: 2, b: 3, step: 4)),
        ("xBGR", .rgb(r: 3, g: 2, b: 1, step: 4)), ("ABGR", .rgb(r: 3, g: 2, b: 1, step: 4)),
        ("RGB", .rgb(r: 0, g: 1, b: 2, step: 3)), ("BGR", .rgb(r: 2, g: 1, b: 0, step: 3)),
    ]

    static var names: [String] { layouts.map(\.name) }

    static var caps: String { ElementMetadata.rawVideoCaps(names) }

    /// The layout of a negotiated format; nil for a format not in the caps.
    static func layout(of format: GstVideoFormat) -> Layout? {
        let name = String(cString: gst_video_format_to_string(format))
        return layouts.first { $0.name == name }?.layout
    }
}

extension VideoFrame {
    /// Calls `body` with the frame's luma: plane 0 borrowed in place for planar and semi-planar
    /// YUV and grey; otherwise derived into `scratch` (packed YUV: the Y bytes; RGB: BT.601 luma).
    func withLuma<R>(scratch: inout LumaPlane, _ body: (LumaImage) -> R) -> R {
        let layout = LumaFormats.layout(of: format) ?? .plane
        let src = UnsafeRawPointer(plane(0)), srcStride = stride(0)
        switch layout {
        case .plane:
            return body(LumaImage(base: src, width: width, height: height, stride: srcStride, fullStrides: true))
        case .packedYUV(let offset, let step):
            scratch.resize(width: width, height: height)
            let w = width
            scratch.pixels.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let row = src + y * srcStride + offset
                    for x in 0..<w { dst[y * w + x] = row.load(fromByteOffset: x * step, as: UInt8.self) }
                }
            }
        case .rgb(let r, let g, let b, let step):
            scratch.resize(width: width, height: height)
            let w = width
            scratch.pixels.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let row = src + y * srcStride
                    for x in 0..<w {
                        let p = x * step
                        let red = Int(row.load(fromByteOffset: p + r, as: UInt8.self))
                        let green = Int(row.load(fromByteOffset: p + g, as: UInt8.self))
                        let blue = Int(row.load(fromByteOffset: p + b, as: UInt8.self))
                        // BT.601 weights in 1/256: 0.299, 0.587, 0.114.
                        dst[y * w + x] = UInt8((77 * red + 150 * green + 29 * blue + 128) >> 8)
                    }
                }
            }
        }
        return scratch.withImage(body)
    }
}
