import Foundation

/// A plane-to-plane projective transform (homography) between pixel coordinate frames.
///
/// Stored as a 3x3 row-major matrix `[h11, h12, h13, h21, h22, h23, h31, h32, h33]` acting on
/// homogeneous points `(x, y, 1)`. The matrix is normalised so that `h33 == 1` whenever `h33` is not
/// (nearly) zero; a homography whose `h33` is zero keeps its matrix as given.
public struct Homography: Hashable, Sendable {
    /// The 9 matrix entries, row-major.
    public let matrix: [Double]

    /// The transform that maps every point to itself.
    public static let identity = Homography(normalising: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    /// Wraps a row-major 3x3 matrix; nil unless it has exactly 9 finite entries that are not all zero.
    public init?(matrix: [Double]) {
        guard matrix.count == 9, matrix.allSatisfy(\.isFinite), matrix.contains(where: { $0 != 0 }) else {
            return nil
        }
        self.init(normalising: matrix)
    }

    /// Stores `m` (9 entries, finite) divided by `h33` when that is safely away from zero.
    private init(normalising m: [Double]) {
        let scale = m.map(abs).max() ?? 0
        let h33 = m[8]
        if abs(h33) > 1e-12 * scale {
            matrix = m.map { $0 / h33 }
        } else {
            matrix = m
        }
    }

    /// The homography mapping each corner of `source` onto the same corner of `target` (pixels to pixels),
    /// solved exactly from the 4 correspondences (DLT, Gaussian elimination with partial pivoting).
    ///
    /// Nil when the problem is degenerate: three corners of either quad (nearly) collinear, or
    /// non-finite coordinates.
    public init?(from source: Quad, to target: Quad) {
        let src = source.corners, dst = target.corners
        guard let ns = PointNormalisation(src), let nd = PointNormalisation(dst) else { return nil }
        let a = src.map(ns.apply), b = dst.map(nd.apply)
        // A homography keeps collinear points collinear: any collinear triple means no (unique) solution.
        for pts in [a, b] {
            for skip in 0..<4 {
                let t = (0..<4).filter { $0 != skip }.map { pts[$0] }
                let cross = (t[1].x - t[0].x) * (t[2].y - t[0].y) - (t[1].y - t[0].y) * (t[2].x - t[0].x)
                if abs(cross) < 1e-9 { return nil }
            }
        }
        var rows: [[Double]] = []
        var rhs: [Double] = []
        for (p, q) in zip(a, b) {
            rows.append([p.x, p.y, 1, 0, 0, 0, -q.x * p.x, -q.x * p.y]); rhs.append(q.x)
            rows.append([0, 0, 0, p.x, p.y, 1, -q.y * p.x, -q.y * p.y]); rhs.append(q.y)
        }
        guard let h = solveLinearSystem(rows, rhs) else { return nil }
        self.init(normalisedSolution: h, source: ns, target: nd)
    }

    /// The least-squares homography mapping `source[i]` onto `target[i]` (pixels to pixels) for 4 or more
    /// point pairs, solved from the normal equations of the DLT system with `h33` fixed to 1.
    ///
    /// Nil when the counts differ, there are fewer than 4 pairs, any coordinate is non-finite, or the
    /// points do not determine a homography (e.g. all collinear).
    public init?(from source: [Point], to target: [Point]) {
        guard source.count == target.count, source.count >= 4,
              let ns = PointNormalisation(source), let nd = PointNormalisation(target) else { return nil }
        var ata = [[Double]](repeating: [Double](repeating: 0, count: 8), count: 8)
        var atb = [Double](repeating: 0, count: 8)
        func accumulate(_ row: [Double], _ value: Double) {
            for i in 0..<8 {
                atb[i] += row[i] * value
                for j in 0..<8 { ata[i][j] += row[i] * row[j] }
            }
        }
        for (s, t) in zip(source, target) {
            let p = ns.apply(s), q = nd.apply(t)
            accumulate([p.x, p.y, 1, 0, 0, 0, -q.x * p.x, -q.x * p.y], q.x)
            accumulate([0, 0, 0, p.x, p.y, 1, -q.y * p.x, -q.y * p.y], q.y)
        }
        guard let h = solveLinearSystem(ata, atb) else { return nil }
        self.init(normalisedSolution: h, source: ns, target: nd)
    }

    /// Undoes the point normalisations around the solved 8 entries: `H = T_target⁻¹ · Hn · T_source`.
    private init?(normalisedSolution h: [Double], source: PointNormalisation, target: PointNormalisation) {
        let hn = Homography(normalising: h + [1])
        let full = Homography.multiply(Homography.multiply(target.inverseMatrix, hn.matrix), source.matrix)
        guard full.allSatisfy(\.isFinite), Homography.determinant(full) != 0 else { return nil }
        self.init(normalising: full)
    }

    /// Maps a point (pixels). A point sent to infinity (on the vanishing line) comes back non-finite.
    public func apply(_ p: Point) -> Point {
        let m = matrix
        let w = m[6] * p.x + m[7] * p.y + m[8]
        return Point(x: (m[0] * p.x + m[1] * p.y + m[2]) / w, y: (m[3] * p.x + m[4] * p.y + m[5]) / w)
    }

    /// Maps each corner of a quad (pixels), keeping the corner roles.
    public func apply(_ q: Quad) -> Quad {
        Quad(topLeft: apply(q.topLeft), topRight: apply(q.topRight),
             bottomRight: apply(q.bottomRight), bottomLeft: apply(q.bottomLeft))
    }

    /// The inverse transform; nil when the matrix is (nearly) singular.
    public var inverse: Homography? {
        let m = matrix
        let det = Homography.determinant(m)
        let scale = m.map(abs).max() ?? 0
        guard det.isFinite, abs(det) > 1e-14 * scale * scale * scale else { return nil }
        let adj: [Double] = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        return Homography(matrix: adj.map { $0 / det })
    }

    /// Composition: `a * b` applies `b` first, then `a` (so `(a * b).apply(p) == a.apply(b.apply(p))`).
    /// The product of invertible homographies is invertible; a singular factor gives a singular product.
    public static func * (a: Homography, b: Homography) -> Homography {
        Homography(normalising: multiply(a.matrix, b.matrix))
    }

    /// Product of two row-major 3x3 matrices.
    private static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        var c = [Double](repeating: 0, count: 9)
        for r in 0..<3 {
            for k in 0..<3 {
                for j in 0..<3 { c[r * 3 + j] += a[r * 3 + k] * b[k * 3 + j] }
            }
        }
        return c
    }

