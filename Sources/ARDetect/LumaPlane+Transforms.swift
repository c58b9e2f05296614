import ARCore

extension LumaPlane {
    /// Fills this buffer (resized to `width × height`) by sampling `source` at `map(p)` for each
    /// destination pixel centre `p`: bilinear, with a box prefilter when `map` shrinks the image.
    /// Points outside `source` take the nearest border pixel.
    mutating func resample(_ source: LumaImage, map: AffineMap, width: Int, height: Int) {
        resize(width: width, height: height)
        if map.a == 1, map.b == 0, map.c == 0, map.d == 1, map.tx == map.tx.rounded(), map.ty == map.ty.rounded() {
            let x0 = Int(map.tx), y0 = Int(map.ty)
            if x0 >= 0, y0 >= 0, x0 + width <= source.width, y0 + height <= source.height {
                copy(source, x: x0, y: y0, width: width, height: height)
                return
            }
        }
        if map.b == 0, map.c == 0, map.a > 0, map.d > 0 {
            resampleAxisAligned(source, map: map, width: width, height: height)
            return
        }
        let affine = Homography(matrix: [map.a, map.b, map.tx, map.c, map.d, map.ty, 0, 0, 1])!
        resample(source, map: affine, width: width, height: height, taps: max(1, Int(map.scale.rounded(.up))))
    }

    /// `resample` for a map without rotation: bilinear with `round(scale)`² taps per pixel (a mild
    /// shrink needs no box filter), each column's and row's taps computed once, 8-bit fixed-point
    /// weights. Separable: each source row's sums across (its columns' taps) are made once and
    /// kept while the rows below use them, then weighted down the column; the same integer sums as
    /// taking the four pixels of each tap in turn.
    private mutating func resampleAxisAligned(_ source: LumaImage, map: AffineMap, width: Int, height: Int) {
        let taps = max(1, Int(map.scale.rounded()))
        struct Tap { var i0: Int32; var i1: Int32; var w: Int32 }
        // Pixel-centre coordinates, clamped as `LumaImage.sample` does; weight of `i1` in 1/256.
        func axis(_ n: Int, scale: Double, offset: Double, limit: Int) -> [Tap] {
            var out: [Tap] = []
            out.reserveCapacity(n * taps)
            for k in 0..<n {
                for t in 0..<taps {
                    let p = scale * (Double(k) + (Double(t) + 0.5) / Double(taps)) + offset
                    let f = min(max(p - 0.5, 0), Double(limit - 1))
                    let i0 = Int(f)
                    out.append(Tap(i0: Int32(i0), i1: Int32(min(i0 + 1, limit - 1)), w: Int32(((f - Double(i0)) * 256).rounded())))
                }
            }
            return out
        }
        let xs = axis(width, scale: map.a, offset: map.tx, limit: source.width)
        let ys = axis(height, scale: map.d, offset: map.ty, limit: source.height)
        let n = Int32(taps * taps), half = n * 65536 / 2
        let base = source.base, stride = source.stride
        // An output row's taps reach at most taps + 2 source rows: kept in a ring of slots, row r in r % slots.
        let slots = 2 * taps + 2
        var across = [Int32](repeating: 0, count: slots * width), held = [Int](repeating: -1, count: slots)
        var sums = [Int32](repeating: 0, count: width)
        pixels.withUnsafeMutableBufferPointer { dst in
            across.withUnsafeMutableBufferPointer { across in
                sums.withUnsafeMutableBufferPointer { sums in
                    /// Source row `r`'s sums across, one per output column.
                    func row(_ r: Int) -> UnsafeMutablePointer<Int32> {
                        let slot = r % slots, out = across.baseAddress! + slot * width
                        guard held[slot] != r else { return out }
                        held[slot] = r
                        let p = base + r * stride
                        for x in 0..<width {
                            var s: Int32 = 0
                            for i in 0..<taps {
                                let tx = xs[x * taps + i]
                                s += Int32(p.load(fromByteOffset: Int(tx.i0), as: UInt8.self)) * (256 - tx.w)
                                    + Int32(p.load(fromByteOffset: Int(tx.i1), as: UInt8.self)) * tx.w
                            }
                            out[x] = s
                        }
                        return out
                    }
                    for y in 0..<height {
                        for x in 0..<width { sums[x] = 0 }
                        for j in 0..<taps {
                            let ty = ys[y * taps + j]
                            let top = row(Int(ty.i0)), bottom = row(Int(ty.i1))
                            for x in 0..<width { sums[x] += top[x] * (256 - ty.w) + bottom[x] * ty.w }
                        }
                        for x in 0..<width { dst[y * width + x] = UInt8(min(255, (sums[x] + half) / (n * 65536))) }
                    }
                }
            }
        }
    }

