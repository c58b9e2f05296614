import ARCore
import ARDetect
import ARGst
import ARVision
import CGStreamer
import Foundation

/// Tracker state shared by `artrack` and `arbarcodetrack`: moves the tracks onto each frame by the
/// motion measured in the image (`QuadMotionEstimator` between luma pyramids of consecutive
/// frames), matches the frame's detections on buffer timestamps, smooths what it reports and
/// writes the tracks back as codes on the buffer.
///
/// Per frame: `begin` (motion), then any number of `carry` (detections decoded on older frames),
/// then `finish` (matching, output).
final class TrackingStage {
    private var tracker: Tracker
    private var history = TrackHistory()
    private let estimator = QuadMotionEstimator()
    /// Pyramid of the previous frame's luma, and of the frame in progress.
    private var previous: LumaPyramid?
    private(set) var current: LumaPyramid?
    /// Pyramids of earlier frames whose buffers a new frame's pyramid is written into: the one
    /// before `previous`, and one more for when a decode still reads that one (an async job of two
    /// frames ago: `begin`'s `lent`).
    private var spares = PyramidSpares(capacity: 2)
    /// Motion measured on the last frame per track: the guess for the next.
    private var lastMotion: [UInt64: Homography] = [:]
    private var smoothers: [UInt64: QuadSmoother] = [:]
    /// Per track: its code's look on the last frame it was decoded on, and how many frames in a row
    /// since then its place has not looked like it.
    private var looks: [UInt64: Appearance] = [:]
    private var unlike: [UInt64: Int] = [:]
    /// Per track: readings in a row made on the first frame its place did not look like its code,
    /// and the frame the last of them was made on.
    private var readUnlike: [UInt64: (count: Int, frame: UInt64)] = [:]
    /// Per occluded track: frames in a row its place has looked like its code.
    private var like: [UInt64: Int] = [:]
    /// Looks of the detections carried onto the frame in progress, taken on the frames they were
    /// decoded on (where the code was), at their carried quads.
    private var carriedLooks: [(quad: Quad, look: Appearance, frame: UInt64)] = []
    /// The detections carried onto the frame in progress from earlier frames (`carry`), as carried.
    private var carriedReadings: [Detection] = []
    /// Whether to report tracks whose code is not seen as `occluded`.
    private var detectOcclusion = true
    /// Frames in a row a track's place must look unlike its code before it is `occluded` (two: 67 ms at 30 fps).
    static let occlusionFrames = 2
    /// Similarity to its look (`Appearance.similarity`) at which an occluded track's place shows its
    /// code again: higher than `Appearance.sameCodeSimilarity`, which keeps a seen code seen, as
    /// other bars behind a code that left (another card's, blurred) can look as much like it.
    static let seenAgainSimilarity = 0.6
    /// A 1D code's place is not its code when it changes shade along the code's middle line under
    /// 1/`barsGoneRatio` as often as its look (`Appearance.crossings`, a look with at least
    /// `minLookCrossings`), while the track moved across its bars less than twice the spacing of
    /// those changes since the frame before (motion blur cannot have smeared them out; motion
    /// along the bars does not). Big bars or print left where a card was can match a look at the
    /// grid's coarse scale (live camera seed 53, in 1 of 4–6 runs: a Code 128 drawn 19 frames
    /// after its card left, over a photo's blurred bars; the look taken from H.264's ghost of it).
    /// Without the motion bound, fast seed 3's blurred cards were hidden on 3.5 % more
    /// code-frames; with the whole motion for bound (not its part across the bars), a card that
    /// left fast seed 3 moving along its bars was drawn 19 frames after (sync, re-decoded every frame).
    static let barsGoneRatio = 3
    /// Fewest shade changes in a look for `barsGoneRatio` to apply.
    static let minLookCrossings = 12
    /// A 1D code's place with more than this many times the contrast of its look shows that code
    /// only at `seenAgainSimilarity`: on the look's grid a 1D code's fine bars average to grey, another
    /// code's wide bars do not (new camera seed 67: a card with wide bars under a code that left
    /// matched its look at 0.45–0.49 with twice its contrast, and kept it drawn for 12 frames). So
    /// does one with under 1/1.6 of its look's contrast (seed 67 live: the photo left behind by that
    /// card, its contrast 0.38–0.6 of the card's look, matched it at 0.49–0.53 in one run of four
    /// and kept it drawn for 9 frames).
    static let crisperLook: Float = 1.6
    /// A code's look is kept rather than replaced by one with less than this fraction of its contrast.
    static let flatterLook: Float = 0.5
    private var frameCount: UInt64 = 0
    private var size: (width: Int, height: Int)?
    private var timestamp: UInt64 = 0
    /// Index of the frame in progress, from 0 since start or the last reset.
    private(set) var frameIndex: UInt64 = 0
    /// Nominal frame duration, used when buffers carry no timestamps.
    var frameDurationNanoseconds: UInt64 = 33_333_333
    /// Output smoothing, 0 (none) … 1 (strongest).
    private var smoothing = 0.0
    /// Pyramid levels: with a motion guess, about ±60 pixels of surprise at level 0.
    static let pyramidLevels = 4

