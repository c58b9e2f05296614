import ARCore
import Foundation

/// What `RectangleDetector` looks for, in the terms of Apple Vision's rectangle request.
public struct RectangleOptions: Hashable, Sendable {
    /// Shortest side accepted, as a fraction of the frame's smaller dimension (0…1).
    public var minSize = 0.2
    /// Accepted range of the shorter side over the longer (0…1), as seen in the frame.
    public var minAspect = 0.3
    public var maxAspect = 1.0
    /// Largest deviation of a corner's angle from 90°, degrees (0…45).
    public var quadratureTolerance = 30.0
    /// Least confidence (0…1): the share of the outline that lies on strong edges running its way,
    /// lowered where those edges run on past the corners.
    public var minConfidence = 0.85
    /// Most rectangles reported, most confident first.
    public var maxResults = 4

    public init() {}
}

/// One rectangle found on a frame.
public struct RectangleCandidate: Hashable, Sendable {
    /// Corners in frame pixels, clockwise from the one nearest the top-left.
    public var quad: Quad
    /// Shorter side over the longer (means of opposite sides), 0…1.
    public var aspect: Double
    /// Share of the outline on strong edges running its way, lowered where they run on past the corners, 0…1.
    public var confidence: Double
    /// Share of its least supported side on such edges, 0…1.
    var leastSideSupport = 1.0

    /// A candidate at `quad` (pixels) with its `aspect` and `confidence` (0…1).
    public init(quad: Quad, aspect: Double, confidence: Double) {
        self.quad = quad
        self.aspect = aspect
        self.confidence = confidence
    }
}

/// Finds convex quadrilaterals likely to be pictures, posters, screens or labels on a luma plane.
///
/// Strong edges (Sobel) are grouped into straight segments by region growing on the gradient's
/// direction (as LSD does); collinear pieces of one side are joined. Segments whose ends meet at a
/// right-ish turn make corners, and four corners in a clockwise cycle make a candidate, with the
/// corners at the intersections of the sides' fitted lines (sub-pixel). A candidate is kept when
/// its size, aspect, angles and edge support pass `RectangleOptions`, and when its inside looks
/// like a picture: textured (not a blank wall or sheet), and not two-tone like a printed code.
/// Overlapping candidates keep the most confident. Pure and deterministic.
public struct RectangleDetector: Sendable {
    public var options: RectangleOptions
    /// Least Sobel magnitude (|gx| + |gy|, grey levels × 4) of an edge pixel.
    public var edgeThreshold = 20
    /// Longest side, pixels, of the plane searched: larger planes are halved (box filter) first.
    public var maxSearchSide = 400

    public init(options: RectangleOptions = RectangleOptions()) {
        self.options = options
    }

    /// The rectangles on `plane` (pixels of `plane`), most confident first.
    public func detect(_ plane: LumaPlane) -> [RectangleCandidate] {
        var search = plane
        var scale = 1.0
        while max(search.width, search.height) > maxSearchSide, search.width >= 32, search.height >= 32 {
            search = search.halved()
            scale *= 2
        }
        return detect(reduced: search).map { c in
            RectangleCandidate(quad: c.quad.scaled(sx: scale, sy: scale), aspect: c.aspect, confidence: c.confidence)
        }
    }

    /// The rectangles on `pyramid`, searched on its finest level no larger than `maxSearchSide`;
    /// quads in level-0 pixels.
    public func detect(_ pyramid: LumaPyramid) -> [RectangleCandidate] {
        var level = 0
        while level + 1 < pyramid.levels.count, max(pyramid.levels[level].width, pyramid.levels[level].height) > maxSearchSide {
            level += 1
        }
        let scale = Double(1 << level)
        return detect(pyramid.levels[level]).map { c in
            RectangleCandidate(quad: c.quad.scaled(sx: scale, sy: scale), aspect: c.aspect, confidence: c.confidence)
        }
    }

    // MARK: edges

    /// Per-pixel Sobel gradients of a plane smoothed by a 3 × 3 binomial filter (grain and noise
    /// would scatter the directions of weak edges), border pixels zero.
    struct Gradients {
        let width: Int, height: Int
        var gx: [Int16], gy: [Int16], magnitude: [Int16]

