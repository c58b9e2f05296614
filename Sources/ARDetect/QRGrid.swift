import ARCore
import Foundation

/// A QR code's module grid in the frame, measured from its three finder patterns: the three
/// nested squares of each pattern fitted to sub-pixel edges (`FinderSquares`), the grid's size
/// chosen by its timing patterns, and a homography from module coordinates to frame pixels. It
/// holds in perspective too (where an outline from the patterns' centres does not, and zbar's own
/// reader gives up), so the code can be turned upright and flat before zbar reads it, at the
/// fewest pixels that read, its corners still measured to a fraction of a pixel.
public struct QRGrid: Hashable, Sendable {
    /// Modules across: 17 + 4 × version (21 … 177).
    public var size: Int
    /// Module coordinates (0 … `size` on each axis, the code's own top-left corner at (0, 0)) →
    /// frame pixels.
    public var homography: Homography

    /// The code's outline in the frame (frame pixels), clockwise from its own top-left corner.
    public var quad: Quad { outline(margin: 0) }

    /// The code's outline grown by `margin` modules on each side, frame pixels.
    func outline(margin: Double) -> Quad {
        let a = -margin, b = Double(size) + margin
        return homography.apply(Quad(topLeft: Point(x: a, y: a), topRight: Point(x: b, y: a),
                                     bottomRight: Point(x: b, y: b), bottomLeft: Point(x: a, y: b)))
    }

    /// The grid of the code whose finder patterns are `finders` (three, its top-left one first),
    /// each fitted in `luma`; nil as `measure(corner:_:_:in:)`, and for other counts.
    static func measure(_ finders: [FinderPattern], in luma: LumaImage) -> QRGrid? {
        guard finders.count == 3, let tl = finders[0].squares(in: luma), let a = finders[1].squares(in: luma),
              let b = finders[2].squares(in: luma) else { return nil }
        return measure(corner: tl, a, b, in: luma)
    }

    /// The grid of the code whose top-left finder pattern is `corner` and whose other two are `a`
    /// and `b` (either order); nil when the squares do not sit on one grid, or the timing patterns
    /// match no grid size.
    static func measure(corner: FinderSquares, _ a: FinderSquares, _ b: FinderSquares, in luma: LumaImage) -> QRGrid? {
        // The code's x axis runs from its top-left pattern to its top-right one, clockwise on screen
        // to its y axis (a mirrored code is not one zbar reads).
        let (right, down) = cross(a.centre - corner.centre, b.centre - corner.centre) > 0 ? (a, b) : (b, a)
        let u = right.centre - corner.centre, v = down.centre - corner.centre
        // Each square's corners by their place on the code's axes: −u−v, +u−v, +u+v, −u+v.
        var labelled: [[Quad?]] = []
        for pattern in [corner, right, down] {
            var squares: [Quad?] = []
            for square in pattern.squares {
                squares.append(square.flatMap { Self.labelled($0, around: pattern.centre, u: u, v: v) })
            }
            guard squares[2] != nil else { return nil }
            labelled.append(squares)
        }
        // Finder centres are N − 7 modules apart, each side measured in its own patterns' modules.
        let m = [corner, right, down].map(\.module)
        let across = (u.length / ((m[0] + m[1]) / 2) + v.length / ((m[0] + m[2]) / 2)) / 2 + 7
        let estimate = Int(((across - 17) / 4).rounded())
        var best: (grid: QRGrid, score: Double, error: Double)?
        // Versions 1 … 40 only, whatever the patterns' spacing says.
        let low = min(40, max(1, estimate - 1)), high = max(low, min(40, estimate + 1))
        for version in low...high {
            let n = 17 + 4 * version
            guard let fit = fit(labelled, size: n) else { continue }
            let grid = QRGrid(size: n, homography: fit.homography)
            let score = grid.timingAgreement(in: luma)
            if best == nil || score > best!.score + 1e-9 { best = (grid, score, fit.error) }
        }
        // The timing patterns alternate on 3 in 4 modules or more (blur and noise take the rest); a
        // wrong size falls out of step within a few modules. The squares sit on the grid within a
        // quarter module.
        guard let best, best.score >= 0.75, best.error <= 0.25 * m.min()! else { return nil }
        return best.grid
    }