    init(configuration: TrackerConfiguration) {
        tracker = Tracker(configuration: configuration)
    }

    /// Detections not tracked because `max-tracks` tracks were alive, summed over frames since start
    /// (not cleared by `reset`).
    private(set) var refusedTracks = 0
    /// Whether `limitWarning` has been given since start.
    private var warnedLimit = false

    /// The warning to post, once per start, the first time a frame's detections were refused for
    /// `max-tracks`; nil otherwise.
    func limitWarning(_ update: TrackerUpdate) -> String? {
        guard update.refused > 0, !warnedLimit else { return nil }
        warnedLimit = true
        return "max-tracks (\(tracker.configuration.maxTracks)) reached: \(update.refused) code(s) on this frame not tracked; "
            + "further ones are counted in 'tracks-refused' of the '\(ElementStats.messageName)' message"
    }

    /// Forget every track and image (flush, seek, discontinuity); ids keep increasing.
    func reset() {
        tracker.reset()
        history.reset()
        // Its buffers serve again (`current` is the same pyramid until the next frame begins).
        if let previous { spares.recycle(previous) }
        previous = nil
        current = nil
        lastMotion = [:]
        smoothers = [:]
        looks = [:]
        unlike = [:]
        readUnlike = [:]
        like = [:]
        carriedReadings = []
    }

    /// Allocates the pyramids of a stream of `width` × `height` frames ahead of them (when caps are
    /// set), so that the start of a stream costs no more than the rest of it (`PyramidSpares.prepare`).
    func prepare(width: Int, height: Int) {
        spares.prepare(width: width, height: height, levelCount: Self.pyramidLevels)
    }

    /// Applies property changes that may happen while playing.
    func configure(_ settings: TrackingSettings) {
        let c = settings.configuration
        let smoothing = settings.smoothing
        if c != tracker.configuration { tracker.configuration = c }
        if settings.occlusion != detectOcclusion {
            detectOcclusion = settings.occlusion
            if !detectOcclusion { tracker.markOccluded([]) }
        }
        if smoothing != self.smoothing {
            self.smoothing = smoothing
            smoothers = [:]
        }
    }

