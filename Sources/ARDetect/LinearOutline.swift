import ARCore
import CZBar
import Foundation

/// Fits the outline of a 1D code: a tight rotated rectangle from the first bar's leading edge to
/// the last bar's trailing edge, as tall as the bars.
///
/// zbar reports only the scan-line points where a decode ended (an end or the middle guard), and
/// on a rotated code only the lines that crossed it whole. So the fit reads the image:
/// 1. the bars' direction from the structure tensor of the gradients around the points;
/// 2. along the code's axis through the points, the edges of an averaged profile, extended from
///    the decoded span edge by edge until a gap wider than any element (the quiet zone), to no
///    more bars than the symbology has where it fixes their count (`walkOut`);
/// 3. across the axis, line by line while the profile still matches the centre's (the bars' ends).
enum LinearOutline {
    /// The outline in `luma`'s pixels, clockwise from the code's own top-left (the start of the
    /// reading direction, on the side that is up when the code reads left to right); nil when the
    /// points are empty.
    static func fit(points: [Point], orientation: zbar_orientation_t, barEdges: Int? = nil, in luma: LumaImage) -> Quad? {
        let reading: Point
        switch orientation {
        case ZBAR_ORIENT_RIGHT: reading = Point(x: 0, y: 1)
        case ZBAR_ORIENT_DOWN: reading = Point(x: -1, y: 0)
        case ZBAR_ORIENT_LEFT: reading = Point(x: 0, y: -1)
        default: reading = Point(x: 1, y: 0)
        }
        return fit(points: points, reading: reading, barEdges: barEdges, in: luma)
    }

    /// The same fit for points read in the direction `reading` (a unit vector in `luma`'s pixels).
    /// `axisKnown`: `reading` is already across the bars (measured over the whole code, e.g. a
    /// located region's axis), so the gradients near the points, which an overlapping edge can
    /// turn, are not asked. `barEdges`: the bar edges the code has (`layout(symbology:payloadLength:)`),
    /// which bound the walk out to its ends (`walkOut`); nil where the symbology does not fix them.
    static func fit(points: [Point], reading: Point, axisKnown: Bool = false, barEdges: Int? = nil, in luma: LumaImage) -> Quad? {
        guard !points.isEmpty else { return nil }
        var u = axisKnown ? reading : barAxis(around: points, in: luma) ?? reading
        let mean = points.reduce(Point(x: 0, y: 0), +) * (1 / Double(points.count))
        u = refineAxis(u, centre: mean, span: points.map { dot($0 - mean, u) }, in: luma)
        if dot(u, reading) < 0 { u = u * -1 }
        let d = Point(x: -u.y, y: u.x)  // "down" in the code's own frame

        // Centre the reference line in the decoded band.
        let ts = points.map { dot($0 - mean, u) }, ss = points.map { dot($0 - mean, d) }
        let (tMin, tMax) = (ts.min()!, ts.max()!), (sMin, sMax) = (ss.min()!, ss.max()!)
        let c = mean + d * ((sMin + sMax) / 2)
        let band = (sMax - sMin) / 2

        guard let (tStart, tEnd) = barSpan(centre: c, u: u, d: d, tMin: tMin, tMax: tMax, band: band, maxEdges: barEdges, in: luma),
              tEnd - tStart >= 2 else {
            return fallback(points: points, u: u, d: d)
        }
        let up = barEnd(centre: c, u: u, across: d * -1, tStart: tStart, tEnd: tEnd, in: luma)
        let down = barEnd(centre: c, u: u, across: d, tStart: tStart, tEnd: tEnd, in: luma)
        let start = c + u * tStart, end = c + u * tEnd
        return Quad(topLeft: start - d * up, topRight: end - d * up, bottomRight: end + d * down, bottomLeft: start + d * down)
    }