        init(_ plane: LumaPlane) {
            width = plane.width
            height = plane.height
            let n = width * height
            var ox = [Int16](repeating: 0, count: n)
            var oy = ox, mag = ox
            let w = width
            let smooth = Self.smoothed(plane)
            smooth.withUnsafeBufferPointer { p in
                    for y in 1..<(plane.height - 1) {
                    for x in 1..<(w - 1) {
                        let o = y * w + x
                        let a = Int(p[o - w - 1]), b = Int(p[o - w]), c = Int(p[o - w + 1])
                        let d = Int(p[o - 1]), f = Int(p[o + 1])
                        let g = Int(p[o + w - 1]), h = Int(p[o + w]), i = Int(p[o + w + 1])
                        let dx = (c + 2 * f + i) - (a + 2 * d + g)
                        let dy = (g + 2 * h + i) - (a + 2 * b + c)
                        ox[o] = Int16(dx); oy[o] = Int16(dy)
                        mag[o] = Int16(min(Int(Int16.max), abs(dx) + abs(dy)))
                    }
                }
            }
            gx = ox
            gy = oy
            magnitude = mag
        }

        /// `plane` filtered by [1 2 1] ⊗ [1 2 1] / 16 (edges clamped).
        static func smoothed(_ plane: LumaPlane) -> [UInt8] {
            let w = plane.width, h = plane.height
            var rows = [UInt16](repeating: 0, count: w * h)
            var out = [UInt8](repeating: 0, count: w * h)
            plane.pixels.withUnsafeBufferPointer { p in
                for y in 0..<h {
                    let r = y * w
                    for x in 0..<w {
                        let l = UInt16(p[r + max(0, x - 1)]), c = UInt16(p[r + x]), rr = UInt16(p[r + min(w - 1, x + 1)])
                        rows[r + x] = l + 2 * c + rr
                    }
                }
            }
            for y in 0..<h {
                let up = max(0, y - 1) * w, mid = y * w, down = min(h - 1, y + 1) * w
                for x in 0..<w { out[mid + x] = UInt8((rows[up + x] + 2 * rows[mid + x] + rows[down + x] + 8) >> 4) }
            }
            return out
        }

        /// Whether an edge of at least `threshold` runs along direction `d` (unit) at (x, y):
        /// the gradient there is strong and across `d` (within about 30°).
        func supports(x: Int, y: Int, along d: Point, threshold: Int) -> Bool {
            guard x > 0, y > 0, x < width - 1, y < height - 1 else { return false }
            let o = y * width + x
            guard Int(magnitude[o]) >= threshold else { return false }
            let vx = Double(gx[o]), vy = Double(gy[o])
            let along = abs(vx * d.x + vy * d.y), norm = (vx * vx + vy * vy).squareRoot()
            return along <= 0.5 * norm
        }
    }

    /// A straight piece of edge: endpoints and unit direction, pixels of the searched plane.
    struct Segment {
        var a: Point, b: Point
        var length: Double { a.distance(to: b) }
        var direction: Point { (b - a) * (1 / max(1e-9, length)) }
        /// The same segment run the other way.
        var reversed: Segment { Segment(a: b, b: a) }
    }

