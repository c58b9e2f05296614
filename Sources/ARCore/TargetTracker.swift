/// The lifecycle every kind of target shares: stable ids, states, expiry in buffer time, a cap on
/// live tracks, and what changed since the last report. It does not match or move anything: each
/// kind (`Tracker` for codes, `RectangleTracker`, `SceneNotes`) decides which detection continues
/// which track and how a track moves between detections, and tells this core what happened
/// (`start`, `see`, `expire`). Pure and deterministic.
public struct TargetTracker<Target: Sendable>: Sendable {
    /// One live track: its id and state, the kind's own data, and when it was seen.
    public struct Entry: Sendable {
        /// Unique within a stream, from 1 (or as the caller chose, see `start(_:id:)`), never reused,
        /// not even after `reset()`.
        public let id: UInt64
        /// The kind's data (outline, payload, followed texture...).
        public var target: Target
        /// How the track was seen since the last report.
        public var state: TrackState
        /// Buffer time the track was started at, nanoseconds.
        public internal(set) var firstSeenNanoseconds: UInt64
        /// Buffer time the track was last seen at (`see`), nanoseconds; expiry counts from it.
        public internal(set) var lastSeenNanoseconds: UInt64
    }

    /// What changed since the previous `report()`. Every list is sorted by id.
    public struct Report: Sendable {
        /// Every live track, and those lost since the previous report.
        public var tracks: [Entry]
        /// Tracks started.
        public var added: [Entry]
        /// Tracks seen again (`see`), not counting those started since the previous report.
        public var updated: [Entry]
        /// Tracks lost (expired); they will not be reported again.
        public var removed: [Entry]
        /// Tracks that would have started but did not: `maxTracks` were alive.
        public var refused: Int
    }

    /// A track not seen for longer than this is lost, nanoseconds of buffer time.
    public var expiryNanoseconds: UInt64
    /// Most live tracks at once.
    public var maxTracks: Int

    /// The live tracks, sorted by id.
    public private(set) var entries: [Entry] = []
    private var nextID: UInt64 = 1
    private var lastTimestamp: UInt64?
    /// Since the last report: ids started, ids seen, tracks lost, tracks refused.
    private var addedIDs: Set<UInt64> = []
    private var seenIDs: Set<UInt64> = []
    private var lost: [Entry] = []
    private var refusedCount = 0

    /// An empty tracker; the first track gets id 1.
    public init(expiryNanoseconds: UInt64, maxTracks: Int) {
        self.expiryNanoseconds = expiryNanoseconds
        self.maxTracks = maxTracks
    }

    /// The buffer time of the current frame (the last `clock` call), nanoseconds; 0 before any.
    public var now: UInt64 { lastTimestamp ?? 0 }

    /// Whether `maxTracks` tracks are alive (a new one would be refused).
    public var isFull: Bool { entries.count >= maxTracks }

    /// Moves the clock to the frame at `now` (nanoseconds) and returns how far it went back (0 when
    /// it did not). A timestamp earlier than the previous one (a looping source restarting at 0
    /// without a flush) continues the stream: the frame counts as taken at the same time as the
    /// previous one, so every track keeps its age (its times move back by the jump, clamped at 0).
    /// Calling it again with the same time does nothing.
    @discardableResult
    public mutating func clock(_ now: UInt64) -> UInt64 {
        var back: UInt64 = 0
        if let last = lastTimestamp, now < last {
            back = last - now
            for i in entries.indices {
                entries[i].firstSeenNanoseconds = Self.moved(entries[i].firstSeenNanoseconds, back: back)
                entries[i].lastSeenNanoseconds = Self.moved(entries[i].lastSeenNanoseconds, back: back)
            }
        }
        lastTimestamp = now
        return back
    }

    /// `time` moved back by `back` nanoseconds, clamped at 0 (for a kind's own stored times after `clock`).
    public static func moved(_ time: UInt64, back: UInt64) -> UInt64 { time >= back ? time - back : 0 }

