import Foundation

/// How a track was seen on the frame it is reported for.
public enum TrackState: String, Hashable, Sendable {
    /// Decoded on this frame.
    case detected
    /// Not decoded on this frame but still alive; its position is carried over from the last frame.
    case tracked
    /// Alive but not seen: the code's own texture is no longer where the track is (covered, torn
    /// off, out of the frame). Kept at its last place, unmoved, so that it comes back under the same
    /// id when the code is read again before expiry; not drawn by default.
    case occluded
    /// Expired: this is the last frame the track is reported on.
    case lost
    /// Seen, not yet read: a code-like region a localizer found on this frame that no decode pass
    /// read. It has a quad and a symbology class (`1D` or `2D`) but no payload and no track id; it
    /// is not a track (the `Tracker` never produces it) and lives for this frame only.
    case located
}

/// One decoded code on one frame, as produced by a detector.
public struct Detection: Hashable, Sendable {
    /// Symbology name, e.g. "QR-Code" or "EAN-13".
    public var symbology: String
    /// The decoded bytes.
    public var payload: [UInt8]
    /// Outline in frame pixels, clockwise from the code's own top-left.
    public var quad: Quad
    /// Detector-specific quality score (higher is better).
    public var quality: Int
    /// False when `quad` is only part of the code's outline (e.g. clipped by the frame border, or a
    /// 1D code whose outline could not be fitted): it confirms the code and its place, but a track
    /// it continues keeps its own size and shape.
    public var outlineComplete: Bool
    /// Whether `quad` touched the frame's edge on the frame it was read on (`Quad.touchesEdge`):
    /// the code may run on past it. It stays set when the reading is carried onto a later frame.
    public var atFrameEdge: Bool

    /// A detection of `payload` bytes at `quad` (pixels).
    public init(symbology: String, payload: [UInt8], quad: Quad, quality: Int = 0, outlineComplete: Bool = true,
                atFrameEdge: Bool = false) {
        self.symbology = symbology
        self.payload = payload
        self.quad = quad
        self.quality = quality
        self.outlineComplete = outlineComplete
        self.atFrameEdge = atFrameEdge
    }

    /// Convenience for a text payload, stored as its UTF-8 bytes.
    public init(symbology: String, text: String, quad: Quad, quality: Int = 0) {
        self.init(symbology: symbology, payload: Array(text.utf8), quad: quad, quality: quality)
    }

    /// The payload as text (`PayloadText`: UTF-8, else Shift JIS for QR codes, else ISO 8859-1);
    /// `payload` holds the exact bytes.
    public var text: String { PayloadText.text(payload, symbology: symbology) }

    /// Whether a single reading of `symbology` is trustworthy: 2D codes carry Reed–Solomon error
    /// correction, while a 1D reading rests on a check character (or none) that a blurred or
    /// damaged code can satisfy with wrong characters.
    public static func isSelfChecking(symbology: String) -> Bool {
        symbology == "QR-Code" || symbology == "SQ-Code"
    }

    /// Whether a code of `symbology` ends in guard bars (EAN/UPC: 1 0 1; Interleaved 2 of 5: a
    /// narrow bar pair, a wide and a narrow bar) that the bars inside a longer code can mimic: cut
    /// by the frame's edge (`atFrameEdge`), such a code can be read as another (a blurred EAN-13
    /// half out of the frame, read with six digits wrong). Code 128, Code 39, Code 93 and Codabar
    /// end in start and stop characters that do not occur inside a code.
    public static func hasGuardEnds(symbology: String) -> Bool {
        ["EAN-13", "EAN-8", "UPC-A", "UPC-E", "ISBN-13", "ISBN-10", "I2/5"].contains(symbology)
    }

    /// Whether this reading may be of a longer code cut short by the frame's edge: a code ending in
    /// guard bars, read at the edge. It starts no track alone (`Tracker.update`).
    public var mayBeCutShort: Bool { atFrameEdge && Self.hasGuardEnds(symbology: symbology) }

    /// Whether this reading lies on a code outlined by `quad` (pixels), as a misreading of that code
    /// does: its centre inside `quad`, and (its outline measured) half of one of the two outlines
    /// inside the other (`liesOnShare`). A code on a card slid over a corner of the other does not:
    /// its centre may be just inside, most of both outlines apart.
    public func liesOn(_ quad: Quad) -> Bool {
        guard quad.contains(self.quad.center) else { return false }
        guard outlineComplete else { return true }
        return max(self.quad.share(inside: quad), quad.share(inside: self.quad)) >= Self.liesOnShare
    }

