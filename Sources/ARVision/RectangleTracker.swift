import ARCore

/// A rectangle followed across frames under a stable id.
public struct RectangleTrack: Hashable, Sendable {
    /// Unique within a stream, from 1, never reused.
    public var id: UInt64
    /// Corners in frame pixels, clockwise from the one that was nearest the top-left when found.
    public var quad: Quad
    /// `detected` (a search found it on this frame), `tracked` (followed by its texture),
    /// `occluded` (not followed on this frame: kept where it was) or `lost` (expired, last report).
    public var state: TrackState
    /// Shorter side over longer as last detected, 0…1.
    public var aspect: Double
    /// Confidence of its last detection, 0…1.
    public var confidence: Double
}

/// What one `RectangleTracker.update` reports, each list sorted by id.
public struct RectangleUpdate: Hashable, Sendable {
    /// Every live track, and those lost on this frame.
    public var tracks: [RectangleTrack]
    public var added: [RectangleTrack]
    public var removed: [RectangleTrack]
}

/// Follows rectangles (pictures, posters) frame to frame by their own texture (`PlanarTarget`)
/// and gives each a stable id. A detection continues the track at its place (their centres inside
/// each other's quads and corners within a quarter of the size) when it also looks like it (its
/// `Appearance` correlates with the track's as last found); close enough (within `snapFraction`
/// of the size) it also moves the track onto its sharper outline. A detection at a track's place
/// that looks different is another picture (a poster swapped, a screen changed): that track ends
/// (`lost`) and the detection starts a new one, under a new id. Other detections start tracks, up
/// to `maxTracks`. A track not followed for `expiryNanoseconds` of buffer time is
/// reported `lost` once and forgotten. Ids, states and expiry are the shared `TargetTracker`'s;
/// this type is the rectangles' matching (place) and motion (texture). Pure and deterministic.
public struct RectangleTracker: Sendable {
    /// A track not followed for longer than this is lost, nanoseconds.
    public var expiryNanoseconds: UInt64 {
        get { core.expiryNanoseconds }
        set { core.expiryNanoseconds = newValue }
    }
    /// Most live tracks.
    public var maxTracks: Int {
        get { core.maxTracks }
        set { core.maxTracks = newValue }
    }
    /// A detection whose corners are all within this fraction of the track's size moves the track
    /// onto it (the detector's outline is sharper than the followed one); farther ones only confirm it.
    public var snapFraction = 0.04

    /// Least correlation of a detection's look (`look`) with the track's for the two to be one
    /// picture: the same picture seen again correlates about 0.8 or more (lighting, tilt and blur
    /// change little of it), another picture near 0.
    public var minSimilarity = 0.5

    /// What a rectangle track holds besides the lifecycle: its outline and look as last detected,
    /// and its texture followed from frame to frame.
    private struct Rectangle: Sendable {
        var quad: Quad
        var aspect: Double
        var confidence: Double
        var target: PlanarTarget
        /// Its look where it was last detected (`look`; nil: too little of it in the frame).
        var look: Appearance?
    }

    private var core: TargetTracker<Rectangle>

    /// A tracker with `expiryNanoseconds` of expiry and at most `maxTracks` tracks.
    public init(expiryNanoseconds: UInt64 = 1_000_000_000, maxTracks: Int = 4) {
        core = TargetTracker(expiryNanoseconds: expiryNanoseconds, maxTracks: maxTracks)
    }

    /// The live tracks where they were last reported.
    public var tracks: [RectangleTrack] { core.entries.map(Self.track) }

    /// A core entry as the track it reports.
    private static func track(_ e: TargetTracker<Rectangle>.Entry) -> RectangleTrack {
        RectangleTrack(id: e.id, quad: e.target.quad, state: e.state, aspect: e.target.aspect, confidence: e.target.confidence)
    }

    /// Forgets every track (flush, seek); ids keep increasing.
    public mutating func reset() { core.reset() }

    /// Rescales every track for a new frame size.
    public mutating func rescale(sx: Double, sy: Double) {
        // Points no longer match the image: tracks are dropped and found again.
        if sx != 1 || sy != 1 { core.reset() }
    }

    /// Moves every track from `previous` to `next` (consecutive frames) by its texture's motion at
    /// buffer time `timestampNanoseconds`; a track that cannot be followed is `occluded` and stays.
    public mutating func advance(from previous: LumaPyramid, to next: LumaPyramid, timestampNanoseconds: UInt64) {
        core.clock(timestampNanoseconds)
        for i in core.entries.indices {
            let followed = core.modify(i) { r in
                guard r.target.track(from: previous, to: next) else { return false }
                r.quad = r.target.quad
                return true
            }
            if followed { core.see(i, as: .tracked) } else { core.setState(.occluded, at: i) }
        }
    }

