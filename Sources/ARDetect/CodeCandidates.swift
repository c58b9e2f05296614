import ARCore
import Foundation

/// A region that looks like a code: dense strong edges, either all in one direction (a 1D code,
/// `axisDegrees` across its bars) or in several (a 2D code, or anything else textured).
struct CodeCandidate {
    /// Corners in frame pixels: for a 1D candidate a rectangle aligned with its bars.
    var quad: Quad
    /// Direction across the bars, degrees clockwise from the x axis; nil for a 2D candidate.
    var axisDegrees: Double?
    /// Sum of the cells' edge density: bigger and denser ranks first.
    var score: Double
}

/// Finds code-like regions from gradient statistics on a grid of cells (`cell` pixels square,
/// gradients sampled every other pixel): cheap enough to run on every frame (about a tenth of a
/// zbar scan).
struct CandidateFinder {
    /// Cell size, pixels.
    var cell = 16
    /// A gradient (central difference over 2 px) above this many grey levels counts as an edge.
    var edgeThreshold = 24
    /// A cell is textured when at least this fraction of its samples are edges.
    var minEdgeFraction = 0.15
    /// A textured cell whose gradients agree at least this much belongs to a 1D code.
    var minCoherence = 0.65

    private struct Cell {
        var jxx = 0.0, jyy = 0.0, jxy = 0.0
        var edges = 0, samples = 0
        var textured = false
        var coherence = 0.0, angle = 0.0
    }

    /// Code-like regions of `luma`, best first.
    func candidates(in luma: LumaImage) -> [CodeCandidate] {
        let cols = luma.width / cell, rows = luma.height / cell
        guard cols >= 2, rows >= 2 else { return [] }
        var cells = [Cell](repeating: Cell(), count: cols * rows)
        let t = edgeThreshold
        for r in 0..<rows {
            let yStart = max(1, r * cell), yEnd = min(luma.height - 1, (r + 1) * cell)
            var y = yStart
            while y < yEnd {
                let row = luma.base + y * luma.stride
                let above = row - luma.stride, below = row + luma.stride
                for c in 0..<cols {
                    let xStart = max(1, c * cell), xEnd = min(luma.width - 1, (c + 1) * cell)
                    var jxx = 0, jyy = 0, jxy = 0, edges = 0, samples = 0
                    var x = xStart
                    while x < xEnd {
                        let gx = Int(row.load(fromByteOffset: x + 1, as: UInt8.self)) - Int(row.load(fromByteOffset: x - 1, as: UInt8.self))
                        let gy = Int(below.load(fromByteOffset: x, as: UInt8.self)) - Int(above.load(fromByteOffset: x, as: UInt8.self))
                        if abs(gx) + abs(gy) > t {
                            edges += 1
                            jxx += gx * gx; jyy += gy * gy; jxy += gx * gy
                        }
                        samples += 1
                        x += 2
                    }
                    let i = r * cols + c
                    cells[i].jxx += Double(jxx); cells[i].jyy += Double(jyy); cells[i].jxy += Double(jxy)
                    cells[i].edges += edges; cells[i].samples += samples
                }
                y += 2
            }
        }
        for i in cells.indices where cells[i].samples > 0 {
            let c = cells[i]
            cells[i].textured = Double(c.edges) >= minEdgeFraction * Double(c.samples)
            let trace = c.jxx + c.jyy
            if trace > 0 {
                cells[i].coherence = ((c.jxx - c.jyy) * (c.jxx - c.jyy) + 4 * c.jxy * c.jxy).squareRoot() / trace
                cells[i].angle = 0.5 * atan2(2 * c.jxy, c.jxx - c.jyy)
            }
        }
        var out: [CodeCandidate] = []
        // 1D: coherent cells with similar directions.
        out += components(cells, cols: cols, rows: rows, minCells: 2,
                          member: { $0.textured && $0.coherence >= minCoherence },
                          joins: { a, b in angleDifference(a.angle, b.angle) < 0.3 })
            .compactMap { linearCandidate($0, cells: cells, cols: cols) }
        // 2D and anything else textured.
        out += components(cells, cols: cols, rows: rows, minCells: 4, member: { $0.textured }, joins: { _, _ in true })
            .compactMap { blobCandidate($0, cells: cells, cols: cols, luma: luma) }
        return out.sorted { $0.score > $1.score }
    }

