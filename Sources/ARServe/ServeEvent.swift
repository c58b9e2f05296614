import Foundation

/// What arserve reports while it serves: viewers coming and going, and what the served pipeline
/// said when it failed. `description` is the log line.
public enum ServeEvent: Sendable, Equatable, CustomStringConvertible {
    /// A viewer opened an RTSP connection from `address` (`host:port`).
    case viewerConnected(address: String)
    /// The viewer's connection from `address` closed (it left, or was refused).
    case viewerLeft(address: String)
    /// The served pipeline posted an error or a warning.
    case pipeline(PipelineMessage)

    /// The log line without the `arserve: ` prefix, e.g. `viewer 127.0.0.1:50872 connected`.
    public var description: String {
        switch self {
        case .viewerConnected(let address): return "viewer \(address) connected"
        case .viewerLeft(let address): return "viewer \(address) left"
        case .pipeline(let m): return "\(m)"
        }
    }

    /// Writes `arserve: <event>` as one line to standard error (one write, so lines from several
    /// threads do not mix). The default `ServeOptions.log`.
    @Sendable public static func writeToStandardError(_ event: ServeEvent) {
        FileHandle.standardError.write(Data("arserve: \(event)\n".utf8))
    }
}
