import Foundation

/// An open `ExportDestination` that takes whole lines and delivers them whole or not at all.
///
/// - Files and standard output: each line written and flushed at once (a consumer can `tail -f`).
/// - UDP: one datagram per line, sent without waiting; a line longer than `maxDatagramBytes`
///   is not sent (never cut), nor is one the socket has no room for or nobody listens to.
/// - TCP: lines wait in a bounded queue (`maxQueuedLines`) sent by a thread of its own, so a
///   slow consumer never blocks the caller; a line is finished before the next starts, and when
///   the queue is full the oldest waiting line is dropped.
///
/// Every line not delivered is counted (`stats`) and reported by `write` or `drain`.
public final class LineWriter {
    /// Largest line sent as a UDP datagram, bytes (newline included): the most one datagram can
    /// carry over IPv4. Longer lines are dropped, never truncated.
    public static let maxDatagramBytes = 65_507
    /// Most bytes waiting for a TCP consumer.
    public static let maxQueuedBytes = 64 << 20

    private enum Target {
        case stream(UnsafeMutablePointer<FILE>)
        case datagram(Int32)
        case connection(LineSender)
    }

    private let target: Target
    /// The destination, for messages (`tcp://HOST:PORT`, a path, `standard output`).
    public let name: String
    private var written: UInt64 = 0
    private var dropped: UInt64 = 0

    /// Opens `destination`; a TCP destination keeps at most `maxQueuedLines` lines waiting.
    /// Throws a message naming the destination and the system's reason.
    public init(_ destination: ExportDestination, maxQueuedLines: Int = 300) throws {
        switch destination {
        case .standardOutput:
            // A stream of its own on standard output's descriptor (flushed after every line).
            guard let f = fdopen(dup(STDOUT_FILENO), "w") else {
                throw ExportDestinationError("Could not write to standard output: \(String(cString: strerror(errno)))")
            }
            target = .stream(f)
            name = "standard output"
        case .file(let path):
            guard let f = fopen(path, "w") else {
                throw ExportDestinationError("Could not open '\(path)' for writing: \(String(cString: strerror(errno)))")
            }
            target = .stream(f)
            name = path
        case .udp(let host, let port):
            target = .datagram(try Self.connect(host: host, port: port, datagram: true))
            name = "udp://\(host):\(port)"
        case .tcp(let host, let port):
            let fd = try Self.connect(host: host, port: port, datagram: false)
            name = "tcp://\(host):\(port)"
            target = .connection(LineSender(fd: fd, name: name, maxQueuedLines: maxQueuedLines,
                                            maxQueuedBytes: LineWriter.maxQueuedBytes))
        case .mqtt(let host, let port, let topic):
            // Messages go through an MQTT client and an on-disk queue (ARMQTT), not a line stream.
            throw ExportDestinationError("mqtt://\(host):\(port)/\(topic) is not a line stream: publish with an MQTT client")
        }
    }

    deinit {
        switch target {
        case .stream(let f): fclose(f)
        case .datagram(let fd): Glibc.close(fd)
        case .connection(let sender): _ = sender.close(timeoutSeconds: 0)
        }
    }

    /// Lines delivered whole, dropped, and not sent yet (TCP: waiting or being sent).
    public struct Stats: Equatable, Sendable {
        /// Lines delivered whole (written to the file, sent as a datagram, or sent over TCP).
        public var written: UInt64
        /// Lines not delivered, and never to be.
        public var dropped: UInt64
        /// Lines waiting for a TCP consumer or being sent to it.
        public var unsent: Int

        public init(written: UInt64, dropped: UInt64, unsent: Int) {
            self.written = written
            self.dropped = dropped
            self.unsent = unsent
        }
    }

    public var stats: Stats {
        if case .connection(let sender) = target {
            let c = sender.counts
            return Stats(written: c.sent, dropped: c.dropped, unsent: c.unsent)
        }
        return Stats(written: written, dropped: dropped, unsent: 0)
    }

    /// What became of a line.
    public enum Outcome: Equatable, Sendable {
        /// Written (files, UDP) or queued (TCP), and no other line was dropped.
        case written
        /// `count` lines were dropped, this one or (TCP) older waiting ones, and why.
        case dropped(count: Int, reason: String)
    }

    /// Writes `line` (without its newline) followed by a newline. Never blocks on a socket.
    /// Throws when the destination is gone (file error, connection closed or refused).
    public func write(_ line: String) throws -> Outcome {
        var bytes = Array(line.utf8)
        bytes.append(0x0a)
        switch target {
        case .stream(let f):
            guard fwrite(bytes, 1, bytes.count, f) == bytes.count, fflush(f) == 0 else {
                throw ExportDestinationError("Could not write to \(name): \(String(cString: strerror(errno)))")
            }
            written += 1
            return .written
        case .datagram(let fd):
            let outcome = try Self.sendDatagram(bytes, fd: fd, name: name)
            if case .dropped = outcome { dropped += 1 } else { written += 1 }
            return outcome
        case .connection(let sender):
            let n = try sender.enqueue(bytes)
            return n == 0 ? .written : .dropped(count: n, reason: "\(name) is not reading fast enough (the queue was full)")
        }
    }

    /// Waits for a TCP consumer to take every waiting line, for at most `timeoutSeconds`; lines
    /// still waiting then are dropped. Returns how many; throws when the connection failed.
    /// Other destinations have nothing waiting.
    public func drain(timeoutSeconds: Double) throws -> Int {
        guard case .connection(let sender) = target else { return 0 }
        return try sender.drain(timeoutSeconds: timeoutSeconds)
    }

    /// Closes a TCP connection: waiting lines are dropped, the line being sent gets up to
    /// `timeoutSeconds` to be finished. Returns the lines dropped. (Deinit closes without waiting.)
    public func close(timeoutSeconds: Double) -> Int {
        guard case .connection(let sender) = target else { return 0 }
        return sender.close(timeoutSeconds: timeoutSeconds)
    }

    private static func sendDatagram(_ bytes: [UInt8], fd: Int32, name: String) throws -> Outcome {
        guard bytes.count <= maxDatagramBytes else {
            return .dropped(count: 1, reason: "a \(bytes.count)-byte line is longer than the \(maxDatagramBytes) bytes a datagram "
                            + "to \(name) can carry (use tcp:// for frames with many codes)")
        }
        while true {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            if n == bytes.count { return .written }
            if n >= 0 { return .dropped(count: 1, reason: "\(name) took \(n) of \(bytes.count) bytes") }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ENOBUFS: return .dropped(count: 1, reason: "\(name) has no room for more datagrams")
            // A UDP consumer that is not listening yet.
            case ECONNREFUSED: return .dropped(count: 1, reason: "nobody is listening at \(name)")
            case EMSGSIZE: return .dropped(count: 1, reason: "a \(bytes.count)-byte line does not fit in one datagram to \(name)")
            default: throw ExportDestinationError("Could not send to \(name): \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func connect(host: String, port: UInt16, datagram: Bool) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(datagram ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw ExportDestinationError("Could not resolve '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let a = candidate {
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), a.pointee.ai_protocol)
            if fd >= 0 {
                if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return fd }
                lastError = String(cString: strerror(errno))
                Glibc.close(fd)
            }
            candidate = a.pointee.ai_next
        }
        throw ExportDestinationError("Could not connect to \(datagram ? "udp" : "tcp")://\(host):\(port): \(lastError)")
    }
}
