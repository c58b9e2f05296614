import Foundation

/// A bounded first-in first-out queue of messages kept in a directory, one file per message, so
/// that messages wait out an outage of their destination and survive a restart of their writer.
///
/// A message is appended whole or not at all: it is written to a temporary file that is renamed to
/// `<sequence>.msg` (20 digits) once complete; a leftover temporary file is deleted when the queue
/// is opened. Sequence numbers grow by one per message and continue after a reopen. Messages are
/// read in order and removed one by one (out of order too) once delivered. When appending would
/// take the queue past `maxBytes`, the new message is refused (the waiting ones keep their order)
/// and counted in `refusedMessages`.
///
/// One process at a time: opening takes an exclusive `flock` on `<directory>/lock`, released by
/// `close()` or deinit. Not thread-safe: the owner provides locking.
public final class DiskQueue {
    /// One waiting message: its sequence number and size in bytes.
    public struct Entry: Equatable, Sendable {
        public var sequence: UInt64
        public var bytes: Int
    }

    /// The directory holding the messages.
    public let directory: String
    /// Most bytes of waiting messages (their payloads; file system overhead not counted).
    public let maxBytes: Int
    /// Waiting messages, oldest first, from `head` on.
    private var entries: [Entry] = []
    private var head = 0
    /// Bytes of the waiting messages.
    public private(set) var queuedBytes = 0
    /// Messages refused because the queue was full, since opening.
    public private(set) var refusedMessages: UInt64 = 0
    /// Messages whose file could not be read back (removed), since opening.
    public private(set) var unreadableMessages: UInt64 = 0
    private var nextSequence: UInt64 = 1
    private var lockFD: Int32 = -1

    /// Opens (creating it and its parents when missing) the queue in `directory`, holding at most
    /// `maxBytes` bytes, and loads the messages a previous writer left there.
    /// Throws a message naming the directory when it cannot be created, read or locked.
    public init(directory: String, maxBytes: Int) throws {
        self.directory = directory
        self.maxBytes = max(1, maxBytes)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ExportDestinationError("Could not create the queue directory '\(directory)': \(Self.reason(error))")
        }
        lockFD = open(directory + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lockFD >= 0 else {
            throw ExportDestinationError("Could not open '\(directory)/lock': \(String(cString: strerror(errno)))")
        }
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(lockFD)
            throw ExportDestinationError("The queue directory '\(directory)' is in use by another writer")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            close()
            throw ExportDestinationError("Could not read the queue directory '\(directory)': \(Self.reason(error))")
        }
        for name in names where name.hasSuffix(".tmp") {
            unlink(directory + "/" + name)
        }
        for name in names where name.hasSuffix(".msg") {
            guard let sequence = UInt64(name.dropLast(4)) else { continue }
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0 else { continue }
            entries.append(Entry(sequence: sequence, bytes: Int(info.st_size)))
            queuedBytes += Int(info.st_size)
        }
        entries.sort { $0.sequence < $1.sequence }
        nextSequence = (entries.last?.sequence ?? 0) + 1
    }

    deinit { close() }

    /// Releases the directory's lock; the messages stay for the next writer.
    public func close() {
        if lockFD >= 0 { Glibc.close(lockFD) }
        lockFD = -1
    }

    /// Messages waiting.
    public var count: Int { entries.count - head }

    /// The waiting messages, oldest first.
    public var waiting: ArraySlice<Entry> { entries[head...] }

    /// Appends `message`; returns its sequence number, or nil when it would take the queue past
    /// `maxBytes` while other messages wait (refused and counted; a message alone is always
    /// accepted). Throws when the file cannot be written (the queue is left unchanged).
    @discardableResult
    public func append(_ message: [UInt8]) throws -> UInt64? {
        if count > 0, queuedBytes + message.count > maxBytes {
            refusedMessages += 1
            return nil
        }
        let sequence = nextSequence
        let temporary = directory + "/\(sequence).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ExportDestinationError("Could not write to the queue directory '\(directory)': \(String(cString: strerror(errno)))")
        }
        var written = 0
        while written < message.count {
            let n = message[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let reason = String(cString: strerror(errno))
                Glibc.close(fd)
                unlink(temporary)
                throw ExportDestinationError("Could not write to the queue directory '\(directory)': \(reason)")
            }
            written += n
        }
        Glibc.close(fd)
        guard rename(temporary, path(sequence)) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ExportDestinationError("Could not write to the queue directory '\(directory)': \(reason)")
        }
        nextSequence += 1
        entries.append(Entry(sequence: sequence, bytes: message.count))
        queuedBytes += message.count
        return sequence
    }

    /// The first waiting message whose sequence number is above `sequence` (the oldest when nil),
    /// with its bytes; nil when there is none. A message whose file cannot be read any more (deleted
    /// by hand) is removed and counted in `unreadableMessages`.
    public func message(after sequence: UInt64?) -> (sequence: UInt64, bytes: [UInt8])? {
        while true {
            let index = sequence.map { s in firstIndex { $0.sequence > s } } ?? head
            guard index < entries.count else { return nil }
            let entry = entries[index]
            if let data = FileManager.default.contents(atPath: path(entry.sequence)) { return (entry.sequence, Array(data)) }
            remove(entry.sequence)
            unreadableMessages += 1
        }
    }

    /// Removes the message `sequence` (delivered); returns whether it was waiting.
    @discardableResult
    public func remove(_ sequence: UInt64) -> Bool {
        let index = firstIndex { $0.sequence >= sequence }
        guard index < entries.count, entries[index].sequence == sequence else { return false }
        unlink(path(sequence))
        queuedBytes -= entries[index].bytes
        if index == head {
            head += 1
            if head > 64, head * 2 >= entries.count {
                entries.removeFirst(head)
                head = 0
            }
        } else {
            entries.remove(at: index)
        }
        return true
    }

    private func path(_ sequence: UInt64) -> String {
        let digits = String(sequence)
        return directory + "/" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".msg"
    }

    /// Index of the first waiting entry matching `predicate` (sequence numbers are sorted).
    private func firstIndex(_ predicate: (Entry) -> Bool) -> Int {
        var low = head, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if predicate(entries[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    private static func reason(_ error: Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
