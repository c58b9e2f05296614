import Foundation

/// A fixed set of threads that decode one batch at a time. `run(count:_:)` calls the body for every
/// index in `0..<count`, index `i` on worker `i % workers` (worker 0 is the calling thread), and
/// returns when all are done: which worker decodes which region never depends on timing. Each
/// batch runs at the caller's nice value (Linux: per thread), so decodes started from a
/// low-priority thread stay below the streaming thread.
final class DecodePool: @unchecked Sendable {  // Mutable state is only touched under `condition`.
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
        condition.broadcast()
        condition.unlock()
        var i = 0
        while i < count { body(0, i); i += workers }
        condition.lock()
        while pending > 0 { condition.wait() }
        self.body = nil
        condition.unlock()
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
            var i = worker
            while i < count { body(worker, i); i += workers }
            condition.lock()
            pending -= 1
            condition.broadcast()
        }
        running -= 1
        condition.broadcast()
        condition.unlock()
    }
}
