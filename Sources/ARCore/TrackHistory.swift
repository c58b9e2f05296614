import Foundation

/// Where each track was on each of the last frames, to carry a detection made on an older frame
/// (e.g. decoded on a worker thread) forward to the current one by the tracked motion.
public struct TrackHistory: Sendable {
    /// Frames kept.
    public let capacity: Int
    private var frames: [(index: UInt64, tracks: [Track])] = []

    /// Keeps the last `capacity` frames (at least 1).
    public init(capacity: Int = 90) {
        self.capacity = max(1, capacity)
    }

    /// Records the live tracks of frame `index` (frame indices increase).
    public mutating func record(frame index: UInt64, tracks: [Track]) {
        frames.append((index, tracks.filter { $0.state != .lost }))
        if frames.count > capacity { frames.removeFirst(frames.count - capacity) }
    }

    /// Forgets every frame.
    public mutating func reset() {
        frames = []
    }

    /// `detection`, seen on frame `index`, moved onto the frame where the live tracks are `now`: by
    /// the motion of the same-payload track that was nearest to it on frame `index` (within its
    /// size), from that track's quad then to its quad in `now`. Nil when no such track was there
    /// then and is still in `now`, or frame `index` is no longer kept.
    public func carry(_ detection: Detection, from index: UInt64, to now: [Track]) -> Detection? {
        guard let then = frames.last(where: { $0.index == index }) else { return nil }
        let c = detection.quad.center
        let candidates = then.tracks.filter {
            $0.symbology == detection.symbology && $0.payload == detection.payload
                && $0.quad.center.distance(to: c) <= max($0.quad.meanSide, detection.quad.meanSide)
        }
        guard let old = candidates.min(by: { $0.quad.center.distance(to: c) < $1.quad.center.distance(to: c) }),
              let current = now.first(where: { $0.id == old.id }),
              let h = Homography(from: old.quad, to: current.quad) else { return nil }
        var moved = detection
        moved.quad = h.apply(detection.quad)
        guard moved.quad.isPlausibleMove(from: detection.quad) else { return nil }
        return moved
    }

    /// Track `id` as it was reported on frame `index` (its state, its quad); nil when it was not
    /// live then or the frame is no longer kept.
    public func track(_ id: UInt64, at index: UInt64) -> Track? {
        frames.last { $0.index == index }?.tracks.first { $0.id == id }
    }

    /// The index of the latest recorded frame.
    public var latestFrame: UInt64? { frames.last?.index }
}