    /// The grid of the code whose finder patterns are `finders` (three, its top-left one first)
    /// from their centres and module sizes alone: an affine grid, its size chosen by the timing
    /// patterns as in `measure(corner:_:_:in:)`; nil as there. For patterns whose squares do not
    /// fit: round ("design") finder patterns, whose codes often have dots for modules. It has no
    /// perspective: modules far from the patterns drift in a code seen at a slant.
    static func measure(centres finders: [FinderPattern], in luma: LumaImage) -> QRGrid? {
        guard finders.count == 3 else { return nil }
        let corner = finders[0]
        let (right, down) = cross(finders[1].centre - corner.centre, finders[2].centre - corner.centre) > 0
            ? (finders[1], finders[2]) : (finders[2], finders[1])
        let m = [corner, right, down].map(\.moduleSize)
        guard m.allSatisfy({ $0 > 0 }) else { return nil }
        let u = right.centre - corner.centre, v = down.centre - corner.centre
        let across = (u.length / ((m[0] + m[1]) / 2) + v.length / ((m[0] + m[2]) / 2)) / 2 + 7
        let estimate = Int(((across - 17) / 4).rounded())
        var best: (grid: QRGrid, score: Double)?
        // A ring's measured modules are the design's, not the grid's: a wider range of versions.
        let low = min(40, max(1, estimate - 2)), high = max(low, min(40, estimate + 2))
        for version in low...high {
            let n = Double(17 + 4 * version)
            let source = [Point(x: 3.5, y: 3.5), Point(x: n - 3.5, y: 3.5), Point(x: 3.5, y: n - 3.5), Point(x: n - 3.5, y: n - 3.5)]
            let target = [corner.centre, right.centre, down.centre, right.centre + down.centre - corner.centre]
            guard let h = Homography(from: source, to: target) else { continue }
            let grid = QRGrid(size: Int(n), homography: h)
            let score = grid.timingAgreement(in: luma)
            if best == nil || score > best!.score + 1e-9 { best = (grid, score) }
        }
        guard let best, best.score >= 0.75 else { return nil }
        return best.grid
    }

    /// Whether each module (row by row from the code's top-left) is dark: the mean of 3 × 3 samples
    /// over its middle fifth, against the Otsu threshold of all modules' means. Dots and rounded
    /// modules read as the squares they stand for. Modules outside `luma` read light.
    func modules(in luma: LumaImage) -> [Bool] {
        let w = Double(luma.width), h = Double(luma.height)
        var means = [Double](repeating: 255, count: size * size)
        for y in 0..<size {
            for x in 0..<size {
                var sum = 0.0, count = 0
                for dy in [-0.1, 0, 0.1] {
                    for dx in [-0.1, 0, 0.1] {
                        let p = homography.apply(Point(x: Double(x) + 0.5 + dx, y: Double(y) + 0.5 + dy))
                        guard p.x >= 0, p.y >= 0, p.x < w, p.y < h else { continue }
                        sum += luma.sample(p.x, p.y)
                        count += 1
                    }
                }
                if count > 0 { means[y * size + x] = sum / Double(count) }
            }
        }
        var histogram = [Int](repeating: 0, count: 256)
        for m in means { histogram[min(255, max(0, Int(m)))] += 1 }
        let level = otsuLevel(histogram)
        return means.map { Int($0) <= level }
    }

    /// Whether module (`x`, `y`) of a code `size` modules across is dark in a standard finder
    /// pattern or its separator; nil elsewhere.
    static func finderModule(x: Int, y: Int, size: Int) -> Bool? {
        for (ox, oy) in [(0, 0), (size - 7, 0), (0, size - 7)] {
            let dx = x - ox, dy = y - oy
            guard dx >= -1, dx <= 7, dy >= -1, dy <= 7 else { continue }
            // Rings by distance from the centre: 3 dark, 2 light, 0 … 1 dark; the separator (4) light.
            let ring = max(abs(dx - 3), abs(dy - 3))
            return ring != 2 && ring != 4
        }
        return nil
    }

