import ARCore

/// Robust fits of a plane motion to point correspondences (frame pixels).
public enum MotionFit {
    /// A similarity (rotation, uniform scale, translation) as a homography, from ≥ 2 pairs by
    /// deterministic RANSAC (hypotheses from fixed point pairs), refined by least squares on the
    /// inliers (pairs within `threshold` pixels), and — when `allowHomography` and at least 12
    /// inliers spread over the points — by a least-squares homography if that fits better.
    /// Nil when fewer than `minInliers` pairs agree.
    public static func robust(from source: [Point], to target: [Point], threshold: Double = 1.0, minInliers: Int = 4,
                              allowHomography: Bool = true) -> (motion: Homography, inliers: [Int])? {
        let n = min(source.count, target.count)
        guard n >= 2 else { return nil }
        var best: [Int] = []
        var hypotheses = 0
        // Pairs spread over the list: (i, i + n/2), (i, i + n/3), … deterministic.
        outer: for step in [n / 2, n / 3, n / 4, 1] where step > 0 {
            for i in 0..<n {
                let j = (i + step) % n
                guard i != j, let s = similarity([source[i], source[j]], [target[i], target[j]]) else { continue }
                let inliers = (0..<n).filter { s.apply(source[$0]).distance(to: target[$0]) <= threshold }
                if inliers.count > best.count { best = inliers }
                hypotheses += 1
                if hypotheses >= 48 || best.count == n { break outer }
            }
        }
        guard best.count >= max(2, minInliers) else { return nil }
        guard var model = similarity(best.map { source[$0] }, best.map { target[$0] }) else { return nil }
        var inliers = (0..<n).filter { model.apply(source[$0]).distance(to: target[$0]) <= threshold }
        guard inliers.count >= max(2, minInliers) else { return nil }
        if let refined = similarity(inliers.map { source[$0] }, inliers.map { target[$0] }) { model = refined }
        if allowHomography, inliers.count >= 12,
           let h = Homography(from: inliers.map { source[$0] }, to: inliers.map { target[$0] }) {
            let err = { (m: Homography) in inliers.map { m.apply(source[$0]).distance(to: target[$0]) }.reduce(0, +) }
            if err(h) < 0.7 * err(model) {
                model = h
                inliers = (0..<n).filter { model.apply(source[$0]).distance(to: target[$0]) <= threshold }
            }
        }
        return (model, inliers)
    }

    /// Least-squares similarity mapping `source` onto `target` (≥ 2 pairs, not all at one point).
    public static func similarity(_ source: [Point], _ target: [Point]) -> Homography? {
        let n = Double(source.count)
        guard source.count >= 2, source.count == target.count else { return nil }
        let cs = source.reduce(Point(x: 0, y: 0), +) * (1 / n), ct = target.reduce(Point(x: 0, y: 0), +) * (1 / n)
        // z' = a·z + b with complex a = (a1 + i·a2).
        var num1 = 0.0, num2 = 0.0, den = 0.0
        for (s, t) in zip(source, target) {
            let p = s - cs, q = t - ct
            num1 += p.x * q.x + p.y * q.y
            num2 += p.x * q.y - p.y * q.x
            den += p.x * p.x + p.y * p.y
        }
        guard den > 1e-9 else { return nil }
        let a1 = num1 / den, a2 = num2 / den
        let tx = ct.x - (a1 * cs.x - a2 * cs.y), ty = ct.y - (a2 * cs.x + a1 * cs.y)
        return Homography(matrix: [a1, -a2, tx, a2, a1, ty, 0, 0, 1])
    }
}