    /// Fills this buffer (resized to `width × height`) by sampling `source` at `map(p)` for each
    /// destination pixel centre `p`: bilinear, with `taps`² samples per pixel (a box prefilter when
    /// `map` shrinks the image). Points outside `source` take the nearest border pixel. A `map` that
    /// sends part of the image past the horizon (a projective divisor not positive at a corner)
    /// samples nothing: the buffer is left white.
    mutating func resample(_ source: LumaImage, map: Homography, width: Int, height: Int, taps: Int) {
        resize(width: width, height: height)
        let m = map.matrix, step = 1.0 / Double(taps), weight = 1.0 / Double(taps * taps)
        let corners = [Point(x: 0, y: 0), Point(x: Double(width), y: 0), Point(x: 0, y: Double(height)),
                       Point(x: Double(width), y: Double(height))]
        // The divisor is affine in the point: positive at the four corners, positive everywhere.
        guard corners.allSatisfy({ m[6] * $0.x + m[7] * $0.y + m[8] > 1e-9 }), m.allSatisfy(\.isFinite) else {
            pixels.withUnsafeMutableBufferPointer { $0.update(repeating: 255) }
            return
        }
        // A homography keeps lines straight: the image's corners inside the source put every point
        // inside, where sampling needs no clamping.
        let inside = corners.map(map.apply).allSatisfy { $0.x >= 1 && $0.y >= 1 && $0.x < Double(source.width) - 2 && $0.y < Double(source.height) - 2 }
        let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        pixels.withUnsafeMutableBufferPointer { dst in
            for y in 0..<height {
                var x = 0
                // Inside, four pixels at a time: the same operations lane by lane, so the same values.
                while inside, x + 4 <= width {
                    let xs = SIMD4<Double>.counting(from: x)
                    var sum = SIMD4<Double>(repeating: 0)
                    for j in 0..<taps {
                        let py = Double(y) + (Double(j) + 0.5) * step
                        for i in 0..<taps {
                            let px = xs + (Double(i) + 0.5) * step
                            let w = 1 / (m6 * px + m7 * py + m8)
                            let sx = (m0 * px + m1 * py + m2) * w, sy = (m3 * px + m4 * py + m5) * w
                            sum += source.sampleInside(sx, sy)
                        }
                    }
                    let v = sum * weight + 0.5
                    for k in 0..<4 { dst[y * width + x + k] = UInt8(min(255, max(0, v[k]))) }
                    x += 4
                }
                while x < width {
                    var sum = 0.0
                    for j in 0..<taps {
                        let py = Double(y) + (Double(j) + 0.5) * step
                        for i in 0..<taps {
                            let px = Double(x) + (Double(i) + 0.5) * step
                            let w = 1 / (m6 * px + m7 * py + m8)
                            let sx = (m0 * px + m1 * py + m2) * w, sy = (m3 * px + m4 * py + m5) * w
                            sum += inside ? source.sampleInside(sx, sy) : source.sample(sx, sy)
                        }
                    }
                    dst[y * width + x] = UInt8(min(255, max(0, sum * weight + 0.5)))
                    x += 1
                }
            }
        }
    }

    /// Copies the `width × height` pixels of `source` at (x, y), which must lie inside it.
    mutating func copy(_ source: LumaImage, x: Int, y: Int, width: Int, height: Int) {
        resize(width: width, height: height)
        pixels.withUnsafeMutableBytes { dst in
            for row in 0..<height {
                (dst.baseAddress! + row * width).copyMemory(from: source.base + (y + row) * source.stride + x, byteCount: width)
            }
        }
    }

    /// Light ↔ dark (`255 − v`): turns a light-on-dark code into the dark-on-light one zbar reads.
    mutating func invert() {
        for i in pixels.indices { pixels[i] = 255 &- pixels[i] }
    }

    /// Which edges of a pass image lie on a code's quiet zone.
    enum QuietSides {
        /// The first and last columns: a 1D strip, its bars running down the rows.
        case ends
        /// All four sides: a 2D region with a margin around it.
        case all
    }

    /// Whether the image's margin (the outer `fraction` of its width at each end; with `.all`, of
    /// its height at the top and bottom too; at least one pixel) is darker on average than the
    /// rest: a light-on-dark code's quiet zone. A dark-on-light code's is lighter than its modules.
    func marginIsDarker(_ sides: QuietSides, fraction: Double) -> Bool {
        let mx = max(1, Int(Double(width) * fraction)), my = sides == .all ? max(1, Int(Double(height) * fraction)) : 0
        guard width > 2 * mx, height > 2 * my else { return false }
        var margin = 0, inner = 0
        pixels.withUnsafeBufferPointer { px in
            for y in 0..<height {
                let row = y * width
                if y < my || y >= height - my {
                    for x in 0..<width { margin += Int(px[row + x]) }
                    continue
                }
                for x in 0..<mx { margin += Int(px[row + x]) + Int(px[row + width - 1 - x]) }
                for x in mx..<(width - mx) { inner += Int(px[row + x]) }
            }
        }
        let marginCount = width * height - (width - 2 * mx) * (height - 2 * my)
        return margin * (width - 2 * mx) * (height - 2 * my) < inner * marginCount
    }

    /// Stretches grey levels linearly so the 1st and 99th percentiles map to 0 and 255, when they
    /// span less than `maxSpan` levels (a low-contrast image). Returns whether it changed the image.
    @discardableResult
    mutating func stretchContrast(maxSpan: Int = 160) -> Bool {
        var histogram = [Int](repeating: 0, count: 256)
        for v in pixels { histogram[Int(v)] += 1 }
        let cut = max(1, pixels.count / 100)
        var lo = 0, hi = 255, acc = 0
        while lo < 255, acc + histogram[lo] < cut { acc += histogram[lo]; lo += 1 }
        acc = 0
        while hi > 0, acc + histogram[hi] < cut { acc += histogram[hi]; hi -= 1 }
        guard hi - lo >= 8, hi - lo < maxSpan else { return false }
        var table = [UInt8](repeating: 0, count: 256)
        for v in 0..<256 { table[v] = UInt8(min(255, max(0, (v - lo) * 255 / (hi - lo)))) }
        for i in pixels.indices { pixels[i] = table[Int(pixels[i])] }
        return true
    }
}