    /// Whether the points of one 1D reading straddle a quiet zone, i.e. come from two codes: zbar can
    /// join a half of one EAN/UPC code to a half of another met on a nearby scan line into a reading
    /// neither holds (its check digit passes one time in ten). Every point of a real reading lies on
    /// its code, so the segment between the two points farthest apart along the scan crosses bars
    /// only: a gap between edges there wider than six median gaps (a code's widest element is under
    /// three) and 10 px means two codes.
    static func spansQuietZone(points: [Point], orientation: zbar_orientation_t, in luma: LumaImage) -> Bool {
        let alongRows = orientation != ZBAR_ORIENT_RIGHT && orientation != ZBAR_ORIENT_LEFT
        func t(_ p: Point) -> Double { alongRows ? p.x : p.y }
        guard let a = points.min(by: { t($0) < t($1) }), let b = points.max(by: { t($0) < t($1) }) else { return false }
        guard t(b) - t(a) >= 24, let edges = edges(from: a, to: b, in: luma), edges.count >= 8 else { return false }
        var gaps: [Double] = []
        for i in 1..<edges.count { gaps.append(edges[i] - edges[i - 1]) }
        let median = gaps.sorted()[gaps.count / 2]
        return gaps.max()! > max(10, 6 * median)
    }

    /// Distances from `a` of the edges on the segment `a`–`b` (px): local maxima of the grey
    /// level's slope (sampled every `step` px) of at least 0.3 of its 90th percentile; nil when the
    /// segment is too short or too flat to tell (that percentile under 4 grey levels).
    static func edges(from a: Point, to b: Point, in luma: LumaImage) -> [Double]? {
        let length = a.distance(to: b)
        let n = Int(length / step) + 1
        guard n >= 3 else { return nil }
        let dir = (b - a) * (1 / length)
        var profile = [Double](repeating: 0, count: n)
        for i in 0..<n {
            let p = a + dir * (Double(i) * step)
            profile[i] = luma.sample(p.x, p.y)
        }
        var deriv = [Double](repeating: 0, count: n)
        for i in 1..<(n - 1) { deriv[i] = abs(profile[i + 1] - profile[i - 1]) }
        let strong = deriv.sorted()[n * 9 / 10]
        guard strong > 4 else { return nil }
        var edges: [Double] = []
        for i in 1..<(n - 1) where deriv[i] >= strong * 0.3 && deriv[i] >= deriv[i - 1] && deriv[i] > deriv[i + 1] {
            edges.append(Double(i) * step)
        }
        return edges
    }

    /// Bar edges a UPC-E code has: start guard 2 bars, six digits of 2, end guard 3.
    static let upcEEdges = 34

    /// What a 1D symbology fixes of a code from its first bar to its last.
    struct Layout: Equatable {
        /// Bar edges, two per bar; nil where the payload's length does not fix them.
        var barEdges: Int?
        /// Modules (narrowest bar widths).
        var modules: Int
    }

    /// The layout of a 1D code of `symbology` (zbar's name, e.g. `EAN-13`) whose payload has
    /// `payloadLength` characters; nil where the symbology does not fix it. The one table of these
    /// facts: outline fits bound their walks by the edges, `ScannedSymbol.isWhole` asks for the
    /// quiet zones of the modules.
    static func layout(symbology: String, payloadLength: Int) -> Layout? {
        switch symbology {
        // Guards of 2 bars (3, 5 and 3 modules) at each end and in the middle, 2 bars (7 modules) per digit.
        case "EAN-13", "UPC-A", "ISBN-13", "ISBN-10": Layout(barEdges: 60, modules: 95)
        case "EAN-8": Layout(barEdges: 44, modules: 67)
        // Start guard 3 modules, six digits of 7, end guard 6.
        case "UPC-E": Layout(barEdges: upcEEdges, modules: 51)
        // Start and stop of 2 bars each (4 and 5 modules), 5 bars per digit pair (the spaces carry the
        // pair's other digit), each pair 18 modules with wide elements of 3.
        case "I2/5": Layout(barEdges: payloadLength > 0 && payloadLength % 2 == 0 ? 5 * payloadLength + 8 : nil,
                            modules: 9 * payloadLength + 9)
        default: nil
        }
    }

