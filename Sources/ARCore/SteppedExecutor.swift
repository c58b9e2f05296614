import Foundation

/// A ``DecodeExecutor`` the caller steps, for deterministic tests (like swift-nio's
/// `EmbeddedEventLoop`): work waits until `runNext`, which runs it on the caller's thread.
public final class SteppedExecutor: DecodeExecutor, @unchecked Sendable {  // `queue` and `isShutDown` are guarded by `lock`.
    private let lock = NSLock()
    private var queue: [@Sendable () -> Void] = []
    private var isShutDown = false

    public init() {}

    /// Queues `work` (dropped after `shutdown`).
    public func execute(_ work: @escaping @Sendable () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        if !isShutDown { queue.append(work) }
    }

    /// Takes no more work; nothing runs unless stepped, so nothing is in progress.
    public func shutdown() {
        lock.lock()
        defer { lock.unlock() }
        isShutDown = true
    }

    /// Work handed over and not run yet.
    public var pending: Int {
        lock.lock()
        defer { lock.unlock() }
        return queue.count
    }

    /// Whether `shutdown` was called.
    public var shutDown: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isShutDown
    }

    /// Runs the oldest waiting work on the caller's thread; false when none waits.
    @discardableResult
    public func runNext() -> Bool {
        lock.lock()
        guard !queue.isEmpty else { lock.unlock(); return false }
        let work = queue.removeFirst()
        lock.unlock()
        work()
        return true
    }
}