    /// Starts `frame`: resets on a discontinuity, rescales on a size change, and moves every live
    /// track by the motion measured between the previous frame's luma and `luma` (or coasts it
    /// when there is no luma or the flow fails). Returns the live tracks where they now are.
    /// `forEach(n, body)` calls `body` for every index in `0..<n` (each track's motion is measured
    /// on its own, e.g. on the decoding threads). `lent`: a pyramid of an earlier frame something
    /// else still reads (an async decode job), whose buffers the new pyramid does not take.
    @discardableResult
    func begin(frame: VideoFrame, luma: LumaImage?, lent: LumaPyramid? = nil,
               forEach: (Int, @escaping (Int) -> Void) -> Void = { n, body in for i in 0..<n { body(i) } }) -> [Track] {
        let buffer = frame.buffer
        timestamp = buffer.ptsNanoseconds ?? frameCount &* frameDurationNanoseconds
        if buffer.isDiscont && frameCount > 0 { reset() }
        frameIndex = frameCount
        frameCount &+= 1
        if let old = size, old.width != frame.width || old.height != frame.height {
            tracker.rescale(sx: Double(frame.width) / Double(old.width), sy: Double(frame.height) / Double(old.height))
            history.reset()
            previous = nil
            lastMotion = [:]
            smoothers = [:]
            looks = [:]
            unlike = [:]
            readUnlike = [:]
            like = [:]
        }
        size = (frame.width, frame.height)
        current = luma.map {
            spares.pyramid(copying: $0.base, width: $0.width, height: $0.height, stride: $0.stride,
                           levelCount: Self.pyramidLevels, lent: lent)
        }
        var motions: [UInt64: Homography] = [:]
        if let prev = previous, let cur = current, prev.width == cur.width, prev.height == cur.height {
            let tracks = tracker.liveTracks, estimator = estimator, last = lastMotion
            var found = [Homography?](repeating: nil, count: tracks.count)
            found.withUnsafeMutableBufferPointer { out in
                let out = out  // each call writes its own index only
                forEach(tracks.count) { i in
                    out[i] = estimator.estimate(tracks[i].quad, from: prev, to: cur, predicted: last[tracks[i].id])?.transform
                }
            }
            for (t, m) in zip(tracks, found) { motions[t.id] = m }
        }
        lastMotion = motions
        tracker.advance(motions: motions)
        if detectOcclusion, let cur = current { checkOcclusion(cur) }
        return tracker.liveTracks
    }

    /// The codes of `tracks` seen where they are: full scans leave these to the tracks' re-decodes.
    /// An occluded track's place is scanned afresh (another code may be in front of it), and so is
    /// one whose place has stopped looking like its code (a card sliding over it).
    func seenCodes(_ tracks: [Track]) -> [KnownCode] {
        let occluded = tracker.occludedIDs
        return tracks.filter { !occluded.contains($0.id) && (!detectOcclusion || (unlike[$0.id] ?? 0) == 0) }
            .map { KnownCode(quad: $0.quad, kind: LocatedRegion.Kind(symbology: $0.symbology)) }
    }

    /// Least angle between a 1D reading's bars and a track's for the reading to be another code's
    /// (degrees): a misreading of the tracked code lies along its bars.
    static let coveringAngle = 8.0

    /// `detections` with the live tracks whose place has stopped looking like their code, whose
    /// code is not among the readings of the frame in progress (those not in `carried`, which were
    /// read on earlier frames), and over which another code is read (lying on it:
    /// `Detection.liesOn`), marked occluded: the code on a card slid over it then starts its track
    /// on this frame instead of waiting for the occlusion. Such a covering code is a QR code (over
    /// any track), or over a 1D track a 1D code with a measured outline whose bars lie at least
    /// `coveringAngle` from the track's. Other readings of other payloads over a covered track are
    /// dropped: a misreading of the covered code is not let through with the card's code; so are
    /// its code's readings carried from an earlier frame (it was covered since).
    private func coveringCodes(_ detections: [Detection], carried: [Detection]) -> [Detection] {
        let occluded = tracker.occludedIDs
        let fresh = carried.isEmpty ? detections : detections.filter { !carried.contains($0) }
        var covered: [Track] = []
        func covers(_ d: Detection, _ t: Track) -> Bool {
            if Detection.isSelfChecking(symbology: d.symbology) { return true }
            return !Detection.isSelfChecking(symbology: t.symbology) && d.outlineComplete
                && axisDifference(d.quad.readingAxis, t.quad.readingAxis) * 180 / .pi >= Self.coveringAngle
        }
        for t in tracker.liveTracks where (unlike[t.id] ?? 0) > 0 && !occluded.contains(t.id)
            && !fresh.contains(where: { $0.symbology == t.symbology && $0.payload == t.payload }) {
            if fresh.contains(where: { $0.payload != t.payload && $0.liesOn(t.quad) && covers($0, t) }) { covered.append(t) }
        }
        guard !covered.isEmpty else { return detections }
        tracker.markOccluded(occluded.union(covered.map(\.id)))
        return detections.filter { d in
            !covered.contains { t in
                d.payload != t.payload
                    ? d.liesOn(t.quad) && !covers(d, t)
                    : d.symbology == t.symbology && t.quad.contains(d.quad.center) && carried.contains(d)
            }
        }
    }

