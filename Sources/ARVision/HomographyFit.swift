import ARCore

/// Robust homography fit to point correspondences: deterministic RANSAC on 4-point samples, then
/// least squares on the inliers. Tilts of any angle fit (unlike `MotionFit`, which hypothesises
/// similarities first). Pure and deterministic: samples come from a fixed-seed generator.
public enum HomographyFit {
    /// The homography mapping `source` onto `target` (≥ 4 pairs) that most pairs agree with
    /// (within `threshold` of the target, same units), refined on those pairs, with their indices;
    /// nil when fewer than `minInliers` agree.
    public static func robust(from source: [Point], to target: [Point], threshold: Double, minInliers: Int,
                              iterations: Int = 96) -> (homography: Homography, inliers: [Int])? {
        let n = min(source.count, target.count)
        guard n >= 4 else { return nil }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ bound: Int) -> Int {
            // SplitMix64.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        func inliers(_ h: Homography) -> [Int] {
            (0..<n).filter { h.apply(source[$0]).distance(to: target[$0]) <= threshold }
        }
        var best: [Int] = []
        for _ in 0..<iterations {
            var pick: [Int] = []
            while pick.count < 4 {
                let k = random(n)
                if !pick.contains(k) { pick.append(k) }
            }
            guard let s = Quad(pick.map { source[$0] }), let t = Quad(pick.map { target[$0] }),
                  let h = Homography(from: s, to: t) else { continue }
            let agree = inliers(h)
            if agree.count > best.count {
                best = agree
                if best.count == n { break }
            }
        }
        guard best.count >= max(4, minInliers) else { return nil }
        var model: Homography?
        for _ in 0..<2 {
            guard let h = Homography(from: best.map { source[$0] }, to: best.map { target[$0] }) else { break }
            model = h
            let agree = inliers(h)
            if agree.count < max(4, minInliers) { break }
            best = agree
        }
        guard let model, best.count >= max(4, minInliers) else { return nil }
        return (model, best)
    }
}
