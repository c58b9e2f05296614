import Foundation

/// Where `arexport` writes its JSON lines, from its `location` property:
/// a file path, `-` (standard output), `udp://HOST:PORT` (one datagram per line) or
/// `tcp://HOST:PORT` (a connection opened at start, one line after another).
enum ExportDestination: Equatable {
    case standardOutput
    case file(String)
    case udp(host: String, port: UInt16)
    case tcp(host: String, port: UInt16)

    /// Parses `location`; throws a message naming what is wrong.
    static func parse(_ location: String) throws -> ExportDestination {
        if location == "-" { return .standardOutput }
        for scheme in ["udp", "tcp"] where location.hasPrefix(scheme + "://") {
            let rest = location.dropFirst(scheme.count + 3)
            // Host may be a bracketed IPv6 address: [::1]:5000.
            guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]), port > 0 else {
                throw ExportDestinationError("'\(location)' needs a port: \(scheme)://HOST:PORT")
            }
            var host = String(rest[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty else { throw ExportDestinationError("'\(location)' needs a host: \(scheme)://HOST:PORT") }
            return scheme == "udp" ? .udp(host: host, port: port) : .tcp(host: host, port: port)
        }
        if location.contains("://") {
            throw ExportDestinationError("'\(location)': unknown scheme (use a file path, '-', udp://HOST:PORT or tcp://HOST:PORT)")
        }
        return .file(location)
    }
}

struct ExportDestinationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// An open destination: writes whole lines, unbuffered (a consumer sees each line at once).
final class LineWriter {
    private enum Target {
        case stream(UnsafeMutablePointer<FILE>, owned: Bool)
        case socket(Int32, datagram: Bool)
    }

    private let target: Target
    let name: String

    /// Opens `destination`; throws a message naming the destination and the system's reason.
    init(_ destination: ExportDestination) throws {
        switch destination {
        case .standardOutput:
            target = .stream(stdout, owned: false)
            name = "standard output"
        case .file(let path):
            guard let f = fopen(path, "w") else {
                throw ExportDestinationError("Could not open '\(path)' for writing: \(String(cString: strerror(errno)))")
            }
            target = .stream(f, owned: true)
            name = path
        case .udp(let host, let port):
            target = .socket(try Self.connect(host: host, port: port, datagram: true), datagram: true)
            name = "udp://\(host):\(port)"
        case .tcp(let host, let port):
            target = .socket(try Self.connect(host: host, port: port, datagram: false), datagram: false)
            name = "tcp://\(host):\(port)"
        }
    }

    deinit {
        switch target {
        case .stream(let f, let owned): if owned { fclose(f) } else { fflush(f) }
        case .socket(let fd, _): close(fd)
        }
    }

    /// What became of a line.
    enum Outcome: Equatable {
        case written
        /// Not sent, and why (the consumer is not keeping up, or the line is too long for a datagram).
        case dropped(String)
    }

    /// Writes `line` (without its newline) followed by a newline. A socket never blocks the
    /// streaming thread: a line the consumer has no room for is dropped (and reported), not queued.
    /// Throws when the destination is gone (file error, connection closed).
    func write(_ line: String) throws -> Outcome {
        var bytes = Array(line.utf8)
        bytes.append(0x0a)
        switch target {
        case .stream(let f, _):
            guard fwrite(bytes, 1, bytes.count, f) == bytes.count, fflush(f) == 0 else {
                throw ExportDestinationError("Could not write to \(name): \(String(cString: strerror(errno)))")
            }
            return .written
        case .socket(let fd, let datagram):
            if !datagram, let pending = pendingTail {
                // The rest of a line cut short last time goes first, so lines stay whole.
                switch try send(pending, fd: fd, datagram: false) {
                case .written: pendingTail = nil
                case .dropped(let why): return .dropped(why)
                }
            }
            return try send(bytes[...], fd: fd, datagram: datagram)
        }
    }

    /// The unsent end of a TCP line that was partly sent.
    private var pendingTail: ArraySlice<UInt8>?

    private func send(_ bytes: ArraySlice<UInt8>, fd: Int32, datagram: Bool) throws -> Outcome {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[(bytes.startIndex + sent)...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if n >= 0 {
                sent += n
                if datagram { return .written }
                continue
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                if sent == 0 { return .dropped("\(name) is not reading fast enough") }
                pendingTail = bytes[(bytes.startIndex + sent)...]
                return .written
            case ECONNREFUSED where datagram:
                // A UDP consumer that is not listening yet.
                return .dropped("nobody is listening at \(name)")
            case EMSGSIZE:
                return .dropped("a \(bytes.count)-byte line does not fit in one datagram to \(name)")
            default:
                throw ExportDestinationError("Could not send to \(name): \(String(cString: strerror(errno)))")
            }
        }
        return .written
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
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype, a.pointee.ai_protocol)
            if fd >= 0 {
                if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return fd }
                lastError = String(cString: strerror(errno))
                close(fd)
            }
            candidate = a.pointee.ai_next
        }
        throw ExportDestinationError("Could not connect to \(datagram ? "udp" : "tcp")://\(host):\(port): \(lastError)")
    }
}