    /// Whether track `t` moved less than twice `spacing` (px) across its bars (along its reading
    /// axis, top-left to top-right) since the frame before (false when it was not live then): too
    /// little for motion blur to smear out shade changes that far apart. Motion along the bars
    /// blurs them into themselves and keeps them.
    private func stoodStill(_ t: Track, spacing: Double) -> Bool {
        guard frameIndex > 0, let before = history.track(t.id, at: frameIndex - 1)?.quad else { return false }
        let axis = t.quad.topRight - t.quad.topLeft, length = t.quad.topLeft.distance(to: t.quad.topRight)
        guard length > 0 else { return false }
        return abs(dot(t.quad.center - before.center, axis)) / length < 2 * spacing
    }

    /// Marks occluded the tracks whose place has not looked like their code for `occlusionFrames`
    /// frames in a row (or lies mostly outside the frame), and seen again those whose place has
    /// looked like it for as many frames in a row (one frame's likeness may be chance: a plain
    /// background where a code was) or whose code is read again. An occluded track whose centre
    /// lies on another code in view (a live track of another payload, not occluded) stays
    /// occluded whatever its place looks like: two codes cannot overlap, and another code's bars
    /// can look like a strip of its own (new camera seed 41: a Code 128 strip read at the frame's
    /// edge, covered by an EAN-13, drawn over it for 13 frames). A 1D code's place that lost most
    /// of its bars while the code stood still across them does not look like it (`barsGoneRatio`).
    private func checkOcclusion(_ pyramid: LumaPyramid) {
        var occluded = tracker.occludedIDs, alike: Set<UInt64> = []
        let live = tracker.liveTracks, hidden = occluded
        for t in live {
            guard let look = looks[t.id] else { continue }
            let covered = hidden.contains(t.id) && live.contains {
                !hidden.contains($0.id) && $0.payload != t.payload && $0.quad.contains(t.quad.center)
            }
            let patch = Appearance(pyramid, quad: t.quad)
            // A 1D code's place much crisper or much flatter than its look.
            let unlikeContrast = !Detection.isSelfChecking(symbology: t.symbology) && patch.map {
                $0.contrast > Self.crisperLook * look.contrast || Self.crisperLook * $0.contrast < look.contrast
            } ?? false
            // A 1D code's place that lost most of its bars while the code stood still across them (`barsGoneRatio`).
            let barsGone = !Detection.isSelfChecking(symbology: t.symbology) && look.crossings >= Self.minLookCrossings
                && patch.map { $0.crossings * Self.barsGoneRatio < look.crossings } ?? false
                && stoodStill(t, spacing: t.quad.topLeft.distance(to: t.quad.topRight) / Double(look.crossings))
            let threshold = occluded.contains(t.id) || unlikeContrast ? Self.seenAgainSimilarity : Appearance.sameCodeSimilarity
            if !covered, !barsGone, patch?.matches(look, minSimilarity: threshold) ?? false {
                unlike[t.id] = 0
                alike.insert(t.id)
                let n = (like[t.id] ?? 0) + 1
                like[t.id] = n
                if n >= Self.occlusionFrames { occluded.remove(t.id) }
            } else {
                like[t.id] = 0
                let n = (unlike[t.id] ?? 0) + 1
                unlike[t.id] = n
                if n >= Self.occlusionFrames { occluded.insert(t.id) }
            }
        }
        tracker.markOccluded(occluded)
        // Followed and looking like its code: seen, though not read (`followLimitNanoseconds`).
        tracker.markFollowed(alike)
    }

