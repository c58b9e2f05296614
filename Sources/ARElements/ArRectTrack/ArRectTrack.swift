import ARBridge
import ARCore
import ARDetect
import ARGst
import ARRender
import ARVision
import CGStreamer
import Foundation

private let cat = DebugCategory("arrecttrack", description: "arbarcode picture and poster tracker")

/// `arrecttrack`: finds rectangles likely to be pictures, posters, screens or labels
/// (`RectangleDetector`, options as in Apple Vision's rectangle request), follows each by its own
/// texture (`RectangleTracker`: a planar homography from followed points, through partial
/// occlusion and tilt), with ids, expiry and the same metadata, messages and signals as codes
/// (`kind` `rectangle`). Searches are throttled to `search-rate` per second of buffer time, one
/// at a time: on the streaming thread in sync mode (deterministic), on a worker thread in async
/// mode (a search of frame N lands on frame N+k, carried by the image motion). When a rectangle is
/// first found its picture is rectified (upright, its own aspect) and travels with it: in the
/// metas (`reference`, a GstSample), in the `reference-image` signal, and as a PNG (`snapshot`).
/// Targets already on the buffer that are not rectangles (codes upstream) are kept.
public final class ArRectTrack: VideoFilterElement {
    public struct Settings: Sendable {
        var options = RectangleOptions()
        var searchRate = 2.0
        var detectMode = DetectMode.auto
        var expirySeconds = 1.0
        var snapshot: String?
        var messages = true
        var messageUpdates = false
    }

    public static let defaultSettings = Settings()

    public static let metadata = ElementMetadata(
        factoryName: "arrecttrack", typeName: "ArRectTrack", longName: "Picture and poster tracker",
        klass: "Filter/Analyzer/Video",
        description: "Finds rectangular pictures, posters, screens and labels, follows each by its own texture with a stable id, and attaches them as region-of-interest metadata",
        caps: LumaFormats.caps, writesFrame: false)

    public static let properties: [Property<Settings>] = [
        .double("min-size", "Minimum size", "Shortest side of a rectangle found, as a fraction of the frame's smaller dimension",
                \.options.minSize, range: 0...1),
        .double("min-aspect", "Minimum aspect", "Least shorter-over-longer side ratio of a rectangle found, as seen (0-1)",
                \.options.minAspect, range: 0...1),
        .double("max-aspect", "Maximum aspect", "Largest shorter-over-longer side ratio of a rectangle found, as seen (0-1; 1 = square)",
                \.options.maxAspect, range: 0...1),
        .double("quadrature-tolerance", "Quadrature tolerance", "Largest deviation of a corner's angle from 90 degrees, degrees",
                \.options.quadratureTolerance, range: 0...45),
        .double("min-confidence", "Minimum confidence",
                "Least confidence of a rectangle found (0-1): the share of its outline on strong edges, lowered where they run on past its corners",
                \.options.minConfidence, range: 0...1),
        .uint("max-targets", "Maximum targets", "Most rectangles followed at once", \.options.maxResults, range: 1...16),
        .double("search-rate", "Search rate",
                "Most searches for new rectangles per second of buffer time (one at a time); followed ones move every frame",
                \.searchRate, range: 0.1...60),
        .enumeration("detect-mode", "Detect mode",
                     "Where searches run: a worker thread (async: never blocks, for cameras), the streaming thread (sync: deterministic, for files), or auto (async on live sources)",
                     typeName: "ArDetectMode", \.detectMode, mutableInPlaying: false),
        .double("expiry", "Expiry", "Seconds a rectangle lives after it was last seen (then reported once as 'lost' and removed), on buffer timestamps",
                \.expirySeconds, range: 0...10),
        .string("snapshot", "Snapshot",
                "Where to write each rectangle's rectified picture as a PNG when first found; '%u' is replaced by its track id (unset: none)",
                \.snapshot),
        .bool("post-messages", "Post messages", TrackEvents.messagesBlurb, \.messages),
        .bool("message-updates", "Message updates", TrackEvents.updatesBlurb, \.messageUpdates),
    ]

    /// Index of `reference-image` after the track signals.
    static let referenceSignal = TrackEvents.signals.count