    /// Least share of one outline inside the other for `liesOn`.
    public static let liesOnShare = 0.5

    /// Whether `payload` of `symbology` reads like a misreading of a code of the same symbology
    /// whose payload is `other`: for Interleaved 2 of 5, which has no check character and encodes
    /// its digits in pairs (five bars for one digit, the five spaces between them for the next),
    /// the same length with one digit pair differing, as a blurred pair read wrong on a line or two
    /// makes it. Other symbologies: never (this rule is measured on ITF only; most others carry a
    /// check character that catches one wrong character).
    public static func isMisreading(_ payload: [UInt8], of other: [UInt8], symbology: String) -> Bool {
        guard symbology == "I2/5", payload.count == other.count, payload != other else { return false }
        let pairs = Set(payload.indices.filter { payload[$0] != other[$0] }.map { $0 / 2 })
        return pairs.count == 1
    }
}

/// A code followed across frames under a stable id.
public struct Track: Hashable, Sendable {
    /// Unique within a stream, starting at 1, never reused (not even after `Tracker.reset()`).
    public var id: UInt64
    /// Symbology name, e.g. "QR-Code".
    public var symbology: String
    /// The decoded bytes.
    public var payload: [UInt8]
    /// Latest known outline in frame pixels (the last decoded one while `tracked` or `lost`).
    public var quad: Quad
    /// How the track was seen on the frame it is reported for.
    public var state: TrackState
    /// Timestamp of the frame that created the track, nanoseconds.
    public var firstSeenNanoseconds: UInt64
    /// Timestamp of the last frame the code was decoded on, nanoseconds.
    public var lastDecodedNanoseconds: UInt64
    /// Quality of the last decoding.
    public var quality: Int

    /// A track with every field given (timestamps in nanoseconds); normally made by `Tracker`.
    public init(id: UInt64, symbology: String, payload: [UInt8], quad: Quad, state: TrackState,
                firstSeenNanoseconds: UInt64, lastDecodedNanoseconds: UInt64, quality: Int) {
        self.id = id
        self.symbology = symbology
        self.payload = payload
        self.quad = quad
        self.state = state
        self.firstSeenNanoseconds = firstSeenNanoseconds
        self.lastDecodedNanoseconds = lastDecodedNanoseconds
        self.quality = quality
    }

    /// The payload as text (`PayloadText`: UTF-8, else Shift JIS for QR codes, else ISO 8859-1);
    /// `payload` holds the exact bytes.
    public var text: String { PayloadText.text(payload, symbology: symbology) }
}

/// Tuning of a `Tracker`.
public struct TrackerConfiguration: Hashable, Sendable {
    /// A track not decoded for longer than this (nanoseconds) is reported `lost` and forgotten.
    public var expiryNanoseconds: UInt64
    /// Most live tracks at once; detections that would start a track beyond this are dropped.
    public var maxTracks: Int

    /// Agreeing readings a new 1D code needs before it becomes a track: scan lines that read it on
    /// one frame (a detection's `quality`) plus those of readings of the same payload at the same
    /// place on earlier frames. 2D codes (error-corrected) need one.
    public var confirmReadings: Int

    /// Longest a track lives without a decode while it is followed in the image (`Tracker.markFollowed`),
    /// nanoseconds: past `expiryNanoseconds` since its last decode it lives while it is so followed
    /// (`Tracker.followGraceFrames`). At most `expiryNanoseconds` has no effect.
    public var followLimitNanoseconds: UInt64

    /// Defaults: expiry 1 s (1_000_000_000 ns), at most 64 live tracks, 2 agreeing readings, a
    /// followed track kept up to 3 s (3_000_000_000 ns) unread.
    public init(expiryNanoseconds: UInt64 = 1_000_000_000, maxTracks: Int = 64, confirmReadings: Int = 2,
                followLimitNanoseconds: UInt64 = 3_000_000_000) {
        self.expiryNanoseconds = expiryNanoseconds
        self.maxTracks = maxTracks
        self.confirmReadings = confirmReadings
        self.followLimitNanoseconds = followLimitNanoseconds
    }
}