    /// Connected groups (8-neighbourhood) of member cells, as cell indices.
    private func components(_ cells: [Cell], cols: Int, rows: Int, minCells: Int, member: (Cell) -> Bool,
                            joins: (Cell, Cell) -> Bool) -> [[Int]] {
        var label = [Bool](repeating: false, count: cells.count)
        var out: [[Int]] = []
        for seed in cells.indices where !label[seed] && member(cells[seed]) {
            var group: [Int] = [], stack = [seed]
            label[seed] = true
            while let i = stack.popLast() {
                group.append(i)
                let r = i / cols, c = i % cols
                for dr in -1...1 {
                    for dc in -1...1 {
                        let nr = r + dr, nc = c + dc
                        guard nr >= 0, nr < rows, nc >= 0, nc < cols else { continue }
                        let j = nr * cols + nc
                        if !label[j], member(cells[j]), joins(cells[i], cells[j]) {
                            label[j] = true
                            stack.append(j)
                        }
                    }
                }
            }
            if group.count >= minCells { out.append(group) }
        }
        return out
    }

    private func centre(_ i: Int, cols: Int) -> Point {
        Point(x: (Double(i % cols) + 0.5) * Double(cell), y: (Double(i / cols) + 0.5) * Double(cell))
    }

    private func linearCandidate(_ group: [Int], cells: [Cell], cols: Int) -> CodeCandidate? {
        var jxx = 0.0, jyy = 0.0, jxy = 0.0, score = 0.0
        for i in group {
            jxx += cells[i].jxx; jyy += cells[i].jyy; jxy += cells[i].jxy
            score += Double(cells[i].edges) / Double(max(1, cells[i].samples))
        }
        let theta = 0.5 * atan2(2 * jxy, jxx - jyy)
        let u = Point(x: cos(theta), y: sin(theta)), d = Point(x: -u.y, y: u.x)
        let pts = group.map { centre($0, cols: cols) }
        let mean = pts.reduce(Point(x: 0, y: 0), +) * (1 / Double(pts.count))
        let ts = pts.map { dot($0 - mean, u) }, ss = pts.map { dot($0 - mean, d) }
        // Cell centres: half a cell in, then a margin for the quiet zone and the cells at the ends.
        let half = Double(cell) * 0.5
        let t0 = ts.min()! - half - Double(cell), t1 = ts.max()! + half + Double(cell)
        let s0 = ss.min()! - half, s1 = ss.max()! + half
        // Bars span at least three cells across, and a code is not much taller than wide: a long
        // thin run of parallel edges is a border or a shadow.
        guard t1 - t0 >= 5 * Double(cell), t1 - t0 >= 0.4 * (s1 - s0) else { return nil }
        func p(_ t: Double, _ s: Double) -> Point { mean + u * t + d * s }
        return CodeCandidate(quad: Quad(topLeft: p(t0, s0), topRight: p(t1, s0), bottomRight: p(t1, s1), bottomLeft: p(t0, s1)),
                             axisDegrees: theta * 180 / .pi, score: score)
    }

    private func blobCandidate(_ group: [Int], cells: [Cell], cols: Int, luma: LumaImage) -> CodeCandidate? {
        var minC = Int.max, maxC = Int.min, minR = Int.max, maxR = Int.min, score = 0.0
        for i in group {
            minC = min(minC, i % cols); maxC = max(maxC, i % cols)
            minR = min(minR, i / cols); maxR = max(maxR, i / cols)
            score += Double(cells[i].edges) / Double(max(1, cells[i].samples))
        }
        // 2D codes are square-ish even in perspective; long strips are borders (1D codes have
        // their own, coherent candidates).
        let w = maxC - minC + 1, h = maxR - minR + 1
        guard max(w, h) <= 3 * min(w, h) else { return nil }
        let m = Double(cell) / 2
        let box = Rect(x: Double(minC * cell) - m, y: Double(minR * cell) - m,
                       width: Double((maxC - minC + 1) * cell) + 2 * m, height: Double((maxR - minR + 1) * cell) + 2 * m)
            .intersection(Rect(x: 0, y: 0, width: Double(luma.width), height: Double(luma.height)))
        return CodeCandidate(quad: Quad(box), axisDegrees: nil, score: score)
    }
}

/// Difference between two axis angles (radians, modulo π), 0…π/2.
private func angleDifference(_ a: Double, _ b: Double) -> Double {
    var d = abs(a - b).truncatingRemainder(dividingBy: .pi)
    if d > .pi / 2 { d = .pi - d }
    return d
}
