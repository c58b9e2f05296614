/// Which tracked codes are re-decoded on a frame, when re-decodes are spread over frames.
///
/// Every track is re-decoded on its turn, one frame in `interval` (turns staggered by track id, so
/// the work is spread evenly over the frames), and on every frame while it has not been read in the
/// last `interval` frames (a missed turn is retried at once, as with `interval` 1). Between turns
/// the track follows the image motion. Pure: frame indices in, decisions out.
public struct RedecodeSchedule: Sendable {
    /// Frames between a track's re-decodes; 1 re-decodes every track on every frame.
    public var interval: Int
    /// Frame index of each track's last reading.
    private var lastRead: [UInt64: UInt64] = [:]

    public init(interval: Int = 1) {
        self.interval = max(1, interval)
    }

    /// Whether track `id` is re-decoded on frame `frame`.
    public func isDue(_ id: UInt64, frame: UInt64) -> Bool {
        let n = UInt64(max(1, interval))
        guard n > 1, let last = lastRead[id], frame >= last else { return true }
        return (frame &+ id) % n == 0 || frame - last >= n
    }

    /// Records that tracks `ids` were read on frame `frame`.
    public mutating func read(_ ids: some Sequence<UInt64>, frame: UInt64) {
        for id in ids { lastRead[id] = frame }
    }

    /// Forgets tracks that ended.
    public mutating func forget(_ ids: some Sequence<UInt64>) {
        for id in ids { lastRead[id] = nil }
    }

    /// Forgets every track (a flush, a restart).
    public mutating func reset() {
        lastRead = [:]
    }
}
