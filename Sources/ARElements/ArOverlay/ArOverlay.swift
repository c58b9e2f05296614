import ARBridge
import ARCore
import ARGst
import ARRender
import ARVision
import CCairoGObject
import CGStreamer
import Foundation

let overlayCategory = DebugCategory("aroverlay", description: "arbarcode AR overlay compositor")
private var cat: DebugCategory { overlayCategory }

/// Runs a job: where `aroverlay` parses a style set while it plays.
public protocol StyleLoadExecutor: Sendable {
    /// Runs `job` once, now or later, on any thread but the streaming thread.
    func execute(_ job: @escaping @Sendable () -> Void)
}

/// Runs the job at once, on the caller's thread: a style set while playing is parsed in the
/// property setter, on the application's thread.
public struct InlineStyleLoads: StyleLoadExecutor {
    public init() {}
    public func execute(_ job: @escaping @Sendable () -> Void) { job() }
}

/// `aroverlay`: draws AR overlays anchored to each code found upstream (outlines, boxes, labels,
/// images, images warped onto the code), as a style file says, with expiry and fades on buffer
/// timestamps. Only the overlay rectangles are drawn (cairo/pango); they are attached as a
/// GstVideoOverlayCompositionMeta when downstream takes it, otherwise blended into the frame.
///
/// Regions in state `located` (seen, not read: a quad and a class `1D`/`2D`) are drawn on the frame
/// they are on only (no identity: no fade, no expiry), under the codes' overlays, as the style's
/// first `"state": "located"` rule says, else as `Style.defaultLocatedOverlays` (a thin grey
/// outline); `show-located=false` ignores them. They fire no `draw` or `overlay-*` signal.
///
/// Codes in state `occluded` (the tracker no longer sees them at their place) fade out as on
/// expiry and stay undrawn while occluded; seen again, they fade back in (`show-occluded` draws
/// them as tracked codes).
///
/// Rectangles (`arrecttrack`) are matched by rules with `"match": {"kind": "rectangle"}`. An image
/// overlay `{"type": "image", "source": "target", "alter": "CHAIN"}` draws the rectangle's own
/// picture as first found (the reference image `arrecttrack` attaches to the metas), passed once
/// through the GStreamer filter chain CHAIN off the streaming thread (`alterations`; an element
/// message `arbarcode-alteration` says when each is done), warped onto the rectangle's quad on
/// every frame. Until the altered picture is ready, nothing is drawn for that overlay.
public final class ArOverlay: VideoFilterElement {
    public struct Settings: Sendable {
        var font: String? = "Sans Bold"
        var outlineWidth = 3.0
        var showLabels = true
        var showLocated = true
        var showOccluded = false
        /// Keep the labels and boxes of different codes apart and inside the frame (`LabelLayout`).
        var layout = true
        var showStats = false
        var statsInterval = 0.0
        var tap = true
        var singleExpanded = false
        /// A click away from every code pins a note there (`SceneNotes`).
        var notes = true
        var noteExpiry = 10.0
        var style: String?
        var hint: String?
    }

    public static let defaultSettings = Settings()

    public static let metadata: ElementMetadata = {
        var m = ElementMetadata(
            factoryName: "aroverlay", typeName: "ArOverlay", longName: "Barcode AR overlay",
            klass: "Filter/Editor/Video",
            description: "Draws AR overlays (outlines, labels, boxes, images) anchored to every tracked code",
            caps: "video/x-raw", writesFrame: true)
        m.srcCaps = "video/x-raw; video/x-raw(\(compositionFeature))"
        return m
    }()

