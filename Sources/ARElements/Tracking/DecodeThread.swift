import ARCore
import COSShim
import Foundation

/// The decode executor of the elements: one thread of its own running work in submission order,
/// named for `top -H` and debuggers, and below the streaming thread's priority (Linux: nice per
/// thread) so that when the cores are busy, frames go first and decodes wait.
final class DecodeThread: DecodeExecutor, @unchecked Sendable {  // `queue` and `stopping` are guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the thread: `name` (Linux keeps 15 bytes), `niceness` its nice value (0 to 19).
    init(name: String, niceness: Int32) {
        let thread = Thread { [self] in run(name: name, niceness: niceness) }
        thread.start()
    }

    func execute(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.append(work)
        condition.signal()
        condition.unlock()
    }

    /// Runs what was queued, then ends the thread; returns when it has ended. Once only.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
        finished.wait()
    }

    private func run(name: String, niceness: Int32) {
        COSShim_set_thread_name(name)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(COSShim_gettid()), niceness)
        while true {
            condition.lock()
            while queue.isEmpty && !stopping { condition.wait() }
            if queue.isEmpty { condition.unlock(); break }
            let work = queue.removeFirst()
            condition.unlock()
            work()
        }
        finished.signal()
    }
}