    /// `square`'s corners (clockwise) put in the order −u−v, +u−v, +u+v, −u+v by their offsets from
    /// `centre`; nil when the axes do not tell them apart.
    private static func labelled(_ square: Quad, around centre: Point, u: Point, v: Point) -> Quad? {
        let det = cross(u, v)
        var slots = [Point?](repeating: nil, count: 4)
        for p in square.corners {
            let o = p - centre
            let a = cross(o, v) / det, b = cross(u, o) / det
            let slot = b < 0 ? (a < 0 ? 0 : 1) : (a < 0 ? 3 : 2)
            guard slots[slot] == nil else { return nil }
            slots[slot] = p
        }
        return Quad(slots.compactMap { $0 })
    }

    /// The least-squares homography from module coordinates to the labelled squares' corners of a
    /// grid `size` modules across, and the root mean square distance of the corners from it (px).
    private static func fit(_ squares: [[Quad?]], size: Int) -> (homography: Homography, error: Double)? {
        let n = Double(size)
        let centres = [Point(x: 3.5, y: 3.5), Point(x: n - 3.5, y: 3.5), Point(x: 3.5, y: n - 3.5)]
        var source: [Point] = [], target: [Point] = []
        for (pattern, centre) in zip(squares, centres) {
            for (square, h) in zip(pattern, FinderSquares.halves) {
                guard let square else { continue }
                source += [centre + Point(x: -h, y: -h), centre + Point(x: h, y: -h), centre + Point(x: h, y: h),
                           centre + Point(x: -h, y: h)]
                target += square.corners
            }
        }
        guard let h = Homography(from: source, to: target) else { return nil }
        let sum = zip(source, target).reduce(0.0) { s, p in let d = h.apply(p.0).distance(to: p.1); return s + d * d }
        return (h, (sum / Double(source.count)).squareRoot())
    }

    /// The fraction of timing-pattern modules (row and column 6 between the finder patterns, dark
    /// where the other coordinate is even) whose shade the grid predicts.
    func timingAgreement(in luma: LumaImage) -> Double {
        func sample(_ x: Double, _ y: Double) -> Double? {
            let p = homography.apply(Point(x: x, y: y))
            guard p.x >= 0, p.y >= 0, p.x < Double(luma.width), p.y < Double(luma.height) else { return nil }
            return luma.sample(p.x, p.y)
        }
        // Shades of reference: the top-left pattern's dark centre and its light ring.
        guard let dark = sample(3.5, 3.5), let light = sample(3.5, 1.5) else { return 0 }
        let threshold = (dark + light) / 2
        var agree = 0, total = 0
        for j in 8..<(size - 8) {
            for (x, y) in [(Double(j) + 0.5, 6.5), (6.5, Double(j) + 0.5)] {
                guard let g = sample(x, y) else { continue }
                total += 1
                if (g < threshold) == (j % 2 == 0) { agree += 1 }
            }
        }
        return total >= 6 ? Double(agree) / Double(total) : 0
    }

    /// The homography from the pixels of a `width`-square image of the code upright at
    /// `pixelsPerModule`, with `quiet` modules of margin, to frame pixels; and that width.
    func upright(pixelsPerModule k: Double, quiet: Double) -> (map: Homography, width: Int) {
        let width = Int(((Double(size) + 2 * quiet) * k).rounded())
        let scale = Homography(matrix: [1 / k, 0, -quiet, 0, 1 / k, -quiet, 0, 0, 1])!
        return (homography * scale, width)
    }
}

/// A QR finder pattern's three nested squares (its dark centre, the light ring's outer edge, the
/// dark ring's outer edge), each fitted to the edges found on rays cast from its centre.
struct FinderSquares {
    /// Half the sides of the three squares, modules.
    static let halves = [1.5, 2.5, 3.5]
    /// Rays cast from a pattern's centre.
    static let rays = 48
    /// The rays' unit directions, evenly spread.
    static let directions = (0..<rays).map { i -> Point in
        let t = Double(i) * 2 * .pi / Double(rays)
        return Point(x: cos(t), y: sin(t))
    }

    var centre: Point
    /// The squares, innermost first, each clockwise on screen; nil where too few edges fit a side.
    /// The outer one is always there.
    var squares: [Quad?]
    /// The module size, px: the outer square's mean side over 7.
    var module: Double

