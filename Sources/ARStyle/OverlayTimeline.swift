import ARCore

/// Identifies a code across frames: its track id, or (without a tracker upstream) its symbology and payload.
public enum TrackKey: Hashable, Sendable {
    case track(UInt64)
    case payload(symbology: String, text: String)

    public init(_ info: CodeInfo) {
        self = info.trackID.map(TrackKey.track) ?? .payload(symbology: info.symbology, text: info.text)
    }
}

/// One code as read from a frame.
public struct CodeSighting: Hashable, Sendable {
    public var info: CodeInfo
    /// Corners in this frame's pixels.
    public var quad: Quad
    /// Decoded on this frame (`detected`), rather than only followed (`tracked`).
    public var detected: Bool
    /// Not seen on this frame (`occluded`: covered, torn off, out of the frame): its overlay fades out.
    public var occluded: Bool
    /// Reported `lost` by its tracker (its last frame): its overlay fades out at once and is removed.
    public var lost: Bool

    public init(info: CodeInfo, quad: Quad, detected: Bool, occluded: Bool = false, lost: Bool = false) {
        self.info = info
        self.quad = quad
        self.detected = detected
        self.occluded = occluded
        self.lost = lost
    }
}

/// When each code's overlay shows and how opaque it is, on buffer timestamps.
///
/// An overlay appears on the first frame its code is on and fades in over `fade` seconds (that
/// first frame already at one frame's worth); it follows the code's quad on the current frame; it
/// stays for `expiry` seconds after the code was last seen (at the last quad once the code is
/// gone), then fades out over `fade` seconds and is removed. Seen: decoded, or, for a code with a
/// track id, reported in view by its tracker (`tracked`, not occluded: the tracker decides how long
/// a code it follows unread is there). A code reported occluded fades out at once (over `fade`
/// seconds) and is kept, undrawn, until expiry: seen again, it fades back in. A code its tracker
/// reports lost fades out at once and is removed.
public struct OverlayTimeline: Sendable {
    /// One code's overlay over time.
    public struct Entry: Hashable, Sendable {
        public var key: TrackKey
        public var info: CodeInfo
        /// The latest quad, frame pixels.
        public var quad: Quad
        /// Timestamps, seconds.
        public var firstSeen: Double
        /// When the code was last seen: decoded, or (with a track id) in view.
        public var lastSeen: Double
        /// Whether the code is on the current frame.
        public var present: Bool
        /// When the code was first reported occluded since it was last seen, seconds; nil while seen.
        public var occludedSince: Double?
        /// When its tracker reported the code lost, seconds; nil before.
        public var lostAt: Double?
        /// Opacity on the current frame, 0…1.
        public var opacity: Double
    }

    /// What changed on one frame.
    public struct Changes: Sendable {
        /// Overlays that appeared on this frame.
        public var created: [Entry] = []
        /// Overlays whose code is on this frame (new ones included).
        public var updated: [Entry] = []
        /// Overlays gone after this frame's time (expired and faded), not drawn.
        public var removed: [Entry] = []
        /// Overlays to draw on this frame, in order of appearance, with their opacity.
        public var visible: [Entry] = []
    }

    public var expirySeconds: Double
    public var fadeSeconds: Double
    private var entries: [TrackKey: Entry] = [:]
    private var order: [TrackKey] = []

    public init(expirySeconds: Double = 1.0, fadeSeconds: Double = 0.2) {
        self.expirySeconds = expirySeconds
        self.fadeSeconds = fadeSeconds
    }

    /// Whether any overlay is live.
    public var isEmpty: Bool { entries.isEmpty }

    /// Forgets every overlay (flush, seek).
    public mutating func reset() {
        entries = [:]
        order = []
    }

    /// Opacity of an overlay first seen at `firstSeen` and last seen at `lastSeen`, at
    /// time `t`; nil once it is gone. `frameSeconds` is one frame's duration.
    public static func opacity(firstSeen: Double, lastSeen: Double, at t: Double, frameSeconds: Double,
                               expiry: Double, fade: Double) -> Double? {
        let sinceSeen = t - lastSeen
        if sinceSeen > expiry + fade || (fade == 0 && sinceSeen > expiry) { return nil }
        guard fade > 0 else { return 1 }
        let fadeIn = min(1, max(0, (t - firstSeen + frameSeconds) / fade))
        let fadeOut = min(1, max(0, 1 - (sinceSeen - expiry) / fade))
        let o = min(fadeIn, fadeOut)
        return o > 0 ? o : nil
    }

    /// Takes the codes on the frame at `t` seconds (one frame lasting `frameSeconds`).
    public mutating func update(_ sightings: [CodeSighting], at t: Double, frameSeconds: Double) -> Changes {
        var changes = Changes()
        var seen: Set<TrackKey> = []
        for s in sightings {
            let key = TrackKey(s.info)
            if s.lost {
                if var e = entries[key], e.lostAt == nil {
                    e.lostAt = t
                    entries[key] = e
                }
                continue
            }
            guard seen.insert(key).inserted else { continue }
            if var e = entries[key] {
                e.info = s.info
                e.quad = s.quad
                e.present = !s.occluded
                if s.occluded {
                    if e.occludedSince == nil { e.occludedSince = t }
                } else if e.occludedSince != nil {
                    // Seen again: fades back in.
                    e.occludedSince = nil
                    e.firstSeen = t
                }
                // A timestamp going backwards (a loop, a seek without flush): restart the clock.
                if t < e.lastSeen { e.firstSeen = t; e.lastSeen = t }
                if s.detected || (s.info.trackID != nil && !s.occluded) { e.lastSeen = t }
                e.lostAt = nil
                entries[key] = e
            } else {
                entries[key] = Entry(key: key, info: s.info, quad: s.quad, firstSeen: t, lastSeen: t, present: !s.occluded,
                                     occludedSince: s.occluded ? t : nil, lostAt: nil, opacity: 0)
                order.append(key)
                changes.created.append(entries[key]!)
            }
        }
        var kept: [TrackKey] = []
        for key in order {
            guard var e = entries[key] else { continue }
            if !seen.contains(key) { e.present = false }
            guard var o = Self.opacity(firstSeen: e.firstSeen, lastSeen: e.lastSeen, at: t, frameSeconds: frameSeconds,
                                       expiry: expirySeconds, fade: fadeSeconds) else {
                entries[key] = nil
                changes.removed.append(e)
                continue
            }
            // Fading out from the first occluded or lost frame (which shows one frame's worth of fade).
            func fadedOut(since start: Double) -> Double {
                fadeSeconds > 0 ? min(o, max(0, 1 - (t - start + frameSeconds) / fadeSeconds)) : 0
            }
            if let since = e.occludedSince { o = fadedOut(since: since) }
            if let lost = e.lostAt {
                // Removed once faded out.
                o = fadedOut(since: lost)
                if o <= 0 {
                    entries[key] = nil
                    changes.removed.append(e)
                    continue
                }
            }
            e.opacity = o
            entries[key] = e
            kept.append(key)
            if e.present { changes.updated.append(e) }
            if o > 0 { changes.visible.append(e) }
        }
        order = kept
        // Entries created on this frame report their opacity too.
        changes.created = changes.created.map { entries[$0.key] ?? $0 }
        return changes
    }
}