    /// Starts a track of `target`, `detected` and seen now, and returns its id; nil when `maxTracks`
    /// are alive (counted in the report's `refused`). `id`: the caller's own id (e.g. handed out
    /// before the track exists), which must not be live; later automatic ids follow it.
    public mutating func start(_ target: Target, id: UInt64? = nil) -> UInt64? {
        guard !isFull else {
            refusedCount += 1
            return nil
        }
        let id = id ?? nextID
        precondition(!entries.contains { $0.id == id }, "track id \(id) is live")
        nextID = max(nextID, id + 1)
        let entry = Entry(id: id, target: target, state: .detected, firstSeenNanoseconds: now, lastSeenNanoseconds: now)
        if let last = entries.last, last.id > id {
            entries.insert(entry, at: entries.firstIndex { $0.id > id } ?? entries.endIndex)
        } else {
            entries.append(entry)
        }
        addedIDs.insert(id)
        return id
    }

    /// Counts `count` tracks refused besides those `start` refused (a kind that stops at the first
    /// refusal and counts what it had left).
    public mutating func refuse(_ count: Int) { refusedCount += count }

    /// Marks the track at `index` (of `entries`) seen now, in `state`: its expiry starts over.
    public mutating func see(_ index: Int, as state: TrackState = .detected) {
        entries[index].state = state
        entries[index].lastSeenNanoseconds = now
        seenIDs.insert(entries[index].id)
    }

    /// The track at `index` of `entries`.
    public subscript(index: Int) -> Entry { entries[index] }

    /// Changes the target of the track at `index` of `entries` in place.
    public mutating func modify<R>(_ index: Int, _ body: (inout Target) throws -> R) rethrows -> R {
        try body(&entries[index].target)
    }

    /// Sets the state of the track at `index` of `entries` without seeing it (its expiry goes on).
    public mutating func setState(_ state: TrackState, at index: Int) { entries[index].state = state }

    /// Changes every live track's target with `body` (e.g. rescaling outlines).
    public mutating func updateTargets(_ body: (inout Target) -> Void) {
        for i in entries.indices { body(&entries[i].target) }
    }

    /// Removes the tracks not seen for longer than `expiryNanoseconds`, but those `sparing` keeps
    /// (asked only about those, each last seen before `now`): each is reported once as `lost` (in
    /// the report's `tracks` and `removed`). Returns them.
    @discardableResult
    public mutating func expire(sparing: (Entry) -> Bool = { _ in false }) -> [Entry] {
        let now = self.now
        var expired: [Entry] = []
        entries.removeAll { e in
            guard now > e.lastSeenNanoseconds, now - e.lastSeenNanoseconds > expiryNanoseconds, !sparing(e) else { return false }
            var gone = e
            gone.state = .lost
            expired.append(gone)
            return true
        }
        lost += expired
        return expired
    }

    /// Ends the track `id` now (something else is at its place): reported once as `lost`, as an
    /// expired one is. Nil when not live.
    @discardableResult
    public mutating func lose(id: UInt64) -> Entry? {
        guard var gone = remove(id: id) else { return nil }
        gone.state = .lost
        lost.append(gone)
        return gone
    }

    /// Forgets the track `id` without reporting it (removed by the application); nil when not live.
    @discardableResult
    public mutating func remove(id: UInt64) -> Entry? {
        guard let i = entries.firstIndex(where: { $0.id == id }) else { return nil }
        addedIDs.remove(id)
        seenIDs.remove(id)
        return entries.remove(at: i)
    }

    /// What changed since the previous report (or `reset`), and starts the next.
    public mutating func report() -> Report {
        let byID: (Entry, Entry) -> Bool = { $0.id < $1.id }
        let report = Report(tracks: (entries + lost).sorted(by: byID),
                            added: entries.filter { addedIDs.contains($0.id) },
                            updated: entries.filter { seenIDs.contains($0.id) && !addedIDs.contains($0.id) },
                            removed: lost.sorted(by: byID), refused: refusedCount)
        addedIDs = []
        seenIDs = []
        lost = []
        refusedCount = 0
        return report
    }

    /// Forgets every track without reporting them (a flush, a seek) and the clock. Ids keep
    /// increasing: a later track never reuses one.
    public mutating func reset() {
        entries = []
        lastTimestamp = nil
        addedIDs = []
        seenIDs = []
        lost = []
        refusedCount = 0
    }
}
