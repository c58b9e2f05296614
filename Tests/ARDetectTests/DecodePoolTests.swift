@testable import ARDetect
import Foundation
import XCTest

/// The decode threads' batches: every index once, whatever order they are handed out in.
final class DecodePoolTests: XCTestCase {
    /// Calls per index, counted from several threads.
    private final class Tally: @unchecked Sendable {  // `counts` is only touched under `lock`.
        private let lock = NSLock()
        private var counts: [Int]
        init(_ n: Int) { counts = [Int](repeating: 0, count: n) }
        func called(_ i: Int) { lock.withLock { counts[i] += 1 } }
        var values: [Int] { lock.withLock { counts } }
    }

    func testACostliestFirstBatchCallsEveryIndexOnce() {
        let pool = DecodePool(workers: 3)
        defer { pool.stop() }
        for count in [0, 1, 2, 3, 17] {
            let tally = Tally(count)
            // Costs out of index order, with ties.
            pool.run(count: count, costliestFirst: { Double(($0 * 7) % 5) }) { worker, i in
                XCTAssertLessThan(worker, 3)
                tally.called(i)
            }
            XCTAssertEqual(tally.values, [Int](repeating: 1, count: count), "count \(count)")
        }
    }

    func testTheCostliestFirstOrderBreaksTiesByIndex() {
        XCTAssertEqual(DecodePool.costliestFirst([1, 3, 2, 3, 0]), [1, 3, 2, 0, 4])
        XCTAssertEqual(DecodePool.costliestFirst([]), [])
    }
}