    /// How many times the edges its symbology fixes a walk out to a code's ends (`walkOut`) may
    /// hold and be kept whole. Blur ripples, noise and print texture add edges: of 1342 EAN-13
    /// walks on camera seed 3, 946 found the code's 60, 189 found 61–75, 5 more and 202 fewer
    /// (blur joins edges). Bounded at 60 in a first try, walks of 61–75 lost bars at an end: the
    /// corner errors' 95th percentile went from 0.2 to 0.3–7.3 % of a code's side on nine camera
    /// clips. A code run on into another's bars adds far more (84–147 on camera seed 43).
    static let edgeSlack = 1.25

    /// The span `first...last` of `edges` (positions along a line that runs over `line`, ascending)
    /// walked out edge by edge on both sides while the gap to the next edge is at most `limit` (the
    /// quiet zone stops it). A code's bars can run on with no wider gap into a label or card laid
    /// against its end. So where the walk holds more than `edgeSlack` times `maxEdges` edges, the
    /// code is the span of `maxEdges` edges that holds the starting span and whose gaps to what
    /// lies outside it are widest (the smaller of the two; past the last edge, the rest of the
    /// line): its ends, where the other bars begin. No bound when `maxEdges` is nil or the
    /// starting span holds more.
    static func walkOut(_ edges: [Double], first: Int, last: Int, limit: Double, maxEdges: Int?,
                        line: ClosedRange<Double>) -> (first: Int, last: Int) {
        var lo = first, hi = last
        while lo > 0, edges[lo] - edges[lo - 1] <= limit { lo -= 1 }
        while hi < edges.count - 1, edges[hi + 1] - edges[hi] <= limit { hi += 1 }
        guard let bound = maxEdges, bound >= last - first + 1, Double(hi - lo + 1) > edgeSlack * Double(bound) else { return (lo, hi) }
        func before(_ i: Int) -> Double { i > 0 ? edges[i] - edges[i - 1] : edges[0] - line.lowerBound }
        func after(_ i: Int) -> Double { i < edges.count - 1 ? edges[i + 1] - edges[i] : line.upperBound - edges[i] }
        var best = (start: lo, score: -Double.infinity)
        for start in max(lo, last - bound + 1)...min(first, hi - bound + 1) {
            let score = min(before(start), after(start + bound - 1))
            if score > best.score { best = (start, score) }
        }
        return (best.start, best.start + bound - 1)
    }

    /// Whether the UPC-E reading outlined by `quad` (in `luma`'s pixels) holds as few bars as a
    /// UPC-E code: on the fewest of three lines across it at most 1.4 times `upcEEdges` edges. zbar
    /// reads a UPC-E shape out of a scratched UPC-A code (95 modules, 60 edges), and the outline
    /// fitted to the reading then spans that code's bars.
    static func hasUPCEBars(_ quad: Quad, in luma: LumaImage) -> Bool {
        let counts = [0.3, 0.5, 0.7].compactMap { f -> Int? in
            let a = quad.topLeft + (quad.bottomLeft - quad.topLeft) * f, b = quad.topRight + (quad.bottomRight - quad.topRight) * f
            return edges(from: a, to: b, in: luma)?.count
        }
        guard let fewest = counts.min() else { return true }
        return Double(fewest) <= 1.4 * Double(upcEEdges)
    }

