import ARCore

/// A note pinned to a point of the scene.
public struct SceneNote: Hashable, Sendable {
    public var id: UInt64
    public var text: String
    /// The scene point in frame pixels, where it is now (may lie outside the frame).
    public var point: Point
    /// Whether the point is inside the frame and its spot looks as it did when the note was pinned.
    public var visible: Bool
    /// Whether the spot has not looked like itself for `SceneNotes.occlusionFrames` frames in a row
    /// (something in front of it): hidden, kept, back when it looks like itself again.
    public var occluded = false
    /// When the point was last inside the frame, nanoseconds of stream time.
    public var lastSeenNanoseconds: UInt64
}

/// Notes anchored to the scene, not the screen: each note's point follows the image texture around
/// it from frame to frame (`QuadMotionEstimator` on a patch around the point), or, where the patch
/// cannot be followed (the point near or past the frame's edge), the motion of the whole frame, so
/// a point that leaves the frame keeps moving with the scene and comes back with it. A note whose
/// point has stayed outside the frame for `expiryNanoseconds` is dropped. Ids, states and expiry
/// are the shared `TargetTracker`'s (a note is `tracked` while visible, `occluded` while hidden);
/// this type is the notes' motion. Pure and deterministic.
public struct SceneNotes: Sendable {
    /// How long a note's point may stay out of the frame before the note is dropped, nanoseconds.
    public var expiryNanoseconds: UInt64 {
        get { core.expiryNanoseconds }
        set { core.expiryNanoseconds = newValue }
    }
    /// Side of the patch followed around a note's point, pixels.
    public var patch = 72.0
    /// What a note holds besides the lifecycle.
    private struct Note: Sendable {
        var text: String
        var point: Point
        var visible: Bool
        var occluded: Bool
    }

    private var core: TargetTracker<Note>
    /// The notes, by id.
    public var notes: [SceneNote] {
        core.entries.map { e in
            SceneNote(id: e.id, text: e.target.text, point: e.target.point, visible: e.target.visible,
                      occluded: e.target.occluded, lastSeenNanoseconds: e.lastSeenNanoseconds)
        }
    }
    private let estimator = QuadMotionEstimator()
    /// Each note's spot as it looked when pinned (a patch around its point), and the frames in a row
    /// it has not looked like that.
    private var looks: [UInt64: Appearance] = [:]
    private var unlike: [UInt64: Int] = [:]
    /// Frames in a row a spot must look unlike itself to count as covered.
    public static let occlusionFrames = 2

    public init(expiryNanoseconds: UInt64 = 10_000_000_000) {
        core = TargetTracker(expiryNanoseconds: expiryNanoseconds, maxTracks: .max)
    }

    /// Pins a note with id `id` (unique, chosen by the caller; not a live note's) at `point` (frame
    /// pixels) at buffer time `now` (nanoseconds); `pyramid`, the frame's luma, gives the look of its
    /// spot (without it the spot is not checked for cover).
    public mutating func add(id: UInt64, at point: Point, text: String, now: UInt64, in pyramid: LumaPyramid? = nil) {
        core.clock(now)
        _ = core.start(Note(text: text, point: point, visible: true, occluded: false), id: id)
        // A note is shown (`tracked`) from the start; notes announce nothing, so no report is kept.
        if let i = core.entries.firstIndex(where: { $0.id == id }) { core.setState(.tracked, at: i) }
        _ = core.report()
        if let pyramid, let look = Appearance(pyramid, quad: spot(point)) { looks[id] = look }
    }

    /// The patch around `point` whose look identifies a note's spot.
    private func spot(_ point: Point) -> Quad {
        Quad(Rect(x: point.x - patch / 2, y: point.y - patch / 2, width: patch, height: patch))
    }

    /// Replaces a note's text; false when there is no such note.
    @discardableResult
    public mutating func edit(_ id: UInt64, text: String) -> Bool {
        guard let i = core.entries.firstIndex(where: { $0.id == id }) else { return false }
        core.modify(i) { $0.text = text }
        return true
    }

    /// Removes a note; false when there is no such note.
    @discardableResult
    public mutating func remove(_ id: UInt64) -> Bool {
        guard core.remove(id: id) != nil else { return false }
        looks[id] = nil
        unlike[id] = nil
        return true
    }

    /// Forgets every note (a flush, a discontinuity).
    public mutating func removeAll() {
        core.reset()
        looks = [:]
        unlike = [:]
    }

    /// Moves every note's point with the scene from `previous` to `next` (same size), marks which
    /// are in the frame, and drops those out of it for longer than the expiry.
    public mutating func advance(from previous: LumaPyramid?, to next: LumaPyramid?, now: UInt64) {
        guard !core.entries.isEmpty, let next else { return }
        core.clock(now)
        let w = Double(next.width), h = Double(next.height)
        if let previous, previous.width == next.width, previous.height == next.height {
            let inset = 0.05
            let frame = Quad(Rect(x: w * inset, y: h * inset, width: w * (1 - 2 * inset), height: h * (1 - 2 * inset)))
            let global = estimator.estimate(frame, from: previous, to: next)?.transform
            for i in core.entries.indices {
                let p = core[i].target.point
                let half = patch / 2
                var moved: Point?
                if p.x - half >= 0, p.y - half >= 0, p.x + half <= w, p.y + half <= h {
                    let around = Quad(Rect(x: p.x - half, y: p.y - half, width: patch, height: patch))
                    if let local = estimator.estimate(around, from: previous, to: next, predicted: global) {
                        let q = local.transform.apply(p)
                        // A patch that slid off with something moving over it is not the scene.
                        if let g = global?.apply(p), q.distance(to: g) > half { moved = g } else { moved = q }
                    }
                }
                if let q = moved ?? global?.apply(p), q.x.isFinite, q.y.isFinite { core.modify(i) { $0.point = q } }
            }
        }
        for i in core.entries.indices {
            let p = core[i].target.point
            let inside = p.x >= 0 && p.y >= 0 && p.x < w && p.y < h
            // Covered: the whole spot in view, and not like itself for a few frames in a row.
            let id = core[i].id
            var occluded = core[i].target.occluded
            if inside, let look = looks[id], p.x - patch / 2 >= 0, p.y - patch / 2 >= 0, p.x + patch / 2 <= w, p.y + patch / 2 <= h,
               let seen = Appearance(next, quad: spot(p)) {
                let n = seen.matches(look) ? 0 : (unlike[id] ?? 0) + 1
                unlike[id] = n
                occluded = n >= Self.occlusionFrames
            } else if !inside {
                unlike[id] = 0
                occluded = false
            }
            let visible = inside && !occluded
            core.modify(i) { note in
                note.occluded = occluded
                note.visible = visible
            }
            if inside { core.see(i, as: visible ? .tracked : .occluded) } else { core.setState(.occluded, at: i) }
        }
        // Only a note out of view ages: one in view was seen now.
        for gone in core.expire() {
            looks[gone.id] = nil
            unlike[gone.id] = nil
        }
        _ = core.report()
    }
}