    /// Straight segments from region growing on gradient direction (modulo 180°: a side keeps its
    /// line where the background behind it turns from darker to lighter).
    func segments(_ g: Gradients, minLength: Double) -> [Segment] {
        let w = g.width, h = g.height, n = w * h
        let threshold = Int16(edgeThreshold)
        // Seeds, strongest first (counting sort on the magnitude).
        var order: [Int] = []
        var counts = [Int](repeating: 0, count: 256)
        for o in 0..<n where g.magnitude[o] >= threshold { counts[min(255, Int(g.magnitude[o]) >> 2)] += 1 }
        var starts = [Int](repeating: 0, count: 256)
        var total = 0
        for k in stride(from: 255, through: 0, by: -1) { starts[k] = total; total += counts[k] }
        order = [Int](repeating: 0, count: total)
        for o in 0..<n where g.magnitude[o] >= threshold {
            let k = min(255, Int(g.magnitude[o]) >> 2)
            order[starts[k]] = o
            starts[k] += 1
        }
        var used = [Bool](repeating: false, count: n)
        // Doubled angles make directions 180° apart the same.
        func doubled(_ o: Int) -> (Double, Double) {
            let a = atan2(Double(g.gy[o]), Double(g.gx[o]))
            return (cos(2 * a), sin(2 * a))
        }
        let tolerance = cos(2 * 22.5 * Double.pi / 180)
        var out: [Segment] = []
        var region: [Int] = []
        for seed in order where !used[seed] {
            used[seed] = true
            region.removeAll(keepingCapacity: true)
            region.append(seed)
            var (sc, ss) = doubled(seed)
            var mean = (sc, ss)
            var k = 0
            while k < region.count {
                let o = region[k]; k += 1
                let x = o % w, y = o / w
                for dy in -1...1 {
                    for dx in -1...1 where dx != 0 || dy != 0 {
                        let nx = x + dx, ny = y + dy
                        guard nx > 0, ny > 0, nx < w - 1, ny < h - 1 else { continue }
                        let q = ny * w + nx
                        guard !used[q], g.magnitude[q] >= threshold else { continue }
                        let (c, s) = doubled(q)
                        let norm = (mean.0 * mean.0 + mean.1 * mean.1).squareRoot()
                        guard norm > 0, (c * mean.0 + s * mean.1) / norm >= tolerance else { continue }
                        used[q] = true
                        region.append(q)
                        sc += c; ss += s
                        mean = (sc, ss)
                    }
                }
            }
            guard Double(region.count) >= minLength else { continue }
            let (segment, held) = fitSegment(region, g, minLength: minLength)
            if let segment { out.append(segment) }
            // Pixels the segment does not hold may seed or join another one.
            for o in region where !held.contains(o) { used[o] = false }
            used[seed] = true
        }
        return out
    }

    /// The straight run of a region's pixels through its seed (`region[0]`): a line started across
    /// the seed's gradient and refitted (weighted by magnitude) to the pixels within 1.5 pixels of
    /// it whose gradient is across it, over a stretch around the seed that doubles each round, kept to the stretch around the seed without gaps of more than 3 pixels, so texture the
    /// region grew into is left out. Returns the segment (nil when shorter than `minLength`) and
    /// the pixels it holds.
    private func fitSegment(_ region: [Int], _ g: Gradients, minLength: Double) -> (Segment?, Set<Int>) {
        let w = g.width
        let seed = region[0]
        var c = Point(x: Double(seed % w) + 0.5, y: Double(seed / w) + 0.5)
        let gn = (Double(g.gx[seed]) * Double(g.gx[seed]) + Double(g.gy[seed]) * Double(g.gy[seed])).squareRoot()
        var d = Point(x: -Double(g.gy[seed]) / gn, y: Double(g.gx[seed]) / gn)
        let seedPoint = c
        var kept: [Int] = []
        var extent = (0.0, 0.0)
        // The stretch considered doubles each round, the line refitted each time: a direction a
        // few degrees off at the seed cannot reach a parallel edge nearby at the far ends.
        for reach in [8.0, 16, 32, 64, 128, 256, .infinity] {
            let normal = Point(x: -d.y, y: d.x)
            let ts = (seedPoint - c).x * d.x + (seedPoint - c).y * d.y
            var near: [(o: Int, t: Double)] = []
            for o in region {
                let v = Point(x: Double(o % w) + 0.5, y: Double(o / w) + 0.5) - c
                guard abs(v.x * normal.x + v.y * normal.y) <= 1.5, abs(v.x * d.x + v.y * d.y - ts) <= reach else { continue }
                // Its gradient across the line (within 20°): texture touching the edge is left out.
                let gx = Double(g.gx[o]), gy = Double(g.gy[o])
                guard abs(gx * normal.x + gy * normal.y) >= 0.94 * (gx * gx + gy * gy).squareRoot() else { continue }
                near.append((o, v.x * d.x + v.y * d.y))
            }
            near.sort { $0.t < $1.t }
            // The gap-free stretch holding the seed.
            guard let at = near.indices.min(by: { abs(near[$0].t - ts) < abs(near[$1].t - ts) }) else { return (nil, []) }
            var lo = at, hi = at
            while lo > 0, near[lo].t - near[lo - 1].t <= 3 { lo -= 1 }
            while hi + 1 < near.count, near[hi + 1].t - near[hi].t <= 3 { hi += 1 }
            kept = near[lo...hi].map(\.o)
            guard kept.count >= 3 else { return (nil, []) }
            var sw = 0.0, sx = 0.0, sy = 0.0
            for o in kept {
                let m = Double(g.magnitude[o])
                sw += m; sx += m * (Double(o % w) + 0.5); sy += m * (Double(o / w) + 0.5)
            }
            let nc = Point(x: sx / sw, y: sy / sw)
            var xx = 0.0, xy = 0.0, yy = 0.0
            for o in kept {
                let m = Double(g.magnitude[o])
                let dx = Double(o % w) + 0.5 - nc.x, dy = Double(o / w) + 0.5 - nc.y
                xx += m * dx * dx; xy += m * dx * dy; yy += m * dy * dy
            }
            let angle = 0.5 * atan2(2 * xy, xx - yy)
            c = nc
            d = Point(x: cos(angle), y: sin(angle))
            extent = (Double.infinity, -Double.infinity)
            for o in kept {
                let v = Point(x: Double(o % w) + 0.5, y: Double(o / w) + 0.5) - c
                let t = v.x * d.x + v.y * d.y
                extent = (min(extent.0, t), max(extent.1, t))
            }
        }
        let segment = Segment(a: c + d * extent.0, b: c + d * extent.1)
        return (segment.length >= minLength ? segment : nil, Set(kept))
    }

