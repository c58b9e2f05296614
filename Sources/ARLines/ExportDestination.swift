import Foundation

/// Where `arexport` writes its JSON lines, from its `location` property:
/// a file path, `-` (standard output), `udp://HOST:PORT` (one datagram per line) or
/// `tcp://HOST:PORT` (a connection opened at start, one line after another).
public enum ExportDestination: Equatable, Sendable {
    case standardOutput
    case file(String)
    case udp(host: String, port: UInt16)
    case tcp(host: String, port: UInt16)

    /// Parses `location`; throws a message naming what is wrong.
    public static func parse(_ location: String) throws -> ExportDestination {
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

/// Why a destination cannot be opened or written: a message naming it and the reason.
public struct ExportDestinationError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