    /// Determinant of a row-major 3x3 matrix.
    private static func determinant(_ m: [Double]) -> Double {
        m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
    }
}

/// Hartley normalisation: moves the centroid to the origin and scales so the mean distance to it is √2,
/// which keeps the DLT system well conditioned whatever the pixel magnitudes.
private struct PointNormalisation {
    let cx: Double, cy: Double, s: Double

    /// Nil for no points, non-finite coordinates, or all points identical.
    init?(_ points: [Point]) {
        guard !points.isEmpty, points.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return nil }
        let n = Double(points.count)
        cx = points.map(\.x).reduce(0, +) / n
        cy = points.map(\.y).reduce(0, +) / n
        let c = Point(x: cx, y: cy)
        let meanDistance = points.map { $0.distance(to: c) }.reduce(0, +) / n
        guard meanDistance > 0, meanDistance.isFinite else { return nil }
        s = 2.0.squareRoot() / meanDistance
    }

    func apply(_ p: Point) -> Point { Point(x: (p.x - cx) * s, y: (p.y - cy) * s) }

    var matrix: [Double] { [s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1] }
    var inverseMatrix: [Double] { [1 / s, 0, cx, 0, 1 / s, cy, 0, 0, 1] }
}

/// Solves the square system `a · x = b` by Gaussian elimination with partial pivoting.
/// Nil when a pivot is negligible against the largest entry of `a` (singular or nearly so).
private func solveLinearSystem(_ a: [[Double]], _ b: [Double]) -> [Double]? {
    let n = b.count
    var m = a, v = b
    let scale = m.flatMap { $0 }.map(abs).max() ?? 0
    guard scale > 0, scale.isFinite else { return nil }
    let tolerance = 1e-12 * scale
    for col in 0..<n {
        var pivot = col
        for r in (col + 1)..<n where abs(m[r][col]) > abs(m[pivot][col]) { pivot = r }
        guard abs(m[pivot][col]) > tolerance else { return nil }
        if pivot != col { m.swapAt(pivot, col); v.swapAt(pivot, col) }
        for r in (col + 1)..<n {
            let f = m[r][col] / m[col][col]
            if f == 0 { continue }
            for j in col..<n { m[r][j] -= f * m[col][j] }
            v[r] -= f * v[col]
        }
    }
    var x = [Double](repeating: 0, count: n)
    for r in stride(from: n - 1, through: 0, by: -1) {
        var s = v[r]
        for j in (r + 1)..<n { s -= m[r][j] * x[j] }
        x[r] = s / m[r][r]
    }
    return x.allSatisfy(\.isFinite) ? x : nil
}
