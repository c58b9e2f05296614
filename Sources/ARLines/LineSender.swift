import Foundation

/// Sends whole lines to a connected stream socket from a thread of its own, so a slow consumer
/// never blocks the caller: lines wait in a bounded `LineQueue` (the oldest dropped when it is
/// full), and the thread finishes each line before starting the next.
final class LineSender: @unchecked Sendable {  // Mutable state is guarded by `condition`; `fd` is owned.
    private let fd: Int32
    private let name: String
    private let condition = NSCondition()
    private var queue: LineQueue
    /// Why the connection failed, once it has (set by the thread).
    private var failure: String?
    /// Set when closing: the thread exits once the queue is empty or the connection fails.
    private var closing = false
    private let exited = DispatchSemaphore(value: 0)
    /// Whether `close` ran (it waits for the thread once).
    private var closed = false

    /// Starts sending to `fd` (a connected stream socket, closed by this object); `name` names the
    /// destination in errors; at most `maxQueuedLines` lines and `maxQueuedBytes` bytes wait.
    init(fd: Int32, name: String, maxQueuedLines: Int, maxQueuedBytes: Int) {
        self.fd = fd
        self.name = name
        queue = LineQueue(maxLines: maxQueuedLines, maxBytes: maxQueuedBytes)
        let thread = Thread { [self] in run() }
        thread.name = "arexport-send"
        thread.start()
    }

    deinit {
        Glibc.close(fd)
    }

    /// Counts: lines sent whole, lines dropped, lines not sent yet (the one being sent included).
    var counts: (sent: UInt64, dropped: UInt64, unsent: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (queue.sentLines, queue.droppedLines, queue.unsentLines)
    }

    /// Queues `line` (newline included); returns how many older lines were dropped for room.
    /// Throws when the connection has failed (the consumer went away).
    func enqueue(_ line: [UInt8]) throws -> Int {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw ExportDestinationError("Could not send to \(name): \(failure)") }
        let dropped = queue.push(line)
        condition.broadcast()
        return dropped
    }

    /// Waits until every queued line is sent, for at most `timeoutSeconds`; lines still waiting
    /// then are dropped (the line being sent is kept). Returns how many were dropped; throws when
    /// the connection failed.
    func drain(timeoutSeconds: Double) throws -> Int {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        while !queue.isEmpty, failure == nil {
            if !condition.wait(until: deadline) { break }
        }
        if let failure { throw ExportDestinationError("Could not send to \(name): \(failure)") }
        return queue.dropWaiting()
    }

    /// Stops: drops the waiting lines, gives the line being sent up to `timeoutSeconds` to be
    /// finished, then shuts the connection down (cutting that line, counted as dropped, only if
    /// the consumer took none of it in time) and waits for the thread. Returns the lines dropped.
    func close(timeoutSeconds: Double) -> Int {
        condition.lock()
        guard !closed else {
            condition.unlock()
            return 0
        }
        closed = true
        var dropped = queue.dropWaiting()
        closing = true
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        while !queue.isEmpty, failure == nil {
            if !condition.wait(until: deadline) { break }
        }
        if queue.dropCurrent() { dropped += 1 }
        condition.unlock()
        // Wakes a send blocked on a consumer that reads nothing.
        shutdown(fd, Int32(SHUT_RDWR))
        exited.wait()
        return dropped
    }

    private func run() {
        condition.lock()
        while true {
            while queue.isEmpty, !closing { condition.wait() }
            guard failure == nil, let chunk = queue.nextBytes() else { break }
            condition.unlock()
            let n = chunk.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            let error = errno
            condition.lock()
            if n > 0 {
                queue.sent(n)
            } else if n < 0, error == EINTR {
                continue
            } else if !closing {
                failure = n == 0 ? "the connection closed" : String(cString: strerror(error))
            } else {
                break
            }
            condition.broadcast()
        }
        condition.broadcast()
        condition.unlock()
        exited.signal()
    }
}