    /// Detections decoded on frame `index` (e.g. by a worker), moved onto the frame in progress: by
    /// the tracked motion of the track they belong to, else by the image motion from `pyramid`
    /// (that frame's luma) to this frame's. A new code (no live track of its payload) whose motion
    /// cannot be measured is kept where it was decoded, a few frames old: the flow and the next
    /// re-decode around it correct it, where dropping it would wait for another full scan. Other
    /// detections that cannot be carried are dropped.
    ///
    /// A reading of a code whose track is occluded on this frame (its place no longer looks like
    /// it) is carried by the image motion (the track has stood still since), else kept where it was
    /// read. It ends the occlusion when the track was already occluded on the frame it was read on
    /// and it is at most `occlusionFrames` frames old (the code is back, read since it was hidden),
    /// or when the code looks to be where it is carried; else the code was covered after it was
    /// read, and the reading is dropped.
    func carry(_ detections: [Detection], from index: UInt64, pyramid: LumaPyramid?) -> [Detection] {
        guard index != frameIndex else { return detections }
        let live = tracker.liveTracks, occluded = tracker.occludedIDs
        let kept = detections.compactMap { d -> Detection? in
            let hidden = live.filter { $0.symbology == d.symbology && $0.payload == d.payload }
                .min { $0.quad.center.distance(to: d.quad.center) < $1.quad.center.distance(to: d.quad.center) }
                .flatMap { occluded.contains($0.id) ? $0 : nil }
            guard let moved = carried(d, from: index, live: live, pyramid: pyramid, byTrack: hidden == nil) else { return nil }
            // The code's look where it was read: on this frame it may be covered already.
            let look = detectOcclusion ? pyramid.flatMap { Appearance($0, quad: d.quad) } : nil
            if let hidden {
                let readSinceHidden = history.track(hidden.id, at: index)?.state == .occluded
                    && index + UInt64(Self.occlusionFrames) >= frameIndex
                let looksThere = look.flatMap { l in current.flatMap { Appearance($0, quad: moved.quad) }.map { $0.matches(l) } } ?? false
                guard readSinceHidden || looksThere else { return nil }
            }
            if let look { carriedLooks.append((moved.quad, look, index)) }
            return moved
        }
        carriedReadings += kept
        return kept
    }

    /// `d`, decoded on frame `index`, moved onto the frame in progress (see `carry`): by its
    /// track's motion when `byTrack`, else (or when that fails) by the image's; nil when it cannot
    /// be carried.
    private func carried(_ d: Detection, from index: UInt64, live: [Track], pyramid: LumaPyramid?, byTrack: Bool) -> Detection? {
        if byTrack, let moved = history.carry(d, from: index, to: live) { return moved }
        // A new code, or one whose track is hidden, is kept where it was read when its motion
        // cannot be measured; other readings are dropped.
        let keep = !byTrack || !live.contains { $0.symbology == d.symbology && $0.payload == d.payload }
        guard let pyramid, let cur = current, pyramid.width == cur.width, pyramid.height == cur.height else {
            return keep ? d : nil
        }
        // A code's own texture may not be enough (fine bars follow only across): retry with
        // its surroundings, a region twice its size.
        // A fit that folds the quad or changes its area twofold is refused.
        for region in [d.quad, d.quad.grown(by: 2)] {
            guard let m = estimator.estimate(region, from: pyramid, to: cur) else { continue }
            var moved = d
            moved.quad = m.transform.apply(d.quad)
            if moved.quad.isPlausibleMove(from: d.quad) { return moved }
        }
        return keep ? d : nil
    }

