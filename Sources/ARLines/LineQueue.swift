/// Whole lines waiting for a slow stream consumer, bounded in lines and bytes.
///
/// The line being sent (`current`) is never dropped or cut: it is finished before the next one
/// starts, so the consumer receives only whole lines, in order. When the queue is full, the oldest
/// waiting line is dropped (and counted): a consumer that falls behind gets the newest lines.
/// A plain value: the owner provides locking.
public struct LineQueue: Sendable {
    /// Most lines waiting (not counting the one being sent).
    public let maxLines: Int
    /// Most bytes waiting (not counting the line being sent).
    public let maxBytes: Int

    /// Waiting lines, oldest first, from `head` on (the front is consumed by moving `head`).
    private var lines: [[UInt8]] = []
    private var head = 0
    /// The line being sent and how many of its bytes were sent.
    private var current: (bytes: [UInt8], sent: Int)?

    /// Bytes of the waiting lines.
    public private(set) var queuedBytes = 0
    /// Lines dropped so far (pushed, never started).
    public private(set) var droppedLines: UInt64 = 0
    /// Lines sent whole so far.
    public private(set) var sentLines: UInt64 = 0

    /// A queue holding at most `maxLines` lines (at least 1) and `maxBytes` bytes; a single line
    /// larger than `maxBytes` is still accepted when nothing else waits.
    public init(maxLines: Int, maxBytes: Int = 64 << 20) {
        self.maxLines = max(1, maxLines)
        self.maxBytes = max(1, maxBytes)
    }

    /// Lines waiting, not counting the one being sent.
    public var queuedLines: Int { lines.count - head }

    /// Lines not sent yet: the waiting ones and the one being sent.
    public var unsentLines: Int { queuedLines + (current == nil ? 0 : 1) }

    /// Whether nothing waits and nothing is being sent.
    public var isEmpty: Bool { current == nil && queuedLines == 0 }

    /// Whether a line is partly sent.
    public var isMidLine: Bool { (current?.sent ?? 0) > 0 }

    /// Adds `line` (its bytes, newline included) at the end; returns how many older waiting lines
    /// were dropped to make room (0 when there was room).
    @discardableResult
    public mutating func push(_ line: [UInt8]) -> Int {
        var dropped = 0
        while queuedLines > 0, queuedLines + 1 > maxLines || queuedBytes + line.count > maxBytes {
            queuedBytes -= lines[head].count
            lines[head] = []
            head += 1
            dropped += 1
        }
        droppedLines += UInt64(dropped)
        lines.append(line)
        queuedBytes += line.count
        compact()
        return dropped
    }

    /// The bytes to send next: the rest of the line being sent, else the next waiting line (which
    /// becomes the line being sent); nil when nothing is left.
    public mutating func nextBytes() -> ArraySlice<UInt8>? {
        if current == nil {
            guard queuedLines > 0 else { return nil }
            let line = lines[head]
            lines[head] = []
            head += 1
            queuedBytes -= line.count
            compact()
            current = (line, 0)
        }
        guard let c = current else { return nil }
        return c.bytes[c.sent...]
    }

    /// Records that `count` more bytes of the line being sent were sent; the line counts as sent
    /// when its last byte is. Ignored when no line is being sent.
    public mutating func sent(_ count: Int) {
        guard var c = current, count > 0 else { return }
        c.sent = min(c.bytes.count, c.sent + count)
        if c.sent == c.bytes.count {
            current = nil
            sentLines += 1
        } else {
            current = c
        }
    }

    /// Drops every waiting line (not the one being sent); returns how many.
    @discardableResult
    public mutating func dropWaiting() -> Int {
        let n = queuedLines
        lines.removeAll()
        head = 0
        queuedBytes = 0
        droppedLines += UInt64(n)
        return n
    }

    /// Drops the line being sent too (the connection is closing with it unfinished); returns
    /// whether there was one.
    @discardableResult
    public mutating func dropCurrent() -> Bool {
        guard current != nil else { return false }
        current = nil
        droppedLines += 1
        return true
    }

    /// Frees the consumed front once it is half the storage.
    private mutating func compact() {
        if head > 32, head * 2 >= lines.count {
            lines.removeFirst(head)
            head = 0
        }
    }
}