    public static let properties: [Property<Settings>] = [
        .string("style", "Style", "Overlay style: a JSON style file's path, or the JSON itself (starting with '{'); "
                + "unset: each code's outline and its payload above it. Takes effect on the next frame", \.style),
        .string("hint", "Hint", "Text shown while no code is tracked (overrides the style's 'hint'); unset or empty: none", \.hint),
        .string("font", "Font", "Pango font description of labels without a 'font' in the style (family and style; "
                + "without a size the size follows the frame height; a size must be 1-1000 points, or pixels with 'px')", \.font),
        .double("outline-width", "Outline width", "Width of the code outline without a style file, pixels", \.outlineWidth,
                range: 0...100),
        .bool("notes", "Notes",
              "A left click away from every code and note pins a note to that point of the scene: it follows the image around "
                  + "it, hides while its point is out of the frame and comes back with it. Dragging a note down by 40 px or more "
                  + "removes it. Notes travel in the metadata (kind note). Followed on formats with a luma plane (I420, NV12, "
                  + "GRAY8, ...); on RGB frames they stay where they were placed", \.notes),
        .double("note-expiry", "Note expiry", "Seconds a note's point may stay out of the frame before the note is removed",
                \.noteExpiry, range: 0...3600),
        .bool("show-labels", "Show labels", "Without a style file: draw each code's payload above it", \.showLabels),
        .bool("show-located", "Show located",
              "Draw regions seen but not read (state 'located'): a thin grey outline, or the style's 'located' rules; "
                  + "false: ignore them", \.showLocated),
        .bool("show-occluded", "Show occluded",
              "Draw codes the tracker reports 'occluded' (not seen at their place: covered, torn off, out of the frame) "
                  + "as tracked ones; false: their overlays fade out and stay hidden until the code is seen again", \.showOccluded),
        .bool("layout", "Layout",
              "Move the upright labels and boxes of codes whose labels would overlap apart (smoothly, over a few frames), keep "
                  + "them inside the frame, and draw a leader line from a moved label back to where its code put it", \.layout),
        .bool("show-stats", "Show stats",
              "Draw a panel in the top-left corner: frame rate and time per frame of the last second of stream time, "
                  + "and the codes on this frame (tracked, occluded, located)", \.showStats),
        ElementStats.property(\.statsInterval),
        .bool("tap", "Tap",
              "Clicks and taps on the video (navigation mouse-button presses from the video sink, an application or a "
                  + "remote viewer) on a code or its overlays toggle the code's 'expanded' state (style rules with "
                  + "\"when\": {\"expanded\": true}), emit 'tapped' and post an 'arbarcode-tapped' element message", \.tap),
        .bool("single-expanded", "Single expanded",
              "At most one code expanded at a time: a tap on another collapses the one open", \.singleExpanded),
    ]

    /// Signal indices, in `signals` order.
    enum SignalIndex: Int {
        case draw, created, updated, removed, setOverlay, clearOverlay, tapped, resetCount, countSummary, addNote, editNote, removeNote
    }

    public static let signals: [SignalSpec] = [
        // (cairo_t *cr, GstStructure *track): draw on cr in frame pixels, per track per frame. cr is
        // a CairoContext (cairo-gobject's boxed type, as cairooverlay's), so PyGObject hands
        // Python handlers a pycairo context.
        SignalSpec("draw", params: [.boxed(cairo_gobject_context_get_type()), .structure]),
        // (guint64 track_id, GstStructure *track)
        SignalSpec("overlay-created", params: [.uint64, .structure]),
        SignalSpec("overlay-updated", params: [.uint64, .structure]),
        SignalSpec("overlay-removed", params: [.uint64, .structure]),
        // (guint64 track_id, gchar *overlays_json) -> gboolean: replace the style's overlays of a track.
        SignalSpec("set-overlay", params: [.uint64, .string], returns: .bool, isAction: true),
        // (guint64 track_id) -> gboolean: back to the style's overlays; FALSE when none was set.
        SignalSpec("clear-overlay", params: [.uint64], returns: .bool, isAction: true),
        // (guint64 track_id, gchar *data, gdouble x, gdouble y): a tap on a code or its overlays, frame pixels.
        SignalSpec("tapped", params: [.uint64, .string, .double, .double]),
        // () -> gboolean: start counting the style's list afresh; FALSE when the style has no list.
        SignalSpec("reset-count", params: [], returns: .bool, isAction: true),
        // () -> gchar *: the count so far as a JSON Lines object (found, missing, unexpected); NULL without a list.
        SignalSpec("count-summary", params: [], returns: .string, isAction: true),
        // (gdouble x, gdouble y, gchar *text) -> guint64: pins a note at a point of the frame (pixels); its id,
        // 0 (and a WARNING) for a point that is not finite.
        SignalSpec("add-note", params: [.double, .double, .string], returns: .uint64, isAction: true),
        // (guint64 id, gchar *text) -> gboolean: replaces a note's text; FALSE when there is no such note.
        SignalSpec("edit-note", params: [.uint64, .string], returns: .bool, isAction: true),
        // (guint64 id) -> gboolean: removes a note; FALSE when there is no such note.
        SignalSpec("remove-note", params: [.uint64], returns: .bool, isAction: true),
    ]

