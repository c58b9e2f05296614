import Foundation
import Synchronization

/// A fixed set of threads that decode one batch at a time. `run(count:_:)` calls the body for every
/// index in `0..<count` and returns when all are done. Each worker (worker 0 is the calling thread)
/// takes the next index not yet taken, so a long region does not hold up the ones behind it: which
/// worker decodes which index depends on timing, and a body's result must depend on its index
/// only (each worker's decoder keeps scratch buffers, nothing that changes what it reads). Each
/// batch runs at the caller's nice value (Linux: per thread), so decodes started from a
/// low-priority thread stay below the streaming thread.
///
/// Background work (`startBackground`, `finishBackground`) is taken by the other workers whenever
/// no batch needs them: while the caller works alone between batches, and in a batch's tail.
final class DecodePool: @unchecked Sendable {  // Mutable state is only touched under `condition`; batches count atomically.
    /// Workers, the calling thread included (≥ 1).
    let workers: Int

    /// One batch's calls: handed out and counted atomically, so a worker holding an old batch
    /// can take nothing from a newer one.
    private final class Batch: @unchecked Sendable {  // Immutable but for its atomics; each call of `body` writes only its own index.
        let body: (Int, Int) -> Void
        let count: Int
        /// The caller's nice value, which the workers take on for this batch's calls.
        let niceness: Int32
        /// The next index not yet taken.
        let next = Atomic<Int>(0)
        /// Calls that have returned.
        let done = Atomic<Int>(0)

        init(count: Int, niceness: Int32, body: @escaping (Int, Int) -> Void) {
            (self.count, self.niceness, self.body) = (count, niceness, body)
        }

        var hasWork: Bool { next.load(ordering: .relaxed) < count }

        /// Takes the next index and calls the body with it as `worker`: whether there was one, and
        /// whether this call was the batch's last to return.
        func callNext(worker: Int) -> (called: Bool, completed: Bool) {
            let i = next.add(1, ordering: .relaxed).oldValue
            guard i < count else { return (false, false) }
            body(worker, i)
            return (true, done.add(1, ordering: .acquiringAndReleasing).newValue == count)
        }
    }

    private let condition = NSCondition()
    private var batch: Batch?
    private var background: Batch?
    private var stopping = false
    private var running = 0

    /// Whether the threads were started (on the first batch that needs them).
    private var started = false

    /// A pool of `workers` (1 = the caller only). Threads start with the first batch of two or more.
    init(workers: Int) {
        self.workers = max(1, workers)
    }

    /// Starts the threads; called under `condition`.
    private func startThreads() {
        started = true
        for k in 1..<workers {
            running += 1
            let thread = Thread { [self] in loop(worker: k) }
            thread.name = "arbarcode-decode"
            thread.start()
        }
    }

    /// `run(count:_:)` with the indices handed out costliest first by `cost` (ties in index order):
    /// a long call started last would leave the other workers idle at the end of the batch.
    func run(count: Int, costliestFirst cost: (Int) -> Double, _ body: @escaping (_ worker: Int, _ index: Int) -> Void) {
        guard workers > 1, count > 2 else { return run(count: count, body) }
        let order = Self.costliestFirst((0..<count).map(cost))
        run(count: count) { worker, k in body(worker, order[k]) }
    }

    /// The indices of `costs` from the largest cost down, ties in index order: the order a batch is
    /// best handed out in, so that no long call starts last.
    static func costliestFirst(_ costs: [Double]) -> [Int] {
        costs.indices.sorted { (costs[$0], $1) > (costs[$1], $0) }
    }

    /// Calls `body(worker, index)` for every index in `0..<count`; returns when every call has returned.
    func run(count: Int, _ body: @escaping (_ worker: Int, _ index: Int) -> Void) {
        guard workers > 1, count > 1 else {
            for i in 0..<count { body(0, i) }
            return
        }
        let b = publish(count: count, body, as: \.batch)
        while b.callNext(worker: 0).called {}
        wait(for: b)
        condition.lock()
        batch = nil
        condition.unlock()
    }

    /// Hands `body(worker, index)` for every index in `0..<count` to the other workers, to call
    /// when no batch needs them, and returns at once; `finishBackground` waits for the calls. At
    /// most one background job at a time; the caller must not touch what the calls write before then.
    func startBackground(count: Int, _ body: @escaping (_ worker: Int, _ index: Int) -> Void) {
        precondition(background == nil, "one background job at a time")
        guard workers > 1, count > 0 else {
            // Without other workers: called now, in index order.
            for i in 0..<count { body(0, i) }
            return
        }
        _ = publish(count: count, body, as: \.background)
    }

    /// `startBackground` of `body` for every index in `0..<count`, handed out costliest first by
    /// `cost` (ties in index order) so that no long call is the last, each call's result kept at its
    /// index. The returned function, to be called once (it is `finishBackground`), waits for the
    /// calls and returns their results in index order.
    func startBackground<T>(count: Int, costliestFirst cost: (Int) -> Double,
                            _ body: @escaping (_ worker: Int, _ index: Int) -> T) -> () -> [T] {
        let order = Self.costliestFirst((0..<count).map(cost))
        let out = UnsafeMutableBufferPointer<T?>.allocate(capacity: count)
        out.initialize(repeating: nil)
        startBackground(count: count) { worker, k in out[order[k]] = body(worker, order[k]) }  // each call writes its own index only
        return { [self] in
            finishBackground()
            defer {
                out.deinitialize()
                out.deallocate()
            }
            return out.map { $0! }
        }
    }

    /// Calls the background job's calls no worker has taken yet on this thread, then waits for
    /// those under way; returns at once when there is no background job.
    func finishBackground() {
        condition.lock()
        let b = background
        condition.unlock()
        guard let b else { return }
        while b.callNext(worker: 0).called {}
        wait(for: b)
        condition.lock()
        background = nil
        condition.unlock()
    }

    /// Makes a batch of `body` the pool's `slot` and wakes the workers.
    private func publish(count: Int, _ body: @escaping (Int, Int) -> Void,
                         as slot: ReferenceWritableKeyPath<DecodePool, Batch?>) -> Batch {
        let b = Batch(count: count, niceness: getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0), body: body)
        condition.lock()
        if !started { startThreads() }
        self[keyPath: slot] = b
        condition.broadcast()
        condition.unlock()
        return b
    }

    /// Returns when every call of `b` has returned.
    private func wait(for b: Batch) {
        condition.lock()
        while b.done.load(ordering: .acquiring) < b.count { condition.wait() }
        condition.unlock()
    }

    /// Ends the threads (after the calls under way, if any).
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    /// A worker: the batch's calls first, then the background job's one at a time (a batch
    /// published meanwhile is taken after the call under way), else sleeps.
    private func loop(worker: Int) {
        var nice: Int32 = 0
        condition.lock()
        while !stopping {
            guard let b = batch?.hasWork == true ? batch : background?.hasWork == true ? background : nil else {
                condition.wait()
                continue
            }
            let isBatch = b === batch
            condition.unlock()
            if b.niceness != nice {
                nice = b.niceness
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
            }
            var completed = false
            repeat {
                let (called, last) = b.callNext(worker: worker)
                completed = completed || last
                if !called { break }
            } while isBatch
            condition.lock()
            if completed { condition.broadcast() }
        }
        running -= 1
        condition.broadcast()
        condition.unlock()
    }
}