    /// Joins segments lying on one line (a side cut by a corner of the background, an occluder
    /// or a change of contrast) when the gap between them is short.
    func merged(_ input: [Segment]) -> [Segment] {
        var segs = input.sorted { $0.length > $1.length }
        var changed = true
        while changed {
            changed = false
            outer: for i in segs.indices {
                for j in segs.indices where j > i {
                    if let m = join(segs[i], segs[j]) {
                        segs[i] = m
                        segs.remove(at: j)
                        changed = true
                        break outer
                    }
                }
            }
        }
        return segs
    }

    private func join(_ s: Segment, _ t: Segment) -> Segment? {
        let d = s.direction
        guard abs(d.x * t.direction.x + d.y * t.direction.y) >= cos(4 * Double.pi / 180) else { return nil }
        let normal = Point(x: -d.y, y: d.x)
        func off(_ p: Point) -> Double { let v = p - s.a; return abs(v.x * normal.x + v.y * normal.y) }
        guard off(t.a) <= 1.5, off(t.b) <= 1.5 else { return nil }
        func along(_ p: Point) -> Double { let v = p - s.a; return v.x * d.x + v.y * d.y }
        let t0 = min(along(t.a), along(t.b)), t1 = max(along(t.a), along(t.b))
        let gap = max(t0 - s.length, -t1)
        guard gap <= max(4, s.length + t.length) else { return nil }
        // The line through both, each end weighted by its segment's length.
        let ends = [(s.a, s.length), (s.b, s.length), (t.a, t.length), (t.b, t.length)]
        let sw = ends.reduce(0) { $0 + $1.1 }
        let c = ends.reduce(Point(x: 0, y: 0)) { $0 + $1.0 * $1.1 } * (1 / sw)
        var xx = 0.0, xy = 0.0, yy = 0.0
        for (p, w) in ends {
            let v = p - c
            xx += w * v.x * v.x; xy += w * v.x * v.y; yy += w * v.y * v.y
        }
        let angle = 0.5 * atan2(2 * xy, xx - yy)
        var dir = Point(x: cos(angle), y: sin(angle))
        if dir.x * d.x + dir.y * d.y < 0 { dir = dir * -1 }
        let ts = ends.map { ($0.0 - c).x * dir.x + ($0.0 - c).y * dir.y }
        return Segment(a: c + dir * ts.min()!, b: c + dir * ts.max()!)
    }