    /// What applications and clicks ask of the notes, done on the next frame.
    enum NoteRequest {
        case add(id: UInt64, x: Double, y: Double, text: String)
        case edit(id: UInt64, text: String)
        case remove(id: UInt64)
    }

    /// A drag down by this many pixels from a note removes it.
    static let noteDragPixels = 40.0

    static let compositionFeature = "meta:GstVideoOverlayComposition"

    /// Where styles set while playing are parsed (`InlineStyleLoads`: in the property setter).
    /// Tests set an executor they step by hand; every element started after reads it.
    static let styleLoads = SettingsStore<any StyleLoadExecutor>(InlineStyleLoads())
    /// Where pictures are altered (`BackgroundJobs`: a background queue). Tests set an executor
    /// that runs them inline.
    static let alterations = SettingsStore<any StyleLoadExecutor>(BackgroundJobs())

    let element: ElementHandle
    let settings: SettingsStore<Settings>
    let shared = SettingsStore(Overrides())
    /// Altered pictures, written by the alteration jobs, read by the streaming thread.
    let pictures = SettingsStore([PictureKey: Result<OverlayImage, PictureAlteration.Failure>]())
    var state: State?

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    // MARK: lifecycle

    public func start() throws {
        // Marked running before the settings are read: a change after this point is parsed on its own.
        let request = shared.update {
            $0.running = true
            return $0.styleRequest
        }
        do {
            try start(upTo: request)
        } catch {
            shared.update { $0.running = false }
            throw error
        }
    }

    /// `start` with the settings of style request `request` and before.
    func start(upTo request: Int) throws {
        let s = settings.snapshot
        if let font = s.font, let problem = FontDescription.sizeProblem(font) {
            throw ElementError.settings("Invalid value for property 'font': '\(font)': \(problem)", debug: "property 'font' of \(element.name)")
        }
        let images = ImageLoader()
        let style: Style
        do {
            style = try Self.loadStyle(s, images: images)
        } catch let e as StyleError {
            throw ElementError.settings("Invalid overlay style: \(e.description)", debug: "property 'style' of \(element.name)")
        }
        state = State(style: style, hint: Self.hint(s, style), images: images)
        shared.update {
            $0.style = style
            if let p = $0.pendingStyle, p.request <= request { $0.pendingStyle = nil }
        }
    }

    public func stop() {
        state = nil
        // Track ids start again with the next run upstream: its pictures are not these.
        pictures.update { $0 = [:] }
        shared.update {
            $0.running = false
            $0.pendingStyle = nil
        }
    }

    public func setInfo(_ info: VideoInfo) throws {
        state?.attachMeta = nil
        if let d = info.frameDurationNanoseconds { state?.stats.frameDurationNanoseconds = d }
    }