    /// Whether the 1D code of `modules` modules outlined by `quad` (in `luma`'s pixels, its top edge
    /// from the first bar to the last) has a quiet zone at both ends. For codes that a cut can
    /// shorten into another valid reading: ITF has no check character and no fixed length (a code
    /// cut short by a label or a photo laid over its end reads as a shorter one), and a UPC-E shape
    /// is the left half of an EAN-13 and its middle guard. The cut leaves no quiet zone where such
    /// a code would end. Beyond each end, from `quietFrom` to `quietTo` modules out (the module the
    /// length gives), on three lines across the bars, the grey level may vary by at most
    /// `quietVariation` of the bars' contrast; a zone reaching out of the frame is not quiet, nor
    /// is one beyond an outline too short for its modules.
    static func hasQuietZones(_ quad: Quad, modules: Int, in luma: LumaImage) -> Bool {
        let along = (quad.topRight - quad.topLeft + quad.bottomRight - quad.bottomLeft) * 0.5
        let length = (along.x * along.x + along.y * along.y).squareRoot()
        guard length > 0, modules > 0 else { return false }
        let u = along * (1 / length)
        let module = length / Double(modules)
        // An outline too short for its modules (a fit that did not follow the bars) shows no zone.
        guard module >= minQuietModule else { return false }
        // The bars' contrast on the middle line.
        let left = quad.topLeft + (quad.bottomLeft - quad.topLeft) * 0.5, right = quad.topRight + (quad.bottomRight - quad.topRight) * 0.5
        let inside = stride(from: 0.0, through: 1.0, by: 1 / max(8, length)).map { f -> Double in
            let p = left + (right - left) * f
            return luma.sample(p.x, p.y)
        }.sorted()
        let contrast = inside[inside.count * 19 / 20] - inside[inside.count / 20]
        guard contrast > 0 else { return false }
        for (start, end, direction) in [(quad.topLeft, quad.bottomLeft, u * -1), (quad.topRight, quad.bottomRight, u)] {
            for f in [0.25, 0.5, 0.75] {
                let edge = start + (end - start) * f
                var lo = Double.infinity, hi = -Double.infinity
                for t in stride(from: quietFrom * module, through: quietTo * module, by: 0.5) {
                    let p = edge + direction * t
                    guard luma.holdsInside(p.x, p.y) else { return false }
                    let v = luma.sampleInside(p.x, p.y)
                    lo = min(lo, v); hi = max(hi, v)
                }
                if hi - lo > quietVariation * contrast { return false }
            }
        }
        return true
    }

    /// Where a quiet zone is checked, modules beyond the outline (past the blur of the last bar; the
    /// ITF specification asks for 10, zxing-cpp for 6 of the module it measures).
    static let quietFrom = 2.0, quietTo = 5.0
    /// Narrowest module, pixels, for which an outline's quiet zones are looked for.
    static let minQuietModule = 0.75
    /// How much the grey level may vary in a quiet zone, as a fraction of the bars' contrast.
    static let quietVariation = 0.4

    /// Minimum-area rectangle of the points, ordered by the reading axis `u`.
    private static func fallback(points: [Point], u: Point, d: Point) -> Quad? {
        let mean = points.reduce(Point(x: 0, y: 0), +) * (1 / Double(points.count))
        let ts = points.map { dot($0 - mean, u) }, ss = points.map { dot($0 - mean, d) }
        let t0 = ts.min()!, t1 = ts.max()!, s0 = ss.min()!, s1 = ss.max()!
        func p(_ t: Double, _ s: Double) -> Point { mean + u * t + d * s }
        return Quad(topLeft: p(t0, s0), topRight: p(t1, s0), bottomRight: p(t1, s1), bottomLeft: p(t0, s1))
    }

    /// Unit vector across the bars (the dominant gradient direction) near `points`; nil when the
    /// gradients have no clear direction.
    static func barAxis(around points: [Point], in luma: LumaImage) -> Point? {
        guard let box = Rect(enclosing: points) else { return nil }
        let x0 = max(1, Int(box.minX) - 6), x1 = min(luma.width - 2, Int(box.maxX) + 6)
        let y0 = max(1, Int(box.minY) - 6), y1 = min(luma.height - 2, Int(box.maxY) + 6)
        guard x0 < x1, y0 < y1 else { return nil }
        let step = max(1, Int((Double((x1 - x0) * (y1 - y0)) / 40_000).squareRoot()))
        var jxx = 0.0, jyy = 0.0, jxy = 0.0
        var y = y0
        while y <= y1 {
            var x = x0
            while x <= x1 {
                let gx = Double(luma.pixel(x + 1, y)) - Double(luma.pixel(x - 1, y))
                let gy = Double(luma.pixel(x, y + 1)) - Double(luma.pixel(x, y - 1))
                jxx += gx * gx; jyy += gy * gy; jxy += gx * gy
                x += step
            }
            y += step
        }
        let trace = jxx + jyy
        guard trace > 0 else { return nil }
        let coherence = ((jxx - jyy) * (jxx - jyy) + 4 * jxy * jxy).squareRoot() / trace
        guard coherence > 0.3 else { return nil }
        let theta = 0.5 * atan2(2 * jxy, jxx - jyy)
        return Point(x: cos(theta), y: sin(theta))
    }