    public static var signals: [SignalSpec] {
        // (guint64 track_id, GstSample *picture): a rectangle's rectified picture, when first found.
        TrackEvents.signals + [SignalSpec("reference-image", params: [.uint64, .boxed(gst_sample_get_type())])]
    }

    /// Longest side of a reference picture, pixels.
    static let referenceMaxSide = 256

    /// Runtime state, created in `start`, dropped in `stop`, reset on flush.
    final class State {
        var tracker: RectangleTracker
        var throttle: SearchThrottle
        var previous: LumaPyramid?
        /// The pyramid of the frame the worker searches, to carry its results forward.
        var jobPyramid: LumaPyramid?
        var worker: RectSearchWorker?
        var references: [UInt64: TargetReference] = [:]
        var frameCount: UInt64 = 0
        var frameDurationNanoseconds: UInt64 = 33_333_333
        var scratch = LumaPlane(width: 1, height: 1)

        init(_ s: Settings) {
            tracker = RectangleTracker(expiryNanoseconds: UInt64(s.expirySeconds * 1e9), maxTracks: s.options.maxResults)
            throttle = SearchThrottle(searchesPerSecond: s.searchRate)
        }

        func reset() {
            tracker.reset()
            throttle.reset()
            previous = nil
            jobPyramid = nil
            worker?.cancel()
            references = [:]
        }
    }

    private let element: ElementHandle
    private let settings: SettingsStore<Settings>
    private var state: State?
    private let stats = ElementStats()

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    public func start() throws {
        state = State(settings.snapshot)
        stats.reset()
    }

    public func stop() {
        state?.worker?.stop()
        state = nil
    }

    public func setInfo(_ info: VideoInfo) throws {
        guard let state else { return }
        if let d = info.frameDurationNanoseconds {
            state.frameDurationNanoseconds = d
            stats.frameDurationNanoseconds = d
        }
        state.reset()
        let s = settings.snapshot
        if state.worker == nil, s.detectMode == .async || (s.detectMode == .auto && TrackLiveness.upstreamIsLive(element)) {
            state.worker = RectSearchWorker()
        }
        cat.log(.info, element.object, "searching \(state.worker == nil ? "on the streaming thread (sync)" : "on a worker thread (async)")")
    }

    public func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool {
        if event.isFlushStop { state?.reset(); stats.reset() }
        return true
    }