    public func propertyChanged(_ name: String) {
        guard ["style", "hint", "font", "outline-width", "show-labels"].contains(name) else { return }
        let request: Int? = shared.update {
            $0.styleRequest += 1
            return $0.running ? $0.styleRequest : nil
        }
        // Stopped: `start` reads the settings.
        guard let request else { return }
        let settings = self.settings, shared = self.shared
        Self.styleLoads.snapshot.execute {
            let s = settings.snapshot
            let images = ImageLoader()
            let result = Result { (style: try Self.loadStyle(s, images: images), images: images) }
            shared.update {
                guard request == $0.styleRequest, $0.running else { return }
                $0.pendingStyle = PendingStyle(request: request, settings: s, result: result)
            }
        }
    }

    public func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool {
        if event.isFlushStop { resetTimeline() }
        if event.typeName == "eos", let json = shared.snapshot.count?.summaryJSON() {
            // The count at the end of the stream, for the application and, as a JSON line, arexport.
            let m = OwnedStructure(name: Self.countSummaryName)
            m.set("json", string: json)
            element.postElementMessage(m)
            pushSummary(json)
        }
        return true
    }

    /// Name of the count summary's bus message and of the custom downstream event that carries it
    /// to `arexport` (field `json`: the JSON Lines object).
    public static let countSummaryName = "arbarcode-count-summary"

    /// Sends the count summary downstream (serialized: between the buffers it came after).
    func pushSummary(_ json: String) {
        let e = OwnedStructure(name: Self.countSummaryName)
        e.set("json", string: json)
        element.pushDownstream(e)
    }