    /// Matches `detections` (pixels of the frame whose pyramid is `pyramid`) to the tracks, starts
    /// tracks for new ones, expires old ones, and reports the frame at `timestampNanoseconds`.
    public mutating func update(detections: [RectangleCandidate], pyramid: LumaPyramid, timestampNanoseconds: UInt64) -> RectangleUpdate {
        core.clock(timestampNanoseconds)
        for d in detections.sorted(by: { $0.confidence > $1.confidence }) {
            // A track keeps the corner it started from; a search starts from the one nearest the
            // top-left: the detection turned to the track's order (a picture turned in its plane).
            let entries = core.entries
            let match = entries.indices.lazy.map { i in (i, Self.turned(d.quad, toward: entries[i].target.quad)) }
                .first { Self.samePlace(entries[$0.0].target.quad, $0.1) }
            if let (i, quad) = match {
                let look = Self.look(quad, in: pyramid)
                if let look, let before = core[i].target.look, look.similarity(to: before) < minSimilarity {
                    core.lose(id: core[i].id)  // another picture at its place: a new track below
                } else {
                    core.modify(i) { [snapFraction] r in
                        if quad.maxCornerDistance(to: r.quad) <= snapFraction * r.quad.meanSide {
                            r.target.correct(to: quad, pyramid: pyramid)
                            r.quad = r.target.quad
                        }
                        r.aspect = d.aspect
                        r.confidence = d.confidence
                        r.look = look ?? r.look
                    }
                    core.see(i)
                    continue
                }
            }
            guard !core.isFull, let target = PlanarTarget(quad: d.quad, pyramid: pyramid) else { continue }
            _ = core.start(Rectangle(quad: d.quad, aspect: d.aspect, confidence: d.confidence, target: target,
                                     look: Self.look(d.quad, in: pyramid)))
        }
        core.expire()
        let report = core.report()
        return RectangleUpdate(tracks: report.tracks.map(Self.track), added: report.added.map(Self.track),
                               removed: report.removed.map(Self.track))
    }

    /// The look of the middle of `quad` (80 % of it across), what a search compares: a frame or
    /// margin alike on many pictures would make two pictures look alike (correlation 0.5–0.6
    /// with it, 0.2 at most without, on the generated posters; the same poster turned 0.8–0.95).
    static func look(_ quad: Quad, in pyramid: LumaPyramid) -> Appearance? {
        Appearance(pyramid, quad: quad.grown(by: 0.8))
    }

    /// `quad`'s corners turned (cyclically) to lie nearest `reference`'s, corner by corner.
    static func turned(_ quad: Quad, toward reference: Quad) -> Quad {
        let c = quad.corners
        let turns = (0..<4).map { k in Quad((0..<4).map { c[($0 + k) % 4] })! }
        return turns.min { $0.maxCornerDistance(to: reference) < $1.maxCornerDistance(to: reference) }!
    }

    /// Whether two quads outline the same thing: each one's centre inside the other and every
    /// corner within a quarter of the mean side.
    static func samePlace(_ a: Quad, _ b: Quad) -> Bool {
        a.contains(b.center) && b.contains(a.center) && a.maxCornerDistance(to: b) <= 0.25 * max(a.meanSide, b.meanSide)
    }
}

/// Rectified copies of a quad's pixels.
public enum Rectifier {
    /// The `outWidth` × `outHeight` upright picture of what lies inside `quad` in `rgba` (a
    /// `width` × `height` frame of 4-byte pixels, rows packed), by bilinear sampling; corners
    /// of `quad` map to the picture's corners (top-left first, clockwise).
    public static func rgba(_ rgba: [UInt8], width: Int, height: Int, quad: Quad, outWidth: Int, outHeight: Int) -> [UInt8] {
        let rect = Quad(Rect(x: 0, y: 0, width: Double(outWidth), height: Double(outHeight)))
        var out = [UInt8](repeating: 255, count: outWidth * outHeight * 4)
        guard let h = Homography(from: rect, to: quad), width > 0, height > 0 else { return out }
        rgba.withUnsafeBufferPointer { src in
            for y in 0..<outHeight {
                for x in 0..<outWidth {
                    let p = h.apply(Point(x: Double(x) + 0.5, y: Double(y) + 0.5))
                    let fx = min(max(p.x - 0.5, 0), Double(width - 1)), fy = min(max(p.y - 0.5, 0), Double(height - 1))
                    guard fx.isFinite, fy.isFinite else { continue }
                    let x0 = Int(fx), y0 = Int(fy), x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
                    let ax = fx - Double(x0), ay = fy - Double(y0)
                    let o = (y * outWidth + x) * 4
                    for c in 0..<3 {
                        let top = Double(src[(y0 * width + x0) * 4 + c]) * (1 - ax) + Double(src[(y0 * width + x1) * 4 + c]) * ax
                        let bottom = Double(src[(y1 * width + x0) * 4 + c]) * (1 - ax) + Double(src[(y1 * width + x1) * 4 + c]) * ax
                        out[o + c] = UInt8(min(255, max(0, (top * (1 - ay) + bottom * ay).rounded())))
                    }
                }
            }
        }
        return out
    }

    /// The size of `quad`'s rectified picture: its mean width and height in pixels, scaled down
    /// so the longer is at most `maxSide`; at least 1 × 1.
    public static func size(of quad: Quad, maxSide: Int) -> (width: Int, height: Int) {
        let w = max(1, quad.width), h = max(1, quad.height)
        let k = min(1, Double(maxSide) / max(w, h))
        return (max(1, Int((w * k).rounded())), max(1, Int((h * k).rounded())))
    }
}