/// What one `Tracker.update` call reports. Every list is sorted by track id.
public struct TrackerUpdate: Hashable, Sendable {
    /// Every track reported on this frame: live ones (`detected` or `tracked`) and the ones `lost` on it.
    public var tracks: [Track]
    /// Tracks created on this frame.
    public var added: [Track]
    /// Existing tracks decoded again on this frame.
    public var updated: [Track]
    /// Tracks `lost` on this frame; they will not be reported again.
    public var removed: [Track]
    /// Detections of this frame that would have started a track but did not: `maxTracks` tracks
    /// were alive (they are retried on the next frame).
    public var refused: Int

    /// An update with the given lists (expected sorted by id).
    public init(tracks: [Track], added: [Track], updated: [Track], removed: [Track], refused: Int = 0) {
        self.tracks = tracks
        self.added = added
        self.updated = updated
        self.removed = removed
        self.refused = refused
    }
}

/// Multi-object tracker that follows codes by payload identity, frame by frame.
///
/// A detection can only continue a live track with the same symbology and payload; among those,
/// pairs are assigned greedily by smallest centre distance, so identical codes in view ("twins") stay
/// separate tracks told apart by position. Between decodes `advance(motions:)` moves each track by
/// the motion measured in the image, or by its last velocity when none was measured; without
/// `advance` a track not decoded on a frame keeps its last quad (`tracked`) until it expires.
/// Ids, states, expiry and the cap on tracks are the shared `TargetTracker`'s; this type is the
/// codes' matching (payload identity, confirmations) and motion.
public struct Tracker: Sendable {
    /// Tuning; may be changed between updates.
    public var configuration: TrackerConfiguration

    /// What a code track holds besides the lifecycle.
    private struct Code: Sendable {
        var symbology: String
        var payload: [UInt8]
        var quad: Quad
        var quality: Int
        /// Whether its last outline kept the shape of the one before (`keepsEdgeDirections`): the
        /// code's shape is known, and an outline of another shape does not replace it.
        var shapeKnown = false
        /// Outlines of another shape refused since the last one it took.
        var refused = 0
    }

    private var core: TargetTracker<Code>
    /// Per track: centre velocity, pixels per frame, from the last measured motion.
    private var velocity: [UInt64: Point] = [:]
    /// Tracks whose motion was measured in the image on the last `advance` (they are in view).
    private var following: Set<UInt64> = []
    /// Frames each track has coasted on its velocity since its motion was last measured.
    private var coasting: [UInt64: Int] = [:]
    /// Frames since each track's place was last measured, in the image or by a reading, counted by
    /// `advance` (occluded or not): how far from it its code can be.
    private var sincePlaced: [UInt64: Int] = [:]
    /// 1D readings not yet confirmed: they start a track once enough readings agree.
    private var pending: [Pending] = []
    /// Tracks whose code is not seen where they are (`markOccluded`): they stay put, `occluded`.
    private var hidden: Set<UInt64> = []
    /// Per track: `advance` calls since it was last seen in the image (`markFollowed`), 0 on that frame.
    private var sinceFollowed: [UInt64: Int] = [:]

    private struct Pending {
        var detection: Detection
        var readings: Int
        /// Whether the first reading was clear of the frame's edge, or a complete outline since.
        var clear: Bool
        /// Frames it was read on.
        var frames: Int
        var lastSeenNanoseconds: UInt64
    }

    /// An empty tracker; the first track gets id 1.
    public init(configuration: TrackerConfiguration = TrackerConfiguration()) {
        self.configuration = configuration
        core = TargetTracker(expiryNanoseconds: configuration.expiryNanoseconds, maxTracks: configuration.maxTracks)
    }

    /// The tracks alive after the last update, sorted by id.
    public var liveTracks: [Track] { core.entries.map(Self.track) }

    /// A core entry as the track it reports.
    private static func track(_ e: TargetTracker<Code>.Entry) -> Track {
        Track(id: e.id, symbology: e.target.symbology, payload: e.target.payload, quad: e.target.quad, state: e.state,
              firstSeenNanoseconds: e.firstSeenNanoseconds, lastDecodedNanoseconds: e.lastSeenNanoseconds, quality: e.target.quality)
    }