    /// The squares of the pattern centred near `centre`, its modules within a factor of two of
    /// `module` (px); nil when its outer square does not fit.
    static func fit(centre: Point, module: Double, in luma: LumaImage) -> FinderSquares? {
        // Rays reach past the outer square's corner (4.95 modules out) for modules up to 1.6 × `module`.
        let reach = 8 * module, step = max(0.25, module / 5)
        let count = Int(reach / step)
        let w = Double(luma.width), h = Double(luma.height)
        let directions = Self.directions
        // Each ray's samples, and the pattern's threshold: midway between its dark and light shades.
        var profiles: [[Double]] = []
        var histogram = [Int](repeating: 0, count: 256)
        let nearCount = Int(4 * module / step)
        for d in directions {
            var profile: [Double] = []
            profile.reserveCapacity(count)
            let end = centre + d * (Double(max(0, count - 1)) * step)
            // A ray well inside the frame needs no clamping (same values, fewer instructions).
            let whole = luma.holdsInside(centre.x, centre.y) && luma.holdsInside(end.x, end.y)
            var done = 0
            // Inside, four points at a time, each as `centre + d * (k · step)` computes it.
            while whole, done + 4 <= count {
                let f = SIMD4<Double>.counting(from: done) * step
                let v = luma.sampleInside(centre.x + d.x * f, centre.y + d.y * f)
                for j in 0..<4 { profile.append(v[j]) }
                done += 4
            }
            for k in done..<count {
                let p = centre + d * (Double(k) * step)
                if whole {
                    profile.append(luma.sampleInside(p.x, p.y))
                    continue
                }
                guard p.x >= 0, p.y >= 0, p.x < w, p.y < h else { break }
                profile.append(luma.sample(p.x, p.y))
            }
            profiles.append(profile)
            for value in profile.prefix(nearCount) { histogram[Int(value)] += 1 }
        }
        let total = histogram.reduce(0, +)
        guard total > 100 else { return nil }
        // The 15th and 85th percentiles of the samples within 4 modules.
        func percentile(_ f: Double) -> Double {
            var seen = 0
            for (v, n) in histogram.enumerated() {
                seen += n
                if Double(seen) > f * Double(total) { return Double(v) }
            }
            return 255
        }
        let dark = percentile(0.15), light = percentile(0.85)
        guard light - dark >= 30 else { return nil }
        let threshold = (dark + light) / 2
        // Out from the centre: dark → light (centre square), light → dark, dark → light (outer).
        var edges = [[Point]](repeating: [], count: 3)
        for (d, profile) in zip(directions, profiles) {
            guard let first = profile.first, first < threshold else { continue }
            var square = 0
            for k in 1..<profile.count where square < 3 {
                let a = profile[k - 1], b = profile[k]
                guard square % 2 == 0 ? (a < threshold && b >= threshold) : (a >= threshold && b < threshold) else { continue }
                edges[square].append(centre + d * ((Double(k - 1) + (threshold - a) / (b - a)) * step))
                square += 1
            }
        }
        // The pattern's orientation (mod 90°): the outer edge points' steps from ray to ray run
        // along its sides.
        var c4 = 0.0, s4 = 0.0
        let outer = edges[2]
        for (p, q) in zip(outer, outer.dropFirst() + outer.prefix(1)) {
            let d = q - p, l = d.length
            guard l > 0, l < 2 * module else { continue }
            let t = 4 * atan2(d.y, d.x)
            c4 += l * cos(t); s4 += l * sin(t)
        }
        let theta = atan2(s4, c4) / 4
        let u = Point(x: cos(theta), y: sin(theta)), v = Point(x: -u.y, y: u.x)
        var squares: [Quad?] = edges.map { square(of: $0, centre: centre, u: u, v: v, tolerance: max(0.75, 0.3 * module)) }
        // The outer square 7 modules across (`module` within a factor of two), the inner ones in
        // proportion within a quarter.
        guard let outerSquare = squares[2], outerSquare.meanSide >= 3.5 * module, outerSquare.meanSide <= 14 * module else {
            return nil
        }
        for s in 0..<2 where squares[s] != nil {
            let expected = outerSquare.meanSide * halves[s] / halves[2]
            if abs(squares[s]!.meanSide - expected) > 0.25 * expected { squares[s] = nil }
        }
        return FinderSquares(centre: centre, squares: squares, module: outerSquare.meanSide / 7)
    }

