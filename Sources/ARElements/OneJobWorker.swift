import ARBridge
import Foundation

/// A thread that runs one job at a time so the streaming thread never waits for it: `submit`
/// refuses work while busy or while a result waits (stale work is dropped, never queued), and the
/// result waits until `takeResult` collects it. `work` runs on the worker thread only.
final class OneJobWorker<Job, Output>: @unchecked Sendable {  // Job, result and flags are guarded by `condition`; `work` runs on the worker thread only.
    private let condition = NSCondition()
    private var job: Job?
    private var result: Output?
    private var busy = false
    private var stopping = false
    private var generation = 0
    private let work: (Job) -> Output
    private let finished = DispatchSemaphore(value: 0)

    /// The worker thread's nice value (Linux: per thread), above the streaming thread's 0: when
    /// the cores are busy, frames go first and the jobs wait.
    static var niceness: Int32 { 10 }

    /// Starts a thread named `name` (top -H, debuggers; Linux keeps 15 bytes) that runs `work`.
    init(name: String, work: @escaping (Job) -> Output) {
        self.work = work
        let thread = Thread { [self] in run(name) }
        thread.start()
    }

    /// Hands `job` to the worker; false (and nothing happens) while it is still busy or holds an
    /// uncollected result.
    func submit(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !busy, result == nil, !stopping else { return false }
        self.job = job
        busy = true
        condition.signal()
        return true
    }

    /// The finished result, if any (once).
    func takeResult() -> Output? {
        condition.lock()
        defer { condition.unlock() }
        let r = result
        result = nil
        return r
    }

    /// Drops the pending result and the one being computed (flush, seek, caps change).
    func cancel() {
        condition.lock()
        generation += 1
        result = nil
        // A job not yet picked up is dropped too: it belongs to frames before the flush.
        if job != nil {
            job = nil
            busy = false
        }
        condition.unlock()
    }

    /// Stops the thread, waiting for a job in progress to end.
    func stop() {
        condition.lock()
        stopping = true
        generation += 1
        condition.signal()
        condition.unlock()
        finished.wait()
    }

    private func run(_ name: String) {
        ar_thread_set_name(name)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(ar_thread_id()), Self.niceness)
        while true {
            condition.lock()
            while job == nil && !stopping { condition.wait() }
            if stopping { condition.unlock(); break }
            let job = self.job!
            self.job = nil
            let mine = generation
            condition.unlock()
            let output = work(job)
            condition.lock()
            busy = false
            if mine == generation { result = output }
            condition.unlock()
        }
        finished.signal()
    }
}
