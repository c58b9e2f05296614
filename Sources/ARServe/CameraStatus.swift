/// One served camera as a status page shows it: a snapshot, taken with `Camera.status` or
/// `PipelineServer.status`. Encodes to JSON as
/// `{"name":"cam1","path":"/cam1","state":"failed","restartInSeconds":2,"frames":1520,
/// "framesPerSecond":0,"codes":2,"viewers":1,"browserViewers":0,"restarts":3,"lastError":"end of stream"}`
/// (`restartInSeconds` only while failed, `lastError` once it has failed, `browserViewers` only
/// for a camera a browser can show).
public struct CameraStatus: Sendable, Equatable, Encodable {
    /// The camera's name: its pipeline file's name without `.pipeline`.
    public var name: String
    /// Its RTSP mount path, e.g. `/cam1`.
    public var path: String
    /// Running, starting, failed (with the restart delay) or stopped.
    public var state: CameraState
    /// Frames its pipeline delivered since the server started, over every run.
    public var frames: Int
    /// Frames per second delivered over the last second; 0 when none are flowing.
    public var framesPerSecond: Double
    /// Codes tracked on its last frame.
    public var codes: Int
    /// RTSP viewers playing it now.
    public var viewers: Int
    /// Browsers watching it now (`arserve --http`); nil when it cannot be shown in a browser (its
    /// file ends in its own RTP payloader).
    public var browserViewers: Int?
    /// Times its pipeline was started again after a failure.
    public var restarts: Int
    /// Why it failed last, also after it came back; nil if it never failed.
    public var lastError: CameraFailure?

    private enum CodingKeys: String, CodingKey {
        case name, path, state, restartInSeconds, frames, framesPerSecond, codes, viewers, browserViewers, restarts, lastError
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(path, forKey: .path)
        try c.encode(state.name, forKey: .state)
        if case .failed(_, let seconds) = state { try c.encode(seconds, forKey: .restartInSeconds) }
        try c.encode(frames, forKey: .frames)
        try c.encode(framesPerSecond, forKey: .framesPerSecond)
        try c.encode(codes, forKey: .codes)
        try c.encode(viewers, forKey: .viewers)
        try c.encodeIfPresent(browserViewers, forKey: .browserViewers)
        try c.encode(restarts, forKey: .restarts)
        try c.encodeIfPresent(lastError.map { "\($0)" }, forKey: .lastError)
    }
}
