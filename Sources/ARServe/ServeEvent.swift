import Foundation

/// What arserve reports while it serves: each camera's state (starting, running, failed and when
/// it restarts), viewers coming and going, and what a pipeline said when it failed or warned.
/// `description` is the log line.
public enum ServeEvent: Sendable, Equatable, CustomStringConvertible {
    /// A viewer opened an RTSP connection from `address` (`host:port`).
    case viewerConnected(address: String)
    /// The viewer's connection from `address` closed (it left, or was refused).
    case viewerLeft(address: String)
    /// A viewer's media (encoding and payloading what a camera delivers) posted an error or a warning.
    case pipeline(PipelineMessage)
    /// Camera `name` changed state: its pipeline started, delivered its first frame, failed
    /// (with the reason and the restart delay) or stopped.
    case camera(name: String, state: CameraState)
    /// Camera `name`'s pipeline posted a warning (once per warning and run; errors are failures).
    case cameraWarning(name: String, PipelineMessage)
    /// A viewer asked for camera `camera` while it was `state` (failed: no frames to give) and was
    /// answered `503 Service Unavailable`.
    case viewerRefused(camera: String, state: CameraState)
    /// A click on camera `camera`'s video (from the browser page) tapped a code in its pipeline.
    case tapped(camera: String, CodeTap)

    /// The log line without the `arserve: ` prefix, e.g. `viewer 127.0.0.1:50872 connected`,
    /// `camera cam1: failed: end of stream; restarting in 2 s`.
    public var description: String {
        switch self {
        case .viewerConnected(let address): return "viewer \(address) connected"
        case .viewerLeft(let address): return "viewer \(address) left"
        case .pipeline(let m): return "\(m)"
        case .camera(let name, let state): return "camera \(name): \(state)"
        case .cameraWarning(let name, let m): return "camera \(name): \(m)"
        case .viewerRefused(let camera, let state): return "camera \(camera): refused a viewer (503 Service Unavailable) while \(state)"
        case .tapped(let camera, let tap): return "camera \(camera): \(tap)"
        }
    }

    /// Writes `arserve: <event>` as one line to standard error (one write, so lines from several
    /// threads do not mix). The default `ServeOptions.log`.
    @Sendable public static func writeToStandardError(_ event: ServeEvent) {
        FileHandle.standardError.write(Data("arserve: \(event)\n".utf8))
    }
}