    /// `quad` with each side moved onto the edge it lies on at sub-pixel precision: along the
    /// side, the strongest gradient across it within 3 pixels (a parabola through the peak), then
    /// a line fitted to those points and refitted without the ones over a pixel off. Corners are
    /// where the refined sides cross; a side with too few edge points stays as it was.
    func refined(_ quad: Quad, _ g: Gradients) -> Quad {
        let c = quad.corners
        var lines: [Segment] = []
        for i in 0..<4 {
            let p = c[i], q = c[(i + 1) % 4]
            let len = p.distance(to: q), d = (q - p) * (1 / len), normal = Point(x: -d.y, y: d.x)
            var points: [Point] = []
            let n = max(8, Int(len))
            for k in 0..<n {
                let base = p + (q - p) * (0.08 + 0.84 * (Double(k) + 0.5) / Double(n))
                var profile: [Double] = []
                for o in -3...3 {
                    let e = base + normal * Double(o)
                    let x = Int(e.x), y = Int(e.y)
                    guard x > 0, y > 0, x < g.width - 1, y < g.height - 1 else { profile.append(0); continue }
                    let idx = y * g.width + x
                    profile.append(abs(Double(g.gx[idx]) * normal.x + Double(g.gy[idx]) * normal.y))
                }
                // The edge nearest the side, not the strongest near it: a picture's frame has an
                // inner edge a few pixels in, often stronger than its outline.
                let peaks = (1..<6).filter { profile[$0] >= Double(edgeThreshold) && profile[$0] >= profile[$0 - 1] && profile[$0] >= profile[$0 + 1] }
                guard let at = peaks.min(by: { abs($0 - 3) < abs($1 - 3) }) else { continue }
                let best = (Double(at - 3), profile[at])
                let l = profile[at - 1], m = profile[at], r = profile[at + 1]
                let den = l - 2 * m + r
                let shift = den < 0 ? max(-0.5, min(0.5, 0.5 * (l - r) / den)) : 0
                points.append(base + normal * (best.0 + shift))
            }
            guard points.count >= max(6, n / 4), var line = Self.fitLine(points) else { lines.append(Segment(a: p, b: q)); continue }
            let kept = points.filter { Self.distance($0, line) <= 1 }
            if kept.count >= max(6, n / 4), let again = Self.fitLine(kept) { line = again }
            lines.append(line)
        }
        var corners: [Point] = []
        for i in 0..<4 {
            guard let x = Self.intersection(lines[(i + 3) % 4], lines[i]) else { return quad }
            corners.append(x)
        }
        let out = Quad(corners)!
        return out.maxCornerDistance(to: quad) <= 4 ? out : quad
    }

    /// The least-squares line through `points` as a segment spanning them; nil for fewer than 2.
    static func fitLine(_ points: [Point]) -> Segment? {
        guard let (c, d) = principalAxis(of: points) else { return nil }
        let ts = points.map { ($0 - c).x * d.x + ($0 - c).y * d.y }
        return Segment(a: c + d * ts.min()!, b: c + d * ts.max()!)
    }

    /// Distance from `p` to the line through `s`.
    static func distance(_ p: Point, _ s: Segment) -> Double {
        let d = s.direction, v = p - s.a
        return abs(v.x * -d.y + v.y * d.x)
    }

    // MARK: quads

    /// Where the lines through `u` and `v` cross; nil when (nearly) parallel.
    private static func intersection(_ u: Segment, _ v: Segment) -> Point? {
        let r = u.b - u.a, s = v.b - v.a
        let den = r.x * s.y - r.y * s.x
        guard abs(den) > 1e-9 else { return nil }
        let q = v.a - u.a
        let t = (q.x * s.y - q.y * s.x) / den
        return u.a + r * t
    }

    func detect(reduced plane: LumaPlane) -> [RectangleCandidate] {
        var found = candidates(plane)
        // A picture's frame, mount or margin makes rectangles inside its outline, and quads with
        // some sides on the outline and some on the inner edge: the outline is the object when it
        // is about as sure (within 15 %) as one inside it and well seen on every side (90 %: not
        // a line across the wall that happens to close a larger quad). Inside counts within
        // 1.5 px for the middles of the inner one's sides (a side the two share) and 4 px for its
        // corners (where an inner edge meets the outline at a shallow angle, their lines cross a
        // little outside), and larger by 3 % (more than two sides a pixel out). Largest first, and
        // only a quad still standing puts one inside it aside.
        var standing: [RectangleCandidate] = []
        for inner in found.sorted(by: { $0.quad.area > $1.quad.area }) {
            let c = inner.quad.corners
            let middles = (0..<4).map { (c[$0] + c[($0 + 1) % 4]) * 0.5 }
            let inside = standing.contains { outer in
                outer.quad.area > 1.03 * inner.quad.area && outer.confidence >= 0.85 * inner.confidence
                    && outer.leastSideSupport >= 0.9
                    && middles.allSatisfy(outer.quad.grown(by: 1, plus: 1.5 * 2.0.squareRoot()).contains)
                    && c.allSatisfy(outer.quad.grown(by: 1, plus: 4 * 2.0.squareRoot()).contains)
            }
            if !inside { standing.append(inner) }
        }
        found = standing
        // Most confident first; among overlapping ones the first stays.
        found.sort { ($0.confidence, $0.quad.area) > ($1.confidence, $1.quad.area) }
        var kept: [RectangleCandidate] = []
        for c in found where !kept.contains(where: { $0.quad.contains(c.quad.center) || c.quad.contains($0.quad.center) }) {
            kept.append(c)
            if kept.count >= options.maxResults { break }
        }
        return kept
    }

