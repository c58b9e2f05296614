import Foundation

/// Where a served camera's pipeline is in its life: the log shows each change
/// (`camera cam1: running`), `CameraStatus.state` the current one.
public enum CameraState: Sendable, Equatable, CustomStringConvertible {
    /// Its pipeline has been started and has not delivered a frame yet.
    case starting
    /// Frames are flowing.
    case running
    /// Its pipeline stopped for `failure`; it starts again `restartInSeconds` after the failure
    /// (the backoff, see `RestartBackoff`). Viewers connecting meanwhile are answered `503 Service
    /// Unavailable`; viewers already watching stay connected and see frames again after the restart.
    case failed(CameraFailure, restartInSeconds: Double)
    /// The server stopped it.
    case stopped

    /// `starting`, `running`, `failed: end of stream; restarting in 2 s`, `stopped`.
    public var description: String {
        switch self {
        case .starting: return "starting"
        case .running: return "running"
        case .failed(let failure, let seconds): return "failed: \(failure); restarting in \(Self.seconds(seconds)) s"
        case .stopped: return "stopped"
        }
    }

    /// The short name of the state: `starting`, `running`, `failed` or `stopped`.
    public var name: String {
        switch self {
        case .starting: return "starting"
        case .running: return "running"
        case .failed: return "failed"
        case .stopped: return "stopped"
        }
    }

    /// `2`, `0.5`, `0.25`: seconds without trailing zeros.
    static func seconds(_ value: Double) -> String {
        if value == value.rounded() { return String(Int(value)) }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
