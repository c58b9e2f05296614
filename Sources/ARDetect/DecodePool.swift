import Foundation
import Synchronization

/// A fixed set of threads that decode one batch at a time. `run(count:_:)` calls the body for every
/// index in `0..<count` and returns when all are done. Each worker (worker 0 is the calling thread)
/// takes the next index not yet taken, so a long region does not hold up the ones behind it: which
/// worker decodes which index depends on timing, and a body's result must depend on its index
/// only (each worker's decoder keeps scratch buffers, nothing that changes what it reads). Each
/// batch runs at the caller's nice value (Linux: per thread), so decodes started from a
/// low-priority thread stay below the streaming thread.
final class DecodePool: @unchecked Sendable {  // Mutable state is only touched under `condition`; `next` is atomic.
    /// Workers, the calling thread included (≥ 1).
    let workers: Int

    private let condition = NSCondition()
    private var body: ((Int, Int) -> Void)?
    private var count = 0
    private var niceness: Int32 = 0
    private var generation = 0
    private var pending = 0
    private var stopping = false
    private var running = 0
    /// The next index of the batch in progress not yet taken by a worker.
    private let next = Atomic<Int>(0)

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
        condition.lock()
        if !started { startThreads() }
        self.body = body
        self.count = count
        niceness = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        generation += 1
        pending = workers - 1
        next.store(0, ordering: .relaxed)
        condition.broadcast()
        condition.unlock()
        drain(worker: 0, count: count, body)
        condition.lock()
        while pending > 0 { condition.wait() }
        self.body = nil
        condition.unlock()
    }

    /// Calls `body(worker, i)` for each index `i` this worker takes, until none is left.
    private func drain(worker: Int, count: Int, _ body: (Int, Int) -> Void) {
        while true {
            let i = next.add(1, ordering: .relaxed).oldValue
            guard i < count else { return }
            body(worker, i)
        }
    }

    /// Ends the threads (after the batch in progress, if any).
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func loop(worker: Int) {
        var seen = 0
        var nice: Int32 = 0
        condition.lock()
        while true {
            while generation == seen && !stopping { condition.wait() }
            if stopping { break }
            seen = generation
            let body = self.body!, count = self.count
            if niceness != nice {
                nice = niceness
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
            }
            condition.unlock()
            drain(worker: worker, count: count, body)
            condition.lock()
            pending -= 1
            condition.broadcast()
        }
        running -= 1
        condition.broadcast()
        condition.unlock()
    }
}