    /// Moves the live tracks onto a new frame, before `update` matches its detections: a track with
    /// an entry in `motions` (previous-frame pixels → this frame's, measured in the image) takes it;
    /// any other (or one whose motion would fold its quad or change its area more than twofold)
    /// coasts on its last measured centre velocity, damped by 0.8 per frame, so a code hidden or
    /// out of view drifts to a halt. An occluded track stays where it is. Call at most once per frame.
    public mutating func advance(motions: [UInt64: Homography]) {
        following = []
        for i in core.entries.indices {
            let id = core[i].id
            sincePlaced[id, default: 0] += 1
            if let n = sinceFollowed[id] { sinceFollowed[id] = n + 1 }
            if hidden.contains(id) { continue }
            let before = core[i].target.quad
            if let h = motions[id] {
                let moved = h.apply(before)
                // A folded or blown-up quad is a bad fit, not a motion: coast instead.
                if !moved.isPlausibleMove(from: before) { coast(i); continue }
                core.modify(i) { $0.quad = moved }
                velocity[id] = moved.center - before.center
                following.insert(id)
                coasting[id] = 0
                sincePlaced[id] = 0
            } else {
                coast(i)
            }
        }
    }

    /// Moves track `i` by its last measured velocity, damped by 0.8 per frame coasted.
    private mutating func coast(_ i: Int) {
        let id = core[i].id
        guard let v = velocity[id] else { return }
        let n = (coasting[id] ?? 0) + 1
        coasting[id] = n
        let d = v * pow(0.8, Double(n))
        core.modify(i) { $0.quad = $0.quad.translated(dx: d.x, dy: d.y) }
    }

    /// Marks the live tracks in `ids` as occluded (their code is not seen where they are) and every
    /// other as seen: until it is decoded again, or marked seen, an occluded track is reported
    /// `occluded` and not moved. Call after `advance`, before `update`.
    public mutating func markOccluded(_ ids: Set<UInt64>) {
        hidden = ids.intersection(core.entries.map(\.id))
        following.subtract(hidden)
    }

    /// Ids of the live tracks marked occluded.
    public var occludedIDs: Set<UInt64> { hidden }

    /// Marks the tracks in `ids` whose motion `advance` measured in the image on this frame, and
    /// that are not occluded, as seen in the image: their place looks like their code (the caller's
    /// check). Past `expiryNanoseconds` since its last decode such a track lives on this frame and
    /// the next (`followGraceFrames`), up to `followLimitNanoseconds`. Call after `advance` and
    /// `markOccluded`, before `update`.
    public mutating func markFollowed(_ ids: Set<UInt64>) {
        for id in ids.intersection(following).subtracting(hidden) { sinceFollowed[id] = 0 }
    }

    /// Frames a track past its expiry outlives the last frame it was seen in the image on: the flow
    /// can miss a frame (fast seed 7, live: a QR code reversing its motion lost its track, read
    /// again on the next frame under a new id).
    static let followGraceFrames = 1

    /// Scales every live track's quad (e.g. after the frame size changed), x by `sx`, y by `sy`.
    public mutating func rescale(sx: Double, sy: Double) {
        core.updateTargets { $0.quad = $0.quad.scaled(sx: sx, sy: sy) }
        for (id, v) in velocity { velocity[id] = Point(x: v.x * sx, y: v.y * sy) }
    }