    /// Matches `detections` (pixels of the frame in progress), writes the tracks onto `frame`
    /// followed by `located` (regions seen but not read on this frame, state `located`: they are
    /// not tracks, pass through untouched and are not announced) and returns the tracker's update
    /// and what to announce.
    @discardableResult
    func finish(_ detections: [Detection], located: [BarcodeRegion] = [], frame: VideoFrame)
        -> (update: TrackerUpdate, events: TrackEvents.Frame) {
        let detections = detectOcclusion ? coveringCodes(detections, carried: carriedReadings) : detections
        carriedReadings = []
        let update = tracker.update(detections: detections, timestampNanoseconds: timestamp)
        refusedTracks += update.refused
        history.record(frame: frameIndex, tracks: update.tracks)
        if let previous { spares.recycle(previous) }
        previous = current
        let seconds = Double(timestamp) / 1e9
        var reported: [BarcodeRegion] = []
        for t in update.tracks {
            var quad = t.quad
            if smoothing > 0 {
                var s = smoothers[t.id] ?? Self.smoother(smoothing)
                quad = s.smooth(quad, timestampSeconds: seconds)
                smoothers[t.id] = s
            }
            reported.append(BarcodeRegion(trackID: t.id, symbology: t.symbology, payload: t.payload, quad: quad,
                                          state: t.state, quality: t.quality))
        }
        for t in update.removed {
            smoothers[t.id] = nil
            looks[t.id] = nil
            unlike[t.id] = nil
            readUnlike[t.id] = nil
            like[t.id] = nil
        }
        // A code's look is taken where it was decoded: on the frame it was read on.
        if detectOcclusion, let cur = current {
            for t in update.tracks where t.state != .detected { readUnlike[t.id] = nil }
            for t in update.tracks where t.state == .detected {
                let carried = carriedLooks.first { $0.quad.contains(t.quad.center) || t.quad.contains($0.quad.center) }
                // The code looked like itself where it was read; of the frames since (a worker's
                // reading is carried from an earlier one), those its place did not look like it still count.
                let since = carried.map { Int(frameIndex - min(frameIndex, $0.frame)) } ?? 0
                defer { unlike[t.id] = min(unlike[t.id] ?? 0, since) }
                // Read on the very frame its place stopped looking like it: perhaps the code's ghost
                // (H.264's next frame after its card is gone: the bars blended into what was behind
                // them), whose look would match what is left there and keep the track drawn until
                // expiry. The old look stays, unless the code is read so on the next frame too.
                // (`unlike` frames in a row, this one included, have not looked like it.) A reading of
                // a frame no later than the one held back is none on the next frame (a worker hands
                // over a frame's codes early, then again with its whole result on a later frame).
                let readOn = carried?.frame ?? frameIndex
                if let held = readUnlike[t.id], readOn <= held.frame { continue }
                if let frames = unlike[t.id], frames > 0, frameIndex + 1 - UInt64(frames) == readOn {
                    let n = (readUnlike[t.id]?.count ?? 0) + 1
                    readUnlike[t.id] = (n, readOn)
                    if n < Self.occlusionFrames { continue }
                }
                readUnlike[t.id] = nil
                // A much flatter look does not replace a crisp one: a code read as it fades out (its
                // ghost in H.264's next frames) would leave its place matching that ghost after it is gone.
                if let look = carried?.look ?? Appearance(cur, quad: t.quad),
                   look.contrast >= Self.flatterLook * (looks[t.id]?.contrast ?? 0) {
                    looks[t.id] = look
                }
            }
        }
        carriedLooks = []
        frame.setBarcodeRegions(reported + located.filter { $0.state == .located })
        let addedIDs = Set(update.added.map(\.id)), removedIDs = Set(update.removed.map(\.id))
        let events = TrackEvents.Frame(index: frameIndex, ptsNanoseconds: frame.buffer.ptsNanoseconds,
                                       added: reported.filter { addedIDs.contains($0.trackID!) },
                                       updated: reported.filter { !addedIDs.contains($0.trackID!) && !removedIDs.contains($0.trackID!) },
                                       removed: reported.filter { removedIDs.contains($0.trackID!) })
        return (update, events)
    }

    /// One Euro parameters for a smoothing of `s` (0…1): the cutoff at rest falls from 20 Hz to
    /// 0.5 Hz, and rises fast with speed so moving codes are followed without lag.
    private static func smoother(_ s: Double) -> QuadSmoother {
        let k = min(1, max(0, s))
        return QuadSmoother(minCutoff: 0.5 + 19.5 * (1 - k) * (1 - k), beta: 0.05 + 0.5 * (1 - k), dCutoff: 1)
    }
}

