/// Why a camera's pipeline stopped: the reason shown in the log and in `CameraStatus.lastError`.
public enum CameraFailure: Sendable, Equatable, CustomStringConvertible {
    /// The pipeline posted an error (no camera, a refused connection, caps that do not negotiate…).
    case error(PipelineMessage)
    /// The source ended: a file at its end, an IP camera that hung up.
    case endOfStream
    /// The pipeline could not be built or started and said nothing more; `reason` says what failed.
    case couldNotStart(reason: String)

    /// `pipeline error from v4l2src: …`, `end of stream`, `could not start: …`.
    public var description: String {
        switch self {
        case .error(let message): return "\(message)"
        case .endOfStream: return "end of stream"
        case .couldNotStart(let reason): return "could not start: \(reason)"
        }
    }
}