    /// Feeds the detections of one frame taken at `timestampNanoseconds` and reports the tracks.
    ///
    /// - Duplicates: detections of the same symbology and payload where one's centre lies inside the
    ///   other's quad are merged first (twins cannot overlap); the highest `quality` one (first on ties)
    ///   is kept. An unmatched detection whose centre lies inside a same-code track is dropped.
    /// - Matching: greedy over all (detection, live track) pairs with equal symbology and payload,
    ///   nearest centres first. A track whose place was last measured (in the image, or by a
    ///   reading) n `advance` calls ago, occluded or not, only takes a detection within 2(n + 1)
    ///   times the code's size; one never advanced takes one anywhere. A matched track takes the
    ///   detection's quad and becomes `detected`; from a detection whose outline is not complete it
    ///   keeps its own size and shape, moved onto the detection's centre when the detection spans
    ///   the code's length or lies outside it.
    /// - New tracks: each unmatched detection starts a track, in input order, while fewer than
    ///   `maxTracks` are alive; the rest are dropped for this frame (they are retried on the next) and
    ///   counted in `TrackerUpdate.refused`.
    ///   One that lies on a live track of another payload (`Detection.liesOn`) is dropped as a
    ///   misreading of that code (but a 1D reading on a QR code's track: a label stuck over it),
    ///   and so is one `Detection.isMisreading` of a live track's code (occluded or not) whose centre lies within
    ///   that track's quad grown to twice its size. A 1D detection (not
    ///   `Detection.isSelfChecking`) starts a track only once `confirmReadings` readings agree: its
    ///   `quality` (scan lines) plus the readings of unconfirmed detections of the same payload at
    ///   the same place on earlier frames within `expiry`. One first read where the frame's edge
    ///   may cut it short (`Detection.mayBeCutShort`) also needs readings on `edgeFrames` frames,
    ///   or a complete outline clear of the edge.
    /// - Expiry: a track with `timestamp - lastDecoded > expiryNanoseconds` cannot be matched; it is
    ///   reported once as `lost` (in `tracks` and `removed`) and forgotten, unless it was seen in
    ///   the image on this frame or the one before (`markFollowed`) and `timestamp - lastDecoded` is within
    ///   `followLimitNanoseconds`. Others not matched are
    ///   `tracked`, or `occluded` when marked so (`markOccluded`); a match ends the occlusion.
    /// - Timestamps going back: a timestamp earlier than the previous one (a looping source: a segment
    ///   restarting at 0 without a flush) continues the stream. The frame counts as taken at the same
    ///   time as the previous one: every live track and unconfirmed reading keeps its id and its age
    ///   (stored times move back by the jump, clamped at 0, so an age longer than `now` shrinks to
    ///   `now`). A real discontinuity (a seek, a DISCONT buffer, a flush) is the caller's to signal
    ///   with `reset()`.
    public mutating func update(detections: [Detection], timestampNanoseconds now: UInt64) -> TrackerUpdate {
        core.expiryNanoseconds = configuration.expiryNanoseconds
        core.maxTracks = configuration.maxTracks
        let back = core.clock(now)
        if back > 0 {
            for i in pending.indices { pending[i].lastSeenNanoseconds = TargetTracker<Code>.moved(pending[i].lastSeenNanoseconds, back: back) }
        }
        pending.removeAll { now - $0.lastSeenNanoseconds > configuration.expiryNanoseconds }

        // Expire before matching so an expired code that reappears starts a new track. A track
        // seen in the image on this frame or the one before is spared up to the follow limit.
        let limit = configuration.followLimitNanoseconds, since = sinceFollowed
        core.expire { (since[$0.id] ?? .max) <= Self.followGraceFrames && now - $0.lastSeenNanoseconds <= limit }

        let merged = Tracker.mergeDuplicates(detections)

        // Greedy assignment over all compatible pairs, nearest centres first. A track whose place was
        // measured in the image (`advance`) or read n frames ago is near where its code is: it only
        // takes a detection within 2(n + 1) times the code's size, so a same-payload code elsewhere
        // is a twin, not a jump (twins in view, one track's flow failing for a frame, must not swap).
        var pairs: [(distance: Double, detection: Int, track: Int)] = []
        for (d, detection) in merged.enumerated() {
            for (t, entry) in core.entries.enumerated()
            where entry.target.symbology == detection.symbology && entry.target.payload == detection.payload {
                let quad = entry.target.quad
                let distance = quad.center.distance(to: detection.quad.center)
                if let n = sincePlaced[entry.id], distance > 2 * Double(n + 1) * max(quad.meanSide, detection.quad.meanSide) { continue }
                pairs.append((distance.isNaN ? .infinity : distance, d, t))
            }
        }
        pairs.sort { ($0.distance, $0.detection, $0.track) < ($1.distance, $1.detection, $1.track) }
        var detectionMatched = [Bool](repeating: false, count: merged.count)
        var trackMatched = [Bool](repeating: false, count: core.entries.count)
        for pair in pairs where !detectionMatched[pair.detection] && !trackMatched[pair.track] {
            detectionMatched[pair.detection] = true
            trackMatched[pair.track] = true
            let detection = merged[pair.detection]
            let followed = following.contains(core[pair.track].id)
            core.modify(pair.track) { code in
                if detection.outlineComplete {
                    // A code of known shape followed in the image is where its track is: an outline of
                    // another shape (its sides leaning onto a neighbouring code's bars) only confirms it.
                    let sameShape = detection.quad.keepsEdgeDirections(of: code.quad, maxTurn: Tracker.maxEdgeTurn)
                    if sameShape || !followed || !code.shapeKnown || code.refused + 1 >= Tracker.refusedOutlines {
                        code.quad = detection.quad
                        code.shapeKnown = sameShape
                        code.refused = 0
                    } else {
                        code.refused += 1
                    }
                } else if !followed {
                    // A partial outline (a 1D code whose edges could not be fitted, or a code cut by
                    // the frame's border) places its code poorly: a code followed in the image is
                    // where its track is, and such a reading only confirms it.
                    code.quad = Tracker.confirmed(code.quad, by: detection.quad)
                }
                code.quality = detection.quality
            }
            core.see(pair.track)
            hidden.remove(core[pair.track].id)
            if sincePlaced[core[pair.track].id] != nil { sincePlaced[core[pair.track].id] = 0 }
        }
        for t in core.entries.indices where !trackMatched[t] {
            core.setState(hidden.contains(core[t].id) ? .occluded : .tracked, at: t)
        }

        for (d, detection) in merged.enumerated() where !detectionMatched[d] {
            // A second reading of a code already tracked (twins cannot overlap), or a part of one
            // cut by the frame's edge (an incomplete outline) within twice its track's size: the
            // strips of a code half out of the frame are read apart, not as twins.
            if core.entries.contains(where: {
                $0.target.symbology == detection.symbology && $0.target.payload == detection.payload
                    && ($0.target.quad.contains(detection.quad.center) || $0.target.quad.overlaps(detection.quad)
                        || !detection.outlineComplete
                            && $0.target.quad.center.distance(to: detection.quad.center) <= 2 * max($0.target.quad.meanSide, detection.quad.meanSide))
            }) { continue }
            // Two codes cannot overlap: a reading of another payload on a live track's code is a
            // misreading (e.g. a blurred 1D code read with two wrong characters whose check character
            // still holds). It neither renames that track nor starts one while the track lives.
            // A misreading lies on the code it misreads (`Detection.liesOn`); a card slid over a
            // corner of the code is another code. An occluded track's code is not there: it blocks
            // nothing. A 1D reading on a QR code is no misreading of it (a 1D label stuck over it:
            // it is confirmed as any 1D reading).
            if core.entries.contains(where: {
                $0.target.payload != detection.payload && $0.state != .occluded && detection.liesOn($0.target.quad)
                    && !(Detection.isSelfChecking(symbology: $0.target.symbology) && !Detection.isSelfChecking(symbology: detection.symbology))
            }) { continue }
            // Nor does a reading of a tracked code's payload with one digit pair changed beside it
            // (within its outline grown to twice its size, occluded or not: a part of it in view).
            if core.entries.contains(where: {
                $0.target.symbology == detection.symbology && $0.target.quad.grown(by: 2).contains(detection.quad.center)
                    && Detection.isMisreading(detection.payload, of: $0.target.payload, symbology: detection.symbology)
            }) { continue }
            // A 1D reading starts a track only once enough readings agree (this frame's scan lines
            // plus earlier frames' readings of the same payload at the same place); one that the
            // frame's edge may have cut short, on a few frames.
            if !Detection.isSelfChecking(symbology: detection.symbology) {
                let earlier = takePending(detection)
                let readings = max(1, detection.quality) + earlier.readings, frames = earlier.frames + 1
                // Read at the edge, the code may be cut short; once it was, only a whole outline clear
                // of the edge shows it is not (a partial one may lie inside the cut code).
                let cut = detection.mayBeCutShort
                let clear = earlier.clear || !cut && (earlier.frames == 0 || detection.outlineComplete)
                if readings < configuration.confirmReadings || !clear && frames < Tracker.edgeFrames {
                    pending.append(Pending(detection: detection, readings: readings, clear: clear, frames: frames,
                                           lastSeenNanoseconds: now))
                    continue
                }
            }
            guard !core.isFull else {
                core.refuse(merged.indices.filter { $0 >= d && !detectionMatched[$0] }.count)
                break
            }
            _ = core.start(Code(symbology: detection.symbology, payload: detection.payload, quad: detection.quad,
                                quality: detection.quality))
        }

        let liveIDs = Set(core.entries.map(\.id))
        velocity = velocity.filter { liveIDs.contains($0.key) }
        hidden.formIntersection(liveIDs)
        coasting = coasting.filter { liveIDs.contains($0.key) }
        sincePlaced = sincePlaced.filter { liveIDs.contains($0.key) }
        sinceFollowed = sinceFollowed.filter { liveIDs.contains($0.key) }
        let report = core.report()
        return TrackerUpdate(tracks: report.tracks.map(Self.track), added: report.added.map(Self.track),
                             updated: report.updated.map(Self.track), removed: report.removed.map(Self.track),
                             refused: report.refused)
    }

