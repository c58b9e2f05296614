import ARCore
import XCTest

final class OrderStatisticTests: XCTestCase {
    /// Every rank of arrays with runs of equal values, sorted, reversed and shuffled ones among
    /// them, is the value a sort puts there, and the array is split around it.
    func testEveryRankIsTheValueASortPutsThere() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return seed >> 33 }
        for count in [1, 2, 3, 5, 16, 100, 257] {
            let random = (0..<count).map { _ in Double(next() % 7) }
            let shapes = [random, random.sorted(), Array(random.sorted().reversed()),
                          [Double](repeating: 4, count: count), (0..<count).map { Double($0 % 3) - 0.5 }]
            for values in shapes {
                let sorted = values.sorted()
                for k in 0..<count {
                    var a = values
                    XCTAssertEqual(a.orderStatistic(k), sorted[k], "rank \(k) of \(values)")
                    XCTAssertEqual(a.sorted(), sorted, "a permutation")
                    XCTAssertTrue(a[..<k].allSatisfy { $0 <= a[k] } && a[(k + 1)...].allSatisfy { $0 >= a[k] })
                }
            }
        }
    }

    /// The least and greatest within each window are those of the window itself, for windows
    /// reaching past both ends, runs of equal values, and rising and falling values.
    func testSlidingExtremesAreEachWindowsOwn() {
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 { seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return seed >> 33 }
        for count in [1, 2, 3, 7, 50, 301] {
            let random = (0..<count).map { _ in Double(next() % 9) }
            for values in [random, random.sorted(), Array(random.sorted().reversed()), [Double](repeating: 2, count: count)] {
                for radius in [0, 1, 2, 5, 400] {
                    let (lowest, highest) = values.slidingExtremes(radius: radius)
                    for i in values.indices {
                        let window = values[max(0, i - radius)...min(count - 1, i + radius)]
                        XCTAssertEqual(lowest[i], window.min(), "least at \(i), radius \(radius) of \(values)")
                        XCTAssertEqual(highest[i], window.max(), "greatest at \(i), radius \(radius) of \(values)")
                    }
                }
            }
        }
        XCTAssertTrue([Double]().slidingExtremes(radius: 3).lowest.isEmpty)
    }
}
