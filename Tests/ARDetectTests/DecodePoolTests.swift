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

    /// A frame that cannot wait for the whole scan hands its regions out cut ones first, then the
    /// cheapest first (the most read by the end of its wait); a whole scan the costliest first.
    func testRegionsAreHandedOutCheapestFirstOnAFrameThatCannotWait() {
        let costs = [5.0, 1.0, 9.0, 3.0, 1.0], cut = [false, false, false, true, false]
        func order(cutting: Bool) -> [Int] {
            DecodePool.costliestFirst(costs.indices.map {
                BarcodeDetector.firstDecodeOrder(cost: costs[$0], cutFirst: cutting && cut[$0], cutting: cutting)
            })
        }
        XCTAssertEqual(order(cutting: true), [3, 1, 4, 0, 2])
        XCTAssertEqual(order(cutting: false), [2, 0, 3, 1, 4])
    }

    /// Background work is taken by another worker while the caller does something else, and
    /// `finishBackground` returns once every call has returned, batches run meanwhile included.
    func testABackgroundJobRunsOnAnotherWorkerBesideTheCallersBatches() {
        let pool = DecodePool(workers: 3)
        defer { pool.stop() }
        let taken = DispatchSemaphore(value: 0)
        let tally = Tally(40), workers = Tally(3)
        pool.startBackground(count: 40) { worker, i in
            workers.called(worker)
            tally.called(i)
            if i == 0 { taken.signal() }
        }
        // The caller waits outside any batch: only another worker can make the first call
        // (the timeout only keeps a broken pool from hanging the suite).
        XCTAssertEqual(taken.wait(timeout: .now() + 30), .success, "no worker took the background job")
        for count in [17, 2, 5] {
            let batch = Tally(count)
            pool.run(count: count) { _, i in batch.called(i) }
            XCTAssertEqual(batch.values, [Int](repeating: 1, count: count))
        }
        pool.finishBackground()
        XCTAssertEqual(tally.values, [Int](repeating: 1, count: 40))
        XCTAssertGreaterThan(workers.values[1] + workers.values[2], 0)
        pool.finishBackground()  // none left: returns at once
    }

    /// With the caller alone, a background job is done before `startBackground` returns.
    func testWithOneWorkerABackgroundJobRunsAtOnceInOrder() {
        let pool = DecodePool(workers: 1)
        var order: [Int] = []
        pool.startBackground(count: 4) { worker, i in
            XCTAssertEqual(worker, 0)
            order.append(i)
        }
        XCTAssertEqual(order, [0, 1, 2, 3])
        pool.finishBackground()
    }

    /// A background job with results: handed out costliest first, each result back at its own
    /// index once every call has returned, with the caller alone or with other workers.
    func testABackgroundJobsResultsComeBackInIndexOrder() {
        let costs: [Double] = [1, 5, 2, 5, 0, 3]
        for workers in [1, 3] {
            let pool = DecodePool(workers: workers)
            defer { pool.stop() }
            let taken = Tally(costs.count)
            let finish = pool.startBackground(count: costs.count, costliestFirst: { costs[$0] }) { _, i -> Int in
                taken.called(i)
                usleep(1000)
                return i * 10
            }
            XCTAssertEqual(finish(), [0, 10, 20, 30, 40, 50], "\(workers) workers")
            XCTAssertEqual(taken.values, [Int](repeating: 1, count: costs.count))
        }
        // The caller alone takes them in the costliest-first order.
        let pool = DecodePool(workers: 1)
        var order: [Int] = []
        _ = pool.startBackground(count: costs.count, costliestFirst: { costs[$0] }) { _, i in order.append(i) }()
        XCTAssertEqual(order, [1, 3, 5, 2, 0, 4])
    }

    func testTheCostliestFirstOrderBreaksTiesByIndex() {
        XCTAssertEqual(DecodePool.costliestFirst([1, 3, 2, 3, 0]), [1, 3, 2, 0, 4])
        XCTAssertEqual(DecodePool.costliestFirst([]), [])
    }
}