    /// Largest turn of an outline's edge, radians, from the quad its track was followed to on the
    /// same frame, for the outline to replace it.
    static let maxEdgeTurn = 25 * Double.pi / 180
    /// Outlines of another shape, with no outline of the known shape between them, that replace
    /// the known one (the code did change, or the known shape was wrong): 2, 3 and 5 gave the same
    /// coverage on the eleven kept camera clips; 2 corrects a wrong known shape soonest.
    static let refusedOutlines = 2

    /// A track at `quad`, not followed in the image on this frame, confirmed by a partial outline
    /// `part` (same code): the track keeps its size and shape, moved onto `part`'s centre when
    /// `part` spans the code's length (a 1D reading as long as the code but not as tall) or lies
    /// outside it; a shorter piece inside it moves nothing.
    static func confirmed(_ quad: Quad, by part: Quad) -> Quad {
        let longest = { (q: Quad) in (0..<4).map { q.corners[$0].distance(to: q.corners[($0 + 1) % 4]) }.max() ?? 0 }
        guard longest(part) >= 0.8 * longest(quad) || !quad.contains(part.center) else { return quad }
        let d = part.center - quad.center
        return quad.translated(dx: d.x, dy: d.y)
    }

    /// Removes the unconfirmed readings of `d`'s payload at `d`'s place and returns how many
    /// readings they held, whether they were clear of the frame's edge, and on how many frames.
    private mutating func takePending(_ d: Detection) -> (readings: Int, clear: Bool, frames: Int) {
        var readings = 0, clear = false, frames = 0
        pending.removeAll { p in
            let same = p.detection.symbology == d.symbology && p.detection.payload == d.payload
                && p.detection.quad.center.distance(to: d.quad.center) <= max(p.detection.quad.meanSide, d.quad.meanSide)
            if same { readings += p.readings; clear = clear || p.clear; frames = max(frames, p.frames) }
            return same
        }
        return (readings, clear, frames)
    }

