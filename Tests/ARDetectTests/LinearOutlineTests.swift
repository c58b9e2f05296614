import ARCore
@testable import ARDetect
import XCTest

final class LinearOutlineTests: XCTestCase {
    /// The running-sum correlation (its covariance four samples at a time) equals the direct one
    /// (window mean subtracted, both norms) at every shift, for windows of any length, and a flat
    /// window scores −1.
    func testCorrelationsFromRunningSumsEqualTheDirectOnes() {
        for length in [300, 301, 7, 2] {
            let a = (0..<length).map { (i: Int) -> Double in Double((i * 37 + (i / 5) * 11) % 97) }
            let mean = a.reduce(0, +) / Double(a.count)
            let a0 = a.map { $0 - mean }, aNorm = a0.reduce(0) { $0 + $1 * $1 }
            let texture = (0..<340).map { (i: Int) -> Double in Double((i * 53 + 7) % 89) + 100 }
            let b = texture + [Double](repeating: 42, count: length)
            let shifts = 341
            let fast = LinearOutline.normalisedCorrelations(a0, aNorm: aNorm, in: b, shifts: shifts)
            for start in 0..<shifts {
                let window = Array(b[start..<(start + a.count)])
                let bMean = window.reduce(0, +) / Double(window.count)
                var cov = 0.0, bNorm = 0.0
                for i in a.indices { cov += a0[i] * (window[i] - bMean); bNorm += (window[i] - bMean) * (window[i] - bMean) }
                let direct = bNorm > 0 ? cov / (aNorm * bNorm).squareRoot() : -1
                XCTAssertEqual(fast[start], direct, accuracy: 1e-9, "length \(length), shift \(start)")
            }
            XCTAssertEqual(fast[340], -1, "a flat window")
        }
        XCTAssertEqual(LinearOutline.normalisedCorrelations([], aNorm: 0, in: [1, 2, 3], shifts: 2), [-1, -1], "no samples")
    }
}