    /// The style the settings name: a file, inline JSON, or the built-in one. Constant image
    /// paths are read now (into `images`) so a bad PNG fails here, not on some later frame.
    static func loadStyle(_ s: Settings, images: ImageLoader) throws -> Style {
        let spec = (s.style ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let style: Style
        if spec.isEmpty {
            style = Style.builtIn(outlineWidth: s.outlineWidth, labels: s.showLabels)
        } else if spec.hasPrefix("{") {
            style = try Style.parse(spec, file: "<inline style>", baseDirectory: FileManager.default.currentDirectoryPath)
        } else {
            style = try Style.load(path: spec)
        }
        images.forgetAll()
        for (r, rule) in style.rules.enumerated() {
            for (o, overlay) in rule.overlays.enumerated() where overlay.kind == .image {
                guard let file = overlay.file, file.isConstant else { continue }
                do {
                    _ = try images.loadNow(ImageFile.resolve(file, values: [:], baseDirectory: style.baseDirectory).get())
                } catch {
                    throw StyleError(file: style.file, place: "rules[\(r)].overlays[\(o)].file", reason: "\(error)")
                }
            }
        }
        return style
    }

    /// The hint to show (the property's, else the style's), at most `StyleLimits.labelCharacters`.
    static func hint(_ s: Settings, _ style: Style) -> String? {
        let h = s.hint ?? style.hint
        return h?.isEmpty == false ? h.map { StyleLimits.boundedLabel($0) } : nil
    }

    // MARK: caps and meta negotiation

    /// Offers the overlay-composition meta downstream (with the plain caps as a fallback) and
    /// strips it going upstream. Grey input is offered downstream in colour first (I420, NV12:
    /// `GreyToColour`), so overlays keep their colours; grey stays possible.
    public func transformCaps(direction: GstPadDirection, caps: UnsafeMutablePointer<GstCaps>,
                              filter: UnsafeMutablePointer<GstCaps>?) -> UnsafeMutablePointer<GstCaps>? {
        let caps = GreyToColour.expand(caps, direction: direction)
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self)) }
        let result = gst_caps_new_empty()!
        let n = gst_caps_get_size(caps)
        if direction == GST_PAD_SINK {
            for i in 0..<n {
                let f = gst_caps_get_features(caps, i)
                if let f, gst_caps_features_is_any(f) != 0 { continue }
                // System memory is the default: the meta alone says "system memory with the meta".
                let systemMemory = f.map { gst_caps_features_get_size($0) == 1 && gst_caps_features_contains($0, "memory:SystemMemory") != 0 } ?? true
                let with = systemMemory ? gst_caps_features_new_empty()! : gst_caps_features_copy(f!)!
                if gst_caps_features_contains(with, Self.compositionFeature) == 0 {
                    gst_caps_features_add(with, Self.compositionFeature)
                }
                gst_caps_append_structure_full(result, gst_structure_copy(gst_caps_get_structure(caps, i)), with)
            }
            gst_caps_append(result, gst_caps_copy(caps))
        } else {
            for i in 0..<n {
                var without = gst_caps_get_features(caps, i).map { gst_caps_features_copy($0)! }
                if let w = without {
                    gst_caps_features_remove(w, Self.compositionFeature)
                    // Nothing left: system memory (nil).
                    if gst_caps_features_get_size(w) == 0 { gst_caps_features_free(w); without = nil }
                }
                _ = gst_caps_merge_structure_full(result, gst_structure_copy(gst_caps_get_structure(caps, i)), without)
            }
        }
        guard let filter else { return result }
        let intersected = gst_caps_intersect_full(filter, result, GST_CAPS_INTERSECT_FIRST)
        gst_mini_object_unref(UnsafeMutableRawPointer(result).assumingMemoryBound(to: GstMiniObject.self))
        return intersected
    }

    /// Prefers a colour output for grey input (`GreyToColour.fixate`).
    public func fixate(_ caps: UnsafeMutablePointer<GstCaps>) -> UnsafeMutablePointer<GstCaps> {
        GreyToColour.fixate(caps)
    }

    /// Whether downstream draws the composition itself: the negotiated caps carry the feature
    /// and an ALLOCATION query answered downstream lists the meta.
    func downstreamTakesMeta() -> Bool {
        let trans = UnsafeMutableRawPointer(element.pointer).assumingMemoryBound(to: GstBaseTransform.self)
        guard let srcpad = trans.pointee.srcpad, let caps = gst_pad_get_current_caps(srcpad) else { return false }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self)) }
        guard gst_caps_get_size(caps) > 0, let f = gst_caps_get_features(caps, 0),
              gst_caps_features_contains(f, Self.compositionFeature) != 0 else { return false }
        let query = gst_query_new_allocation(caps, 0)!
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(query).assumingMemoryBound(to: GstMiniObject.self)) }
        guard gst_pad_peer_query(srcpad, query) != 0 else { return false }
        return gst_query_find_allocation_meta(query, gst_video_overlay_composition_meta_api_get_type(), nil) != 0
    }

    /// Grey input, colour output: luma copied, neutral chroma; the overlays are drawn after.
    public func convert(_ input: VideoFrame, into output: VideoFrame) throws {
        try GreyToColour.convert(input, into: output)
    }

    /// Forgets every overlay (flush, discontinuity): no track is on screen any more.
    func resetTimeline() {
        pictures.update { $0 = [:] }
        state?.pendingPictures = []
        state?.failedPictures = []
        state?.timeline.reset()
        state?.stats.reset()
        state?.panel.reset()
        state?.areas.reset()
        state?.levelFades = [:]
        // Another scene: the notes' points are gone with it.
        state?.notes.removeAll()
        state?.notePyramid = nil
        state?.lastRawSeconds = nil
        state?.loopOffsetSeconds = 0
        shared.update {
            $0.tracks = []
            $0.byTrack = [:]
            $0.liveNotes = []
            $0.noteRequests = []
            $0.noteRects = []
        }
    }

    // MARK: frames

    public func transform(_ frame: VideoFrame) throws {
        guard let state else { return }
        state.stats.begin()
        let s = settings.snapshot
        var counts: [(String, Int)] = []
        defer {
            state.frameIndex += 1
            state.tiles.endFrame()
            state.blender.endFrame()
            state.stats.end(frame, intervalSeconds: s.statsInterval, counts: counts, element: element)
            let duration = frame.buffer.durationNanoseconds ?? state.stats.frameDurationNanoseconds
            if let r = state.panel.record(ptsNanoseconds: frame.buffer.ptsNanoseconds ?? state.frameIndex &* duration,
                                          durationNanoseconds: duration, processMilliseconds: state.stats.elapsedMilliseconds) {
                state.panelReport = r
            }
        }
        var shared = self.shared.snapshot
        if let pending = shared.pendingStyle {
            self.shared.update { if $0.pendingStyle?.request == pending.request { $0.pendingStyle = nil } }
            swapStyle(pending, state)
            shared = self.shared.snapshot
        }
        if frame.buffer.isDiscont && state.frameIndex > 0 { resetTimeline() }

        let frameSeconds = Double(frame.buffer.durationNanoseconds ?? 33_333_333) / 1e9
        // Stream seconds, never going back: a looping source (timestamps back to 0 without DISCONT)
        // continues the timeline, the jump counting as one frame, so overlays are not faded in anew.
        let raw = frame.buffer.ptsNanoseconds.map { Double($0) / 1e9 } ?? Double(state.frameIndex) * frameSeconds
        if let last = state.lastRawSeconds, raw < last { state.loopOffsetSeconds += last - raw + frameSeconds }
        state.lastRawSeconds = raw
        let t = raw + state.loopOffsetSeconds
        let regions = frame.barcodeRegions
        state.references = [:]
        for r in regions { if let id = r.trackID, let reference = r.reference { state.references[id] = reference } }
        let frameArea = Double(max(1, frame.width * frame.height))
        let sightings = regions.filter { $0.state != .located }.map { r in
            let fraction = r.quad.area / frameArea
            return CodeSighting(info: CodeInfo(symbology: r.symbology, text: r.text, trackID: r.trackID,
                                               expanded: r.trackID.map(shared.expanded.contains) ?? false,
                                               area: r.trackID.map { state.areas.area(of: $0, fraction: fraction) } ?? fraction,
                                               kind: r.kind),
                                quad: r.quad, detected: r.state == .detected, occluded: r.state == .occluded && !s.showOccluded,
                                lost: r.state == .lost)
        }
        state.areas.keep(Set(sightings.filter { !$0.lost }.compactMap(\.info.trackID)))
        let changes = state.timeline.update(sightings, at: t, frameSeconds: frameSeconds)
        let generation = state.generation &+ shared.generation

        for e in changes.removed {
            state.resolved[e.key] = nil
            state.levelFades[e.key] = nil
            if case .track(let id) = e.key { pictures.update { $0 = $0.filter { $0.key.trackID != id } } }
        }
        if !changes.created.isEmpty || !changes.removed.isEmpty {
            func ids(_ entries: [OverlayTimeline.Entry]) -> Set<UInt64> {
                Set(entries.compactMap { if case .track(let id) = $0.key { id } else { nil } })
            }
            let created = ids(changes.created), removed = ids(changes.removed)
            cat.log(.debug, element.object, "overlays created for tracks \(created.sorted()), removed for \(removed.sorted())")
            self.shared.update { o in
                o.tracks.formUnion(created)
                o.tracks.subtract(removed)
                o.highestSeen = max(o.highestSeen, created.max() ?? 0)
                // A track gone (or set for but never seen, below the highest) takes its overlays with it.
                o.byTrack = o.byTrack.filter { o.takes($0.key) }
            }
        }
        emit(.removed, changes.removed)
        emit(.created, changes.created)
        emit(.updated, changes.updated)

        var tiles: [RenderTile] = []
        let drawHandlers = hasHandlers(.draw)
        let defaultFont = s.font ?? "Sans Bold"
        // Located regions first: the codes' overlays are drawn over them.
        for r in regions where s.showLocated && r.state == .located {
            let overlays = locatedOverlays(r.symbology, state: state, generation: generation)
            for op in drawOps(overlays, quad: r.quad, trackID: nil, what: "located \(r.symbology) region", state: state,
                              defaultFont: defaultFont, frameHeight: frame.height) {
                tiles += state.renderer.tiles(for: op.op, opacity: op.opacity, frameWidth: frame.width, frameHeight: frame.height)
            }
        }
        var taps = TapTargets()
        var visibleOps = changes.visible.map {
            drawOps(for: $0, at: t, state: state, overrides: shared, generation: generation, defaultFont: defaultFont,
                    frameHeight: frame.height)
        }
        if s.layout { layOut(&visibleOps, entries: changes.visible, state: state, frame: frame) }
        for (e, ops) in zip(changes.visible, visibleOps) {
            for op in ops {
                tiles += state.renderer.tiles(for: op.op, opacity: e.opacity * op.opacity, frameWidth: frame.width,
                                              frameHeight: frame.height)
            }
            if drawHandlers, let tile = customDrawing(e, frame: frame) { tiles.append(tile) }
            if let id = e.info.trackID, e.present {
                taps.add(trackID: id, symbology: e.info.symbology, text: e.info.text, quad: e.quad, ops: ops.map(\.op))
            }
        }
        if s.notes || !state.notes.notes.isEmpty {
            tiles += noteTiles(frame: frame, regions: regions, nanoseconds: UInt64(max(0, t) * 1e9), settings: s, state: state)
        }
        // What the user sees now is what a tap hits; codes gone are no longer expanded.
        let visibleIDs = Set(changes.visible.compactMap(\.info.trackID))
        let list = state.style.list, styleGeneration = state.generation
        let (count, asked) = self.shared.update { o -> (ItemCount?, String?) in
            defer { o.askedSummary = nil }
            o.taps = taps
            o.expanded.formIntersection(visibleIDs)
            // Each distinct payload on screen counts once, keyed by its payload.
            if o.countGeneration != styleGeneration {
                if o.count?.list != list { o.count = list.map(ItemCount.init) }
                o.countGeneration = styleGeneration
            }
            if let list {
                for e in changes.visible where e.present && e.info.trackID != nil
                    && !list.excludes(symbology: e.info.symbology, text: e.info.text) {
                    o.count?.record(text: e.info.text, key: list.key(text: e.info.text, captures: [:]))
                }
            }
            return (o.count, o.askedSummary)
        }
        if let asked { pushSummary(asked) }
        if let progress = state.style.progress, let count {
            tiles += cornerLabel(progress.text.expand(count.values), corner: progress.corner, s: s, state: state, frame: frame)
        }
        if changes.visible.isEmpty, let hint = state.hint {
            tiles += hintTiles(hint, s: s, state: state, frame: frame)
        }
        counts = [("codes", regions.filter { $0.state != .lost && $0.state != .located && $0.state != .occluded }.count),
                  ("occluded", regions.filter { $0.state == .occluded }.count),
                  ("located", regions.filter { $0.state == .located }.count)]
        if s.showStats { tiles += statsTiles(counts, s: s, state: state, frame: frame) }
        guard !tiles.isEmpty else { return }
        if state.attachMeta == nil {
            state.attachMeta = downstreamTakesMeta()
            cat.log(.info, element.object, state.attachMeta! ? "downstream draws the overlay meta" : "blending into frames")
        }
        var blended: Bool
        if state.attachMeta == true {
            guard let composition = OverlayComposition.make(tiles, cache: state.tiles) else { return }
            composition.attach(to: frame.buffer)
            blended = true
        } else if OverlayBlender.supports(frame) {
            blended = state.blender.blend(tiles, into: frame)
        } else {
            blended = OverlayComposition.make(tiles, cache: state.tiles)?.blend(into: frame) ?? true
        }
        if !blended {
            throw ElementError.format("aroverlay could not blend into \(String(cString: gst_video_format_to_string(frame.format))) frames")
        }
        cat.log(.log, element.object, "drew \(tiles.count) tiles for \(changes.visible.count) codes and the located regions")
    }

    // MARK: signals

    lazy var signalIDs: [guint] = {
        let type = UnsafeMutableRawPointer(element.pointer).assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee.g_type
        return Self.signals.map { g_signal_lookup($0.name, type) }
    }()

}
