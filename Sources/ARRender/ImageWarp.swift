import ARCore

/// Draws an image in perspective onto a quad: for each tile pixel, the inverse homography finds
/// the image point, sampled bilinearly (premultiplied ARGB32 in, premultiplied ARGB32 out).
enum ImageWarp {
    /// Draws `image` so its corners land on `quad`'s corners, into a tile whose top-left frame pixel
    /// is (`originX`, `originY`). Pixels outside the quad are left untouched (transparent).
    static func draw(_ image: OverlayImage, onto quad: Quad, pixels: UnsafeMutableRawPointer, rowBytes: Int,
                     originX: Int, originY: Int, width: Int, height: Int) {
        let w = Double(image.width), h = Double(image.height)
        let source = Quad(Rect(x: 0, y: 0, width: w, height: h))
        guard let forward = Homography(from: source, to: quad), let inverse = forward.inverse else { return }
        let m = inverse.matrix
        let (src, srcStride) = image.pixels
        let srcRow = srcStride / 4
        let maxX = image.width - 1, maxY = image.height - 1
        for ty in 0..<height {
            let fy = Double(originY + ty) + 0.5
            let row = (pixels + ty * rowBytes).assumingMemoryBound(to: UInt32.self)
            for tx in 0..<width {
                let fx = Double(originX + tx) + 0.5
                let z = m[6] * fx + m[7] * fy + m[8]
                guard z > 1e-12 || z < -1e-12 else { continue }
                let u = (m[0] * fx + m[1] * fy + m[2]) / z - 0.5
                let v = (m[3] * fx + m[4] * fy + m[5]) / z - 0.5
                guard u > -1, v > -1, u < w, v < h else { continue }
                let x0 = Int(u.rounded(.down)), y0 = Int(v.rounded(.down))
                let ax = u - Double(x0), ay = v - Double(y0)
                func at(_ x: Int, _ y: Int) -> UInt32 {
                    // Outside the image: transparent, so edges fade over one pixel.
                    x < 0 || y < 0 || x > maxX || y > maxY ? 0 : src[y * srcRow + x]
                }
                let p00 = at(x0, y0), p10 = at(x0 + 1, y0), p01 = at(x0, y0 + 1), p11 = at(x0 + 1, y0 + 1)
                var out: UInt32 = 0
                for shift in stride(from: 0 as UInt32, through: 24, by: 8) {
                    let c00 = Double((p00 >> shift) & 0xff), c10 = Double((p10 >> shift) & 0xff)
                    let c01 = Double((p01 >> shift) & 0xff), c11 = Double((p11 >> shift) & 0xff)
                    let top = c00 + (c10 - c00) * ax, bottom = c01 + (c11 - c01) * ax
                    out |= UInt32(min(255, max(0, (top + (bottom - top) * ay).rounded()))) << shift
                }
                row[tx] = out
            }
        }
    }
}