/// Tracker properties shared by `artrack` and `arbarcodetrack`: their values and their entries
/// in each element's property table, declared once here.
struct TrackingSettings: Sendable {
    /// Seconds a track lives after its last decode.
    var expirySeconds = 1.0
    /// Seconds a track followed in the image lives unread.
    var followLimitSeconds = 3.0
    var maxTracks = 64
    /// 0 (none) … 1 (strongest).
    var smoothing = 0.0
    var messages = true
    var messageUpdates = false
    /// Agreeing readings a new 1D code needs to become a track.
    var confirm = 2
    /// Report tracks whose code is not seen at their place as `occluded`.
    var occlusion = true
    /// Seconds between stats messages (0 = none).
    var statsInterval = 0.0

    /// The counts a tracking element's stats message carries: live tracks, how many are occluded, and
    /// `refused` (detections not tracked for `max-tracks` since start).
    static func counts(_ update: TrackerUpdate, refused: Int) -> [(String, Int)] {
        let live = update.tracks.filter { $0.state != .lost }
        return [("tracks", live.count), ("occluded", live.filter { $0.state == .occluded }.count), ("tracks-refused", refused)]
    }

    var configuration: TrackerConfiguration {
        TrackerConfiguration(expiryNanoseconds: UInt64(max(0, expirySeconds) * 1e9), maxTracks: maxTracks, confirmReadings: confirm,
                             followLimitNanoseconds: UInt64(max(0, followLimitSeconds) * 1e9))
    }

    /// The tracking properties of an element whose settings hold these at `path`.
    static func properties<S>(_ path: WritableKeyPath<S, TrackingSettings>) -> [Property<S>] {
        [
            .double("expiry", "Expiry",
                    "Seconds a track lives after its last successful decode (then reported once as 'lost' and removed), on buffer timestamps; "
                        + "longer while it is followed in the image (follow-limit)",
                    path.appending(path: \.expirySeconds), range: 0...10),
            .double("follow-limit", "Follow limit",
                    "Seconds a track lives unread while it is followed in the image: past 'expiry' since its last decode it lives "
                        + "on each frame its motion is measured and its place still looks like its code (as 'occlusion' checks; "
                        + "needs occlusion=true and a format with a luma plane), and is lost when it has not on two frames in a row. At most 'expiry': expiry alone",
                    path.appending(path: \.followLimitSeconds), range: 0...60),
            .uint("max-tracks", "Maximum tracks", "Most tracks followed at once; codes beyond it are not tracked",
                  path.appending(path: \.maxTracks), range: 1...1024),
            .double("smoothing", "Smoothing",
                    "Smoothing of the reported corners (One Euro filter), 0 = none ... 1 = strongest; fast motion is followed without lag",
                    path.appending(path: \.smoothing), range: 0...1),
            .uint("confirm", "Confirm 1D codes",
                  "Agreeing readings a new 1D code needs before it becomes a track: scan lines that read it on one frame, plus "
                      + "readings of the same payload at the same place on earlier frames (2D codes carry error correction and "
                      + "need one). 1 shows single-line readings at once, misreads of blurred codes included; higher waits longer. "
                      + "An EAN/UPC or ITF code first read touching the frame's edge (perhaps a longer code cut short) also needs "
                      + "readings on 3 frames, or a whole outline of it clear of the edge",
                  path.appending(path: \.confirm), range: 1...8),
            .bool("occlusion", "Detect occlusion",
                  "Report a track as 'occluded' when its place has not looked like its code for 2 frames in a row (covered, torn "
                      + "off, out of the frame), or on the first such frame when another code is read over it and its own is not (a QR "
                      + "code, or a 1D code at 8 degrees or more from its bars): kept unmoved under its id until expiry, back when its code is read again or its place "
                      + "looks like it for 2 frames in a row; aroverlay does not draw it. false: such tracks stay 'tracked' at their last place until expiry",
                  path.appending(path: \.occlusion)),
            ElementStats.property(path.appending(path: \.statsInterval)),
            .bool("post-messages", "Post messages", TrackEvents.messagesBlurb, path.appending(path: \.messages)),
            .bool("message-updates", "Message updates", TrackEvents.updatesBlurb, path.appending(path: \.messageUpdates)),
        ]
    }
}