    /// `u` corrected from how far the bars shift between two lines on either side of `centre`:
    /// the gradient direction alone is biased on thin, rotated bars.
    static func refineAxis(_ axis: Point, centre c: Point, span: [Double], in luma: LumaImage) -> Point {
        guard let tMin = span.min(), let tMax = span.max(), tMax - tMin >= 8 else { return axis }
        var u = axis
        let n = Int((tMax - tMin) / step) + 1
        for k in [3.0, 6, 12, 24] {
            let d = Point(x: -u.y, y: u.x)
            func line(_ s: Double, pad: Int) -> [Double] {
                let dx = d.x * s, dy = d.y * s
                func x(_ i: Int) -> Double { c.x + u.x * (tMin + Double(i) * step) + dx }
                func y(_ i: Int) -> Double { c.y + u.y * (tMin + Double(i) * step) + dy }
                // A line well inside the frame needs no clamping (same values, fewer instructions).
                if luma.holdsInside(x(-pad), y(-pad)), luma.holdsInside(x(n + pad - 1), y(n + pad - 1)) {
                    var out = [Double](repeating: 0, count: n + 2 * pad)
                    out.withUnsafeMutableBufferPointer {
                        luma.addLineInside(x: x(-pad), y: y(-pad), dx: u.x * step, dy: u.y * step, count: n + 2 * pad, into: $0.baseAddress!)
                    }
                    return out
                }
                return (-pad..<(n + pad)).map { luma.sample(x($0), y($0)) }
            }
            let maxShift = Int(2 * k * 0.36 / step) + 1  // up to 20° off
            let a = line(-k, pad: 0), b = line(k, pad: maxShift)
            let aMean = a.reduce(0, +) / Double(n)
            let a0 = a.map { $0 - aMean }
            let aNorm = a0.reduce(0) { $0 + $1 * $1 }
            guard aNorm > 0 else { break }
            let scores = normalisedCorrelations(a0, aNorm: aNorm, in: b, shifts: 2 * maxShift + 1)
            let best = scores.indices.max { scores[$0] < scores[$1] }!
            guard scores[best] >= 0.6 else { break }
            var offset = 0.0
            if best > 0, best < scores.count - 1 {
                let l = scores[best - 1], m = scores[best], r = scores[best + 1]
                let denom = l - 2 * m + r
                if denom != 0 { offset = 0.5 * (l - r) / denom }
            }
            let delta = (Double(best - maxShift) + offset) * step
            // A bar at t on line −k is at t + delta on line +k: the bars run along 2k·d + delta·u.
            u = (u * (2 * k) - d * delta).normalised
        }
        return u
    }

    /// Sample step along the axis, pixels.
    private static let step = 0.5

    /// The normalised correlation of `a0` (zero mean, `aNorm` = Σ a0²) with each window of
    /// `a0.count` samples of `b` starting at 0 … `shifts` − 1; −1 where a window is flat. A
    /// window's mean and spread come from running sums, so each shift costs one pass.
    static func normalisedCorrelations(_ a0: [Double], aNorm: Double, in b: [Double], shifts: Int) -> [Double] {
        let n = a0.count
        guard n > 0 else { return [Double](repeating: -1, count: shifts) }
        // sum[i], square[i]: Σ b, Σ b² over b[0..<i].
        var sum = [Double](repeating: 0, count: b.count + 1), square = sum
        for i in b.indices {
            sum[i + 1] = sum[i] + b[i]
            square[i + 1] = square[i] + b[i] * b[i]
        }
        return a0.withUnsafeBufferPointer { a0 in
            b.withUnsafeBufferPointer { b in
                (0..<shifts).map { start -> Double in
                    // Σ a0 = 0: the covariance needs no window mean. Four lanes at a time.
                    let pa = UnsafeRawPointer(a0.baseAddress!), pb = UnsafeRawPointer(b.baseAddress! + start)
                    var lanes = SIMD4<Double>()
                    var i = 0
                    while i + 4 <= n {
                        lanes += pa.loadUnaligned(fromByteOffset: 8 * i, as: SIMD4<Double>.self)
                            * pb.loadUnaligned(fromByteOffset: 8 * i, as: SIMD4<Double>.self)
                        i += 4
                    }
                    var cov = lanes.sum()
                    while i < n { cov += a0[i] * b[start + i]; i += 1 }
                    let s = sum[start + n] - sum[start]
                    let bNorm = square[start + n] - square[start] - s * s / Double(n)
                    return bNorm > 1e-9 * Double(n) ? cov / (aNorm * bNorm).squareRoot() : -1
                }
            }
        }
    }