    public func transform(_ frame: VideoFrame) throws {
        guard let state else { return }
        stats.begin()
        let s = settings.snapshot
        let index = state.frameCount
        state.frameCount &+= 1
        let timestamp = frame.buffer.ptsNanoseconds ?? index &* state.frameDurationNanoseconds
        if frame.buffer.isDiscont && index > 0 { state.reset() }
        state.tracker.expiryNanoseconds = UInt64(s.expirySeconds * 1e9)
        state.tracker.maxTracks = s.options.maxResults
        state.throttle.searchesPerSecond = s.searchRate
        var detector = RectangleDetector(options: s.options)
        detector.options.maxResults = s.options.maxResults

        let pyramid = frame.withLuma(scratch: &state.scratch) { luma in
            LumaPyramid(LumaPlane(copying: luma.base, width: luma.width, height: luma.height, stride: luma.stride),
                        levelCount: TrackingStage.pyramidLevels)
        }
        if let previous = state.previous, previous.width == pyramid.width, previous.height == pyramid.height {
            state.tracker.advance(from: previous, to: pyramid, timestampNanoseconds: timestamp)
        } else if state.previous != nil {
            state.tracker.reset()
        }
        var detections: [RectangleCandidate] = []
        var searchMilliseconds: Double?
        if let worker = state.worker {
            if let result = worker.takeResult() {
                detections = Self.carry(result.found, from: state.jobPyramid, to: pyramid)
                cat.log(.log, element.object, "worker: \(result.found.count) rectangles from frame \(result.frame), carried to \(index)")
            }
            if state.throttle.isDue(at: timestamp), worker.submit(.init(pyramid: pyramid, frame: index, detector: detector)) {
                state.throttle.started(at: timestamp)
                state.jobPyramid = pyramid
            }
        } else if state.throttle.isDue(at: timestamp) {
            let t0 = DispatchTime.now().uptimeNanoseconds
            detections = detector.detect(pyramid)
            searchMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
            state.throttle.started(at: timestamp)
        }
        let update = state.tracker.update(detections: detections, pyramid: pyramid, timestampNanoseconds: timestamp)
        state.previous = pyramid
        if !update.added.isEmpty { takeReferences(update.added, frame: frame, settings: s, state: state) }

        let regions = update.tracks.map {
            BarcodeRegion(rectangleID: $0.id, quad: $0.quad, state: $0.state, aspect: $0.aspect, confidence: $0.confidence,
                          reference: state.references[$0.id])
        }
        let others = frame.barcodeRegions.filter { $0.kind != .rectangle }
        frame.setBarcodeRegions(others + regions)
        let added = Set(update.added.map(\.id)), removed = Set(update.removed.map(\.id))
        let events = TrackEvents.Frame(index: index, ptsNanoseconds: frame.buffer.ptsNanoseconds,
                                       added: regions.filter { added.contains($0.trackID!) },
                                       updated: regions.filter { !added.contains($0.trackID!) && !removed.contains($0.trackID!) },
                                       removed: regions.filter { removed.contains($0.trackID!) })
        TrackEvents.publish(events, element: element, messages: s.messages, updates: s.messageUpdates)
        for id in removed { state.references[id] = nil }
        cat.log(.log, element.object, "\(detections.count) rectangles found, \(update.tracks.count) followed")
        let live = update.tracks.filter { $0.state != .lost }
        stats.end(frame, intervalSeconds: 0, decodeMilliseconds: searchMilliseconds,
                  counts: [("tracks", live.count), ("occluded", live.filter { $0.state == .occluded }.count)], element: element)
    }

    /// Rectangles found on an older frame (whose pyramid is `from`) moved onto this one by their
    /// own texture's motion across the frames between (as they are followed); dropped when it
    /// cannot be measured (the next search finds them again).
    static func carry(_ found: [RectangleCandidate], from: LumaPyramid?, to: LumaPyramid) -> [RectangleCandidate] {
        guard let from, from.width == to.width, from.height == to.height else { return [] }
        return found.compactMap { c in
            guard var target = PlanarTarget(quad: c.quad, pyramid: from), target.track(from: from, to: to) else { return nil }
            var moved = c
            moved.quad = target.quad
            return moved
        }
    }

    /// Rectifies the pictures of the rectangles `added` on this frame: kept for the metas, emitted
    /// as `reference-image` and written to `snapshot`.
    private func takeReferences(_ added: [RectangleTrack], frame: VideoFrame, settings s: Settings, state: State) {
        guard let rgba = frame.rgbaPixels() else {
            cat.log(.warning, element.object, "cannot convert the frame to RGBA: no reference pictures")
            return
        }
        for t in added {
            let size = Rectifier.size(of: t.quad, maxSide: Self.referenceMaxSide)
            let pixels = Rectifier.rgba(rgba, width: frame.width, height: frame.height, quad: t.quad,
                                        outWidth: size.width, outHeight: size.height)
            guard let reference = TargetReference(rgba: pixels, width: size.width, height: size.height) else { continue }
            state.references[t.id] = reference
            var params = [GValue(), GValue()]
            g_value_init(&params[0], ar_value_gtype(AR_VALUE_UINT64))
            g_value_set_uint64(&params[0], guint64(t.id))
            g_value_init(&params[1], gst_sample_get_type())
            g_value_set_boxed(&params[1], UnsafeRawPointer(reference.sample))
            element.emitSignal(Self.referenceSignal, &params)
            for i in params.indices { g_value_unset(&params[i]) }
            if let pattern = s.snapshot, !pattern.isEmpty {
                let path = pattern.replacingOccurrences(of: "%u", with: String(t.id))
                do {
                    try OverlayImage.writePNG(rgba: pixels, width: size.width, height: size.height, path: path)
                } catch {
                    element.postWarning(.write("arrecttrack: snapshot of rectangle \(t.id) not written: \(error)"))
                }
            }
        }
    }
}