    /// Frames a code ending in guard bars first read at the frame's edge is read on before it
    /// becomes a track, unless a complete outline clear of the edge confirms it: a code cut short
    /// by the edge and misread was read on two (fast seed 37).
    static let edgeFrames = 3

    /// Forgets every track (without reporting them). Ids keep increasing: a later track never reuses one.
    public mutating func reset() {
        pending = []
        core.reset()
        velocity = [:]
        following = []
        coasting = [:]
        sincePlaced = [:]
        hidden = []
        sinceFollowed = [:]
    }

    /// Merges same-code detections that overlap (one's centre inside the other's quad). Keeps a
    /// complete outline over a partial one, then the highest quality one (the earlier on ties), in input order.
    private static func mergeDuplicates(_ detections: [Detection]) -> [Detection] {
        // Complete outlines first, then best quality; ties keep input order.
        let byQuality = detections.indices.sorted { a, b in
            let ca = detections[a].outlineComplete, cb = detections[b].outlineComplete
            if ca != cb { return ca }
            let qa = detections[a].quality, qb = detections[b].quality
            return qa != qb ? qa > qb : a < b
        }
        var kept: [Int] = []
        for i in byQuality {
            let d = detections[i]
            let duplicate = kept.contains { k in
                let other = detections[k]
                guard other.symbology == d.symbology, other.payload == d.payload else { return false }
                // Overlapping readings are one code: twins cannot overlap.
                return other.quad.contains(d.quad.center) || d.quad.contains(other.quad.center)
            }
            if !duplicate { kept.append(i) }
        }
        return kept.sorted().map { detections[$0] }
    }
}