    /// The edges of a line's `profile` (grey levels sampled every `step` px from `origin`): the
    /// local maxima of its derivative's magnitude (central differences where both neighbours are
    /// `valid`) of at least 30 % of that magnitude's 90th percentile over samples `strongIn`,
    /// placed between samples by a parabola; positions along the line. Nil when the percentile is
    /// not above `minStrong` (no bars there). One rule for the detector's fit and the tracker's.
    static func profileEdges(_ profile: [Double], valid: [Bool], origin: Double, step: Double,
                             strongIn: ClosedRange<Int>, minStrong: Double) -> [Double]? {
        let n = profile.count
        guard n >= 3 else { return nil }
        var derivative = [Double](repeating: 0, count: n)
        for i in 1..<(n - 1) where valid[i - 1] && valid[i + 1] { derivative[i] = profile[i + 1] - profile[i - 1] }
        let magnitudes = derivative[strongIn].map(abs).sorted()
        let strong = magnitudes[min(magnitudes.count - 1, magnitudes.count * 9 / 10)]
        guard strong > minStrong else { return nil }
        let threshold = strong * 0.3
        var edges: [Double] = []
        for i in 1..<(n - 1) {
            let a = abs(derivative[i])
            guard a >= threshold, a >= abs(derivative[i - 1]), a > abs(derivative[i + 1]) else { continue }
            let l = abs(derivative[i - 1]), r = abs(derivative[i + 1])
            let denom = l - 2 * a + r
            let offset = denom != 0 ? 0.5 * (l - r) / denom : 0
            edges.append(origin + (Double(i) + offset) * step)
        }
        return edges
    }

    /// Start and end of the bars along `u` (offsets from `centre`), from edges of the profile
    /// averaged over the decoded band.
    private static func barSpan(centre c: Point, u: Point, d: Point, tMin: Double, tMax: Double, band: Double,
                                maxEdges: Int?, in luma: LumaImage) -> (Double, Double)? {
        let reach = max(tMax - tMin, 40) * 1.5
        let lo = tMin - reach, hi = tMax + reach
        let n = Int((hi - lo) / step) + 1
        let lines = band >= 4 ? [-2.0, -1, 0, 1, 2] : [0.0]
        var profile = [Double](repeating: 0, count: n)
        var inside = [Bool](repeating: true, count: n)
        // Lines well inside the frame need no clamping (same values, fewer instructions).
        let ends = lines.flatMap { s in [c + u * lo + d * s, c + u * (lo + Double(n - 1) * step) + d * s] }
        let whole = ends.allSatisfy { luma.holdsInside($0.x, $0.y) }
        var done = 0
        // Inside, four points at a time, each as `c + u * t + d * s` computes it.
        while whole, done + 4 <= n {
            let t = lo + SIMD4<Double>.counting(from: done) * step
            var sum = SIMD4<Double>(repeating: 0)
            for s in lines { sum += luma.sampleInside(c.x + u.x * t + d.x * s, c.y + u.y * t + d.y * s) }
            let mean = sum / Double(lines.count)
            for k in 0..<4 { profile[done + k] = mean[k] }
            done += 4
        }
        for i in done..<n {
            let t = lo + Double(i) * step
            var sum = 0.0
            for s in lines {
                let p = c + u * t + d * s
                if whole {
                    sum += luma.sampleInside(p.x, p.y)
                    continue
                }
                if p.x < 0 || p.y < 0 || p.x > Double(luma.width) || p.y > Double(luma.height) { inside[i] = false }
                sum += luma.sample(p.x, p.y)
            }
            profile[i] = sum / Double(lines.count)
        }
        // Edges measured against the decoded span's (the whole line's when it is empty).
        let iMin = max(1, Int((tMin - lo) / step)), iMax = min(n - 2, Int((tMax - lo) / step))
        guard let edges = profileEdges(profile, valid: inside, origin: lo, step: step,
                                       strongIn: iMin <= iMax ? iMin...iMax : 0...(n - 1), minStrong: 4),
              edges.count >= 2 else { return nil }
        // Elements inside the decoded span tell the widest gap a code can have.
        let innerEdges = edges.filter { $0 >= tMin - 1 && $0 <= tMax + 1 }
        var gaps: [Double] = []
        for i in 1..<max(1, innerEdges.count) { gaps.append(innerEdges[i] - innerEdges[i - 1]) }
        gaps.sort()
        let widest = gaps.last ?? 4, median = gaps.isEmpty ? 2 : gaps[gaps.count / 2]
        let limit = max(3, 1.5 * max(widest, 2 * median))
        // Walk out from the decoded span.
        var first = edges.firstIndex { $0 >= tMin - 1 } ?? 0
        var last = edges.lastIndex { $0 <= tMax + 1 } ?? edges.count - 1
        if first > last { swap(&first, &last) }
        (first, last) = walkOut(edges, first: first, last: last, limit: limit, maxEdges: maxEdges, line: lo...(lo + Double(n - 1) * step))
        return (edges[first], edges[last])
    }

