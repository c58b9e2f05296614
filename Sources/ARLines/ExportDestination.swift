import Foundation

/// Where `arexport` writes its JSON lines, from its `location` property:
/// a file path, `-` (standard output), `udp://HOST:PORT` (one datagram per line),
/// `tcp://HOST:PORT` (a connection opened at start, one line after another) or
/// `mqtt://HOST[:PORT]/TOPIC` (one MQTT message per line, published to TOPIC; port 1883 by default).
public enum ExportDestination: Equatable, Sendable {
    case standardOutput
    case file(String)
    case udp(host: String, port: UInt16)
    case tcp(host: String, port: UInt16)
    case mqtt(host: String, port: UInt16, topic: String)

    /// The MQTT port used when `mqtt://` gives none.
    public static let defaultMQTTPort: UInt16 = 1883

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
        if location.hasPrefix("mqtt://") { return try parseMQTT(location) }
        if location.contains("://") {
            throw ExportDestinationError(
                "'\(location)': unknown scheme (use a file path, '-', udp://HOST:PORT, tcp://HOST:PORT or mqtt://HOST:PORT/TOPIC)")
        }
        return .file(location)
    }

    /// `mqtt://HOST[:PORT]/TOPIC`: the topic is everything after the first `/` (it may hold more
    /// slashes) and must not be empty or hold the wildcards `+`, `#` or a NUL.
    private static func parseMQTT(_ location: String) throws -> ExportDestination {
        let usage = "mqtt://HOST:PORT/TOPIC"
        let rest = location.dropFirst("mqtt://".count)
        guard let slash = rest.firstIndex(of: "/") else {
            throw ExportDestinationError("'\(location)' needs a topic: \(usage)")
        }
        let topic = String(rest[rest.index(after: slash)...])
        guard !topic.isEmpty else { throw ExportDestinationError("'\(location)' needs a topic: \(usage)") }
        if let bad = topic.first(where: { $0 == "+" || $0 == "#" || $0 == "\0" }) {
            throw ExportDestinationError("'\(location)': a topic to publish to cannot hold '\(bad == "\0" ? "NUL" : String(bad))'")
        }
        let authority = rest[..<slash]
        var host = String(authority)
        var port = defaultMQTTPort
        // A port follows the last colon, unless that colon is inside a bracketed IPv6 address.
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            let digits = authority[authority.index(after: colon)...]
            guard let p = UInt16(digits), p > 0 else {
                throw ExportDestinationError("'\(location)': bad port '\(digits)' (1-65535): \(usage)")
            }
            port = p
            host = String(authority[..<colon])
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ExportDestinationError("'\(location)' needs a host: \(usage)") }
        return .mqtt(host: host, port: port, topic: topic)
    }
}

/// Why a destination cannot be opened or written: a message naming it and the reason.
public struct ExportDestinationError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