    /// Every candidate passing the options on `plane`, overlapping ones included.
    func candidates(_ plane: LumaPlane) -> [RectangleCandidate] {
        guard plane.width >= 16, plane.height >= 16 else { return [] }
        let g = Gradients(plane)
        let minSide = max(8, options.minSize * Double(min(plane.width, plane.height)))
        // A side may be cut into pieces (occlusion, texture behind it, low contrast): pieces of a
        // fifth of the least side count, and a quarter of it, once joined, makes a side.
        let pieces = segments(g, minLength: max(6, minSide / 5))
        let segs = Array(merged(pieces).filter { $0.length >= max(6, minSide / 4) }.sorted { $0.length > $1.length }.prefix(60))
        // Directed segments: index 2k is segment k as fitted, 2k+1 reversed.
        let directed = segs.flatMap { [$0, $0.reversed] }
        let minTurn = sin((90 - options.quadratureTolerance - 5) * Double.pi / 180)
        var next = [[(Int, Point)]](repeating: [], count: directed.count)
        for (i, u) in directed.enumerated() {
            for (j, v) in directed.enumerated() where j / 2 != i / 2 {
                let du = u.direction, dv = v.direction
                // Clockwise on screen (y down): a right turn.
                guard du.x * dv.y - du.y * dv.x >= minTurn, let x = Self.intersection(u, v) else { continue }
                // The corner lies on u's second half or beyond its end (a side seen only in part:
                // low contrast, covered, a cut corner), by up to the longer one's length or the
                // least side, and likewise before v's first half: a side may also run on past its
                // corner where something in line continues it.
                let alongU = (x - u.a).x * du.x + (x - u.a).y * du.y
                let alongV = (x - v.a).x * dv.x + (x - v.a).y * dv.y
                let reach = max(6, u.length, v.length, 1.5 * minSide)
                guard alongU >= 0.5 * u.length, alongU <= u.length + reach,
                      alongV <= 0.5 * v.length, alongV >= -reach else { continue }
                next[i].append((j, x))
            }
        }
        var found: [RectangleCandidate] = []
        var seen = Set<[Int]>()
        for a in directed.indices {
            for (b, xab) in next[a] where b > a {
                for (c, xbc) in next[b] where c > a && c / 2 != a / 2 {
                    for (d, xcd) in next[c] where d > a && d / 2 != a / 2 && d / 2 != b / 2 {
                        guard let xda = next[d].first(where: { $0.0 == a })?.1 else { continue }
                        let key = [a / 2, b / 2, c / 2, d / 2].sorted()
                        guard seen.insert(key).inserted else { continue }
                        if let cand = candidate([xda, xab, xbc, xcd], g, plane, minSide: minSide) { found.append(cand) }
                    }
                }
            }
        }
        return found
    }