    /// How far the bars reach from the centre line in direction `across`, pixels: the offset where
    /// the profile's match with the centre's falls to half.
    private static func barEnd(centre c: Point, u: Point, across: Point, tStart: Double, tEnd: Double,
                               in luma: LumaImage) -> Double {
        let n = max(2, Int(tEnd - tStart) + 1)
        let dt = (tEnd - tStart) / Double(n - 1)
        func line(_ s: Double) -> [Double]? {
            var out = [Double](repeating: 0, count: n)
            let start = c + u * tStart + across * s, end = c + u * (tStart + Double(n - 1) * dt) + across * s
            // A line well inside the frame needs no clamping (same values, fewer instructions).
            if luma.holdsInside(start.x, start.y), luma.holdsInside(end.x, end.y) {
                // Four points at a time, each as `c + u * t + across * s` computes it.
                let ox = across.x * s, oy = across.y * s
                var i = 0
                while i + 4 <= n {
                    let t = tStart + SIMD4<Double>.counting(from: i) * dt
                    let v = luma.sampleInside(c.x + u.x * t + ox, c.y + u.y * t + oy)
                    for k in 0..<4 { out[i + k] = v[k] }
                    i += 4
                }
                while i < n {
                    let p = c + u * (tStart + Double(i) * dt) + across * s
                    out[i] = luma.sampleInside(p.x, p.y)
                    i += 1
                }
                return out
            }
            for i in 0..<n {
                let p = c + u * (tStart + Double(i) * dt) + across * s
                guard p.x >= 0, p.y >= 0, p.x <= Double(luma.width), p.y <= Double(luma.height) else { return nil }
                out[i] = luma.sample(p.x, p.y)
            }
            return out
        }
        guard let reference = line(0) else { return 0 }
        let rMean = reference.reduce(0, +) / Double(n)
        let r = reference.map { $0 - rMean }
        let rVar = r.reduce(0) { $0 + $1 * $1 }
        guard rVar > 0 else { return 0 }
        var previous = 1.0
        let maxS = max(60, 3 * (tEnd - tStart))
        var s = 1.0
        while s <= maxS {
            guard let q = line(s) else { return s - 0.5 }
            let qMean = q.reduce(0, +) / Double(n)
            var cov = 0.0, qVar = 0.0
            for i in 0..<n {
                let dq = q[i] - qMean
                cov += dq * r[i]; qVar += dq * dq
            }
            let amplitude = cov / rVar
            let ncc = qVar > 0 ? cov / (qVar * rVar).squareRoot() : 0
            let a = ncc < 0.5 ? min(amplitude, 0) : amplitude
            if a < 0.5 {
                return s - 1 + (previous - 0.5) / max(previous - a, 1e-9)
            }
            previous = min(a, 1)
            s += 1
        }
        return maxS
    }
}