    /// The square (clockwise) whose sides, roughly along `u` and `v`, the `points` lie on: points
    /// near its corners left out, each side a line fitted, points then moved to their nearest side
    /// and the lines fitted again; nil when a side has too few points or the sides differ by more
    /// than a quarter of their mean.
    private static func square(of points: [Point], centre: Point, u: Point, v: Point, tolerance: Double) -> Quad? {
        // Sides 0 top (−v), 1 right (+u), 2 bottom (+v), 3 left (−u).
        var sides = [[Point]](repeating: [], count: 4)
        for p in points {
            let o = p - centre, a = dot(o, u), b = dot(o, v)
            // Rays near a corner cross two sides at once.
            guard max(abs(a), abs(b)) >= 1.3 * min(abs(a), abs(b)) else { continue }
            sides[abs(a) > abs(b) ? (a > 0 ? 1 : 3) : (b > 0 ? 2 : 0)].append(p)
        }
        var lines = sides.compactMap { Line.fit($0, tolerance: tolerance) }
        guard lines.count == 4 else { return nil }
        // Again, each point on its nearest side (perspective turns sides away from `u` and `v`).
        sides = [[Point]](repeating: [], count: 4)
        for p in points {
            var nearest = 0, distance = Double.infinity
            for (i, line) in lines.enumerated() {
                let d = abs(dot(p, line.normal) - line.offset)
                if d < distance { (nearest, distance) = (i, d) }
            }
            if distance <= tolerance { sides[nearest].append(p) }
        }
        lines = sides.compactMap { Line.fit($0, tolerance: tolerance) }
        guard lines.count == 4, let tl = lines[0].intersection(lines[3]), let tr = lines[0].intersection(lines[1]),
              let br = lines[2].intersection(lines[1]), let bl = lines[2].intersection(lines[3]) else { return nil }
        let lengths = [tl.distance(to: tr), tr.distance(to: br), br.distance(to: bl), bl.distance(to: tl)]
        let mean = lengths.reduce(0, +) / 4
        guard lengths.allSatisfy({ abs($0 - mean) <= 0.25 * mean }) else { return nil }
        return Quad(topLeft: tl, topRight: tr, bottomRight: br, bottomLeft: bl)
    }

    /// How far the pattern's sides turn from the line from its centre to `p`: 0 when the line runs
    /// along a side, 1 when along a diagonal.
    func misalignment(towards p: Point) -> Double {
        guard let s = squares[2] else { return 1 }
        let d = p - centre
        let along = [s.topRight - s.topLeft, s.bottomRight - s.topRight].map { side -> Double in
            let c = abs(dot(side, d)) / max(1e-9, side.length * d.length)
            return min(1, max(0, c))
        }
        // |cos| of the angle to the nearer side's direction: 1 along it, √½ along the diagonal.
        let c = along.max()!
        return (1 - c) / (1 - 0.5.squareRoot())
    }
}

/// A straight line `normal · p = offset` (`normal` a unit vector), fitted to points.
struct Line {
    var normal: Point
    var offset: Double

    /// The total-least-squares line through `points`, fitted again without the points farther than
    /// `tolerance` (px) from it; nil when fewer than 3 points are left.
    static func fit(_ points: [Point], tolerance: Double) -> Line? {
        guard let line = fitAll(points) else { return nil }
        let kept = points.filter { abs(dot($0, line.normal) - line.offset) <= tolerance }
        return kept.count >= 3 ? fitAll(kept) : nil
    }

    private static func fitAll(_ points: [Point]) -> Line? {
        guard points.count >= 3, let (centre, direction) = principalAxis(of: points) else { return nil }
        let normal = Point(x: -direction.y, y: direction.x)
        return Line(normal: normal, offset: dot(centre, normal))
    }

    /// Where this line meets `other`; nil for (nearly) parallel lines.
    func intersection(_ other: Line) -> Point? {
        let det = normal.x * other.normal.y - normal.y * other.normal.x
        guard abs(det) > 1e-6 else { return nil }
        return Point(x: (offset * other.normal.y - normal.y * other.offset) / det,
                     y: (normal.x * other.offset - offset * other.normal.x) / det)
    }
}

/// z of the cross product of `a` and `b`.
private func cross(_ a: Point, _ b: Point) -> Double { a.x * b.y - a.y * b.x }