    /// The candidate with corners `corners` (clockwise), or nil when it fails an option or does
    /// not look like a picture.
    private func candidate(_ corners: [Point], _ g: Gradients, _ plane: LumaPlane, minSide: Double) -> RectangleCandidate? {
        guard let raw = Quad(corners), raw.isFinite else { return nil }
        let quad = Self.startingTopLeft(refined(raw, g))
        let c = quad.corners
        for p in c where p.x < -2 || p.y < -2 || p.x > Double(plane.width) + 2 || p.y > Double(plane.height) + 2 { return nil }
        var sides: [Double] = []
        for i in 0..<4 {
            let p = c[i], q = c[(i + 1) % 4], r = c[(i + 2) % 4]
            sides.append(p.distance(to: q))
            let u = q - p, v = r - q
            let cosine = (u.x * v.x + u.y * v.y) / max(1e-9, u.distance(to: Point(x: 0, y: 0)) * v.distance(to: Point(x: 0, y: 0)))
            // Turn of 90° ± tolerance (cosine of the turn near 0), and clockwise (convex).
            guard abs(cosine) <= sin(options.quadratureTolerance * Double.pi / 180), u.x * v.y - u.y * v.x > 0 else { return nil }
        }
        guard sides.min()! >= minSide else { return nil }
        let w = (sides[0] + sides[2]) / 2, h = (sides[1] + sides[3]) / 2
        let aspect = min(w, h) / max(w, h)
        guard aspect >= options.minAspect - 1e-9, aspect <= options.maxAspect + 1e-9 else { return nil }
        // Edge support along each side, its ends (corners) left out.
        var coverage: [Double] = []
        for i in 0..<4 {
            let p = c[i], q = c[(i + 1) % 4]
            let len = p.distance(to: q), d = (q - p) * (1 / len), normal = Point(x: -d.y, y: d.x)
            let n = max(4, Int(len))
            var hits = 0, total = 0
            for k in 0..<n {
                let t = 0.06 + 0.88 * (Double(k) + 0.5) / Double(n)
                let s = p + (q - p) * t
                total += 1
                var hit = false
                for off in [-1.0, 0, 1] {
                    let e = s + normal * off
                    if g.supports(x: Int(e.x), y: Int(e.y), along: d, threshold: edgeThreshold * 3 / 4) { hit = true; break }
                }
                if hit { hits += 1 }
            }
            coverage.append(Double(hits) / Double(max(1, total)))
        }
        guard coverage.min()! >= 0.3 else { return nil }
        // A side of an object ends at its corners: an edge running on past a corner (a shelf, a
        // door frame) makes a quad of lines crossing, not an object. The share of a fifth of each
        // side's length beyond each of its ends that is still on such an edge lowers the confidence.
        var beyond = 0.0
        for i in 0..<4 {
            let p = c[i], q = c[(i + 1) % 4]
            let len = p.distance(to: q), d = (q - p) * (1 / len)
            let n = max(3, Int(0.2 * len))
            var hits = 0
            for k in 0..<n {
                let t = 2 + 0.2 * len * Double(k) / Double(n)
                for e in [q + d * t, p - d * t] where g.supports(x: Int(e.x), y: Int(e.y), along: d, threshold: edgeThreshold * 3 / 4) {
                    hits += 1
                }
            }
            beyond += Double(hits) / Double(2 * n)
        }
        let confidence = coverage.reduce(0, +) / 4 * (1 - 0.6 * beyond / 4)
        guard confidence >= options.minConfidence else { return nil }
        guard Self.looksLikePicture(quad, plane) else { return nil }
        var found = RectangleCandidate(quad: quad, aspect: aspect, confidence: confidence)
        found.leastSideSupport = coverage.min()!
        return found
    }

    /// The corners rotated to start at the one nearest the bounding box's top-left.
    static func startingTopLeft(_ q: Quad) -> Quad {
        let c = q.corners, box = q.boundingBox
        let origin = Point(x: box.minX, y: box.minY)
        let best = (0..<4).min { c[$0].distance(to: origin) < c[$1].distance(to: origin) }!
        return Quad((0..<4).map { c[(best + $0) % 4] })!
    }

    /// Whether the inside of `quad` looks like a picture: enough texture to follow (not a blank
    /// wall, sheet or screen), and grey levels spread between dark and light, not gathered at two
    /// (a printed code is two-tone).
    static func looksLikePicture(_ quad: Quad, _ plane: LumaPlane) -> Bool {
        let n = 24
        var values: [Double] = []
        values.reserveCapacity(n * n)
        for j in 0..<n {
            for i in 0..<n {
                let p = quad.anchorPoint(u: 0.1 + 0.8 * (Double(i) + 0.5) / Double(n), v: 0.1 + 0.8 * (Double(j) + 0.5) / Double(n))
                let x = min(plane.width - 1, max(0, Int(p.x))), y = min(plane.height - 1, max(0, Int(p.y)))
                values.append(Double(plane[x, y]))
            }
        }
        let mean = values.reduce(0, +) / Double(values.count)
        let sd = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot()
        guard sd >= 12 else { return false }
        let sorted = values.sorted()
        let lo = sorted[sorted.count / 20], hi = sorted[sorted.count * 19 / 20]
        guard hi - lo >= 24 else { return false }
        let band = 0.2 * (hi - lo)
        let extreme = values.filter { $0 <= lo + band || $0 >= hi - band }.count
        return Double(extreme) / Double(values.count) < 0.75
    }
}
