import ARBridge
import ARCore
import ARGst
import ARRender
import ARVision
import CCairoGObject
import CGStreamer
import Foundation

private let cat = DebugCategory("aroverlay", description: "arbarcode AR overlay compositor")

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

    /// Runtime state, created in `start`, dropped in `stop`.
    final class State {
        var style: Style
        var hint: String?
        var timeline: OverlayTimeline
        let renderer = OverlayRenderer()
        /// Images named by the style, read and decoded away from the streaming thread; replaced
        /// with the style (a new style comes with its constant images loaded).
        var images: ImageLoader
        let tiles = OverlayTileCache()
        let blender = OverlayBlender()
        /// Overlays resolved per code, with what they were resolved from.
        var resolved: [TrackKey: (info: CodeInfo, generation: Int, overlays: [ResolvedOverlay])] = [:]
        /// Per code whose level (area) changed less than the style's `fade` ago: the overlays it had
        /// before and when it changed (stream seconds); they fade out as the new ones fade in.
        var levelFades: [TrackKey: (from: [ResolvedOverlay], start: Double)] = [:]
        /// Overlays resolved per located class (`1D`, `2D`), with the generation they were resolved in.
        var locatedResolved: [String: (generation: Int, overlays: [ResolvedOverlay])] = [:]
        var generation = 0
        var frameIndex: UInt64 = 0
        /// Attach the composition as a meta (true) or blend it (false); nil until decided after caps.
        var attachMeta: Bool?
        var missingImages: Set<String> = []
        /// Rules of this style whose `data` match was abandoned (over budget), warned about once each.
        var abandonedRules: Set<Int> = []
        let stats = ElementStats()
        /// Each code's area as the rules see it (with hysteresis).
        var areas = AreaLevels()
        /// Where each code's labels were moved on the last frames.
        var layout = LabelLayout()
        /// Notes pinned to the scene, the luma they were last followed on, and their labels' layout.
        var notes = SceneNotes()
        var noteLayout = LabelLayout()
        var notePyramid: LumaPyramid?
        /// The last frame's timestamp, seconds, and what looping sources' jumps back added to later ones.
        var lastRawSeconds: Double?
        var loopOffsetSeconds = 0.0
        /// The last second's figures, for `show-stats`.
        var panel = FrameStats(intervalNanoseconds: 1_000_000_000)
        var panelReport: FrameStats.Report?
        /// Reference pictures of the rectangles on this frame, by track id.
        var references: [UInt64: TargetReference] = [:]
        /// Altered pictures asked for and not yet collected.
        var pendingPictures: Set<PictureKey> = []
        /// Pictures whose alteration failed, warned about once each.
        var failedPictures: Set<PictureKey> = []

        init(style: Style, hint: String?, images: ImageLoader) {
            self.style = style
            self.hint = hint
            self.images = images
            timeline = OverlayTimeline(expirySeconds: style.expirySeconds, fadeSeconds: style.fadeSeconds)
        }
    }

    /// Applications' overlays per track id (`set-overlay`), set from any thread.
    struct Overrides {
        var byTrack: [UInt64: [OverlaySpec]] = [:]
        var generation = 0
        /// The style in use, to parse `set-overlay` against (its lookup tables and folder).
        var style = Style()
        /// Between `start` and `stop`: a style-related property change is parsed at once (through
        /// `styleLoads`), not left to `start`.
        var running = false
        /// Bumped by every style-related property change; a parse result for an older one is dropped.
        var styleRequest = 0
        /// A style parsed for the latest change, for the streaming thread to swap in on its next frame.
        var pendingStyle: PendingStyle?
        /// Ids of the tracks with an overlay now (created, not yet removed), and the highest id seen.
        /// `set-overlay` takes those, and ids above the highest (trackers number tracks in order: a
        /// track announced upstream whose first frame has not arrived yet); a lower one is gone.
        var tracks: Set<UInt64> = []
        var highestSeen: UInt64 = 0

        /// Whether `id` is on screen or may still arrive.
        func takes(_ id: UInt64) -> Bool { tracks.contains(id) || id > highestSeen }
        /// What was drawn for each code on the last frame, for taps.
        var taps = TapTargets()
        /// Codes a tap expanded.
        var expanded: Set<UInt64> = []
        /// Note requests for the next frame, the next note id, the notes alive (after the last frame's
        /// requests), where each note was drawn (for clicks), and the note a press landed on.
        var noteRequests: [NoteRequest] = []
        var nextNoteID: UInt64 = 1
        var liveNotes: Set<UInt64> = []
        var noteRects: [(id: UInt64, rect: Rect)] = []
        var pressedNote: (id: UInt64, y: Double)?
        /// The summary `count-summary` returned, for the next frame to send downstream (to `arexport`).
        var askedSummary: String?
        /// The style's list as counted so far (nil without a list), and the style generation it belongs to.
        var count: ItemCount?
        var countGeneration = -1
    }

    /// One altered picture: a rectangle's reference through one chain (nil: unaltered).
    struct PictureKey: Hashable {
        var trackID: UInt64
        var alter: String?
    }

    /// A style parsed off the streaming thread, with the settings it was made from.
    struct PendingStyle {
        var request: Int
        var settings: Settings
        /// The style and the image loader holding its constant images, or why it was refused.
        var result: Result<(style: Style, images: ImageLoader), any Error>
    }

    /// Where styles set while playing are parsed (`InlineStyleLoads`: in the property setter).
    /// Tests set an executor they step by hand; every element started after reads it.
    static let styleLoads = SettingsStore<any StyleLoadExecutor>(InlineStyleLoads())
    /// Where pictures are altered (`BackgroundJobs`: a background queue). Tests set an executor
    /// that runs them inline.
    static let alterations = SettingsStore<any StyleLoadExecutor>(BackgroundJobs())

    private let element: ElementHandle
    private let settings: SettingsStore<Settings>
    private let shared = SettingsStore(Overrides())
    /// Altered pictures, written by the alteration jobs, read by the streaming thread.
    private let pictures = SettingsStore([PictureKey: Result<OverlayImage, PictureAlteration.Failure>]())
    private var state: State?

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
    private func start(upTo request: Int) throws {
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
    private func pushSummary(_ json: String) {
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
    private func downstreamTakesMeta() -> Bool {
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
    private func resetTimeline() {
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

    // MARK: taps

    /// Navigation events from downstream (a click in the video sink's window, or sent by an
    /// application or a remote viewer): a mouse-button press on a code or its overlays toggles the
    /// code's expanded state. The event goes on upstream either way.
    public func srcEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool {
        guard event.pointee.type == GST_EVENT_NAVIGATION else { return true }
        let type = gst_navigation_event_get_type(event)
        guard type == GST_NAVIGATION_EVENT_MOUSE_BUTTON_PRESS || type == GST_NAVIGATION_EVENT_MOUSE_BUTTON_RELEASE else { return true }
        var button: Int32 = 0
        var x = 0.0, y = 0.0
        guard gst_navigation_event_parse_mouse_button_event(event, &button, &x, &y) != 0, button == 1 else { return true }
        let s = settings.snapshot
        if type == GST_NAVIGATION_EVENT_MOUSE_BUTTON_RELEASE {
            // A note dragged down far enough is removed (as a swipe does).
            shared.update { o in
                if let p = o.pressedNote, y - p.y >= Self.noteDragPixels, o.liveNotes.contains(p.id) {
                    o.noteRequests.append(.remove(id: p.id))
                }
                o.pressedNote = nil
            }
            return true
        }
        if s.tap, tap(x: x, y: y) { return true }
        guard s.notes else { return true }
        shared.update { o in
            if let hit = o.noteRects.last(where: { r in let b = r.rect.insetBy(-4); return x >= b.minX && x <= b.maxX && y >= b.minY && y <= b.maxY }) {
                o.pressedNote = (hit.id, y)
            } else {
                let id = o.nextNoteID
                o.nextNoteID += 1
                o.noteRequests.append(.add(id: id, x: x, y: y, text: "Note \(id)"))
                o.liveNotes.insert(id)
            }
        }
        return true
    }

    /// A tap at (`x`, `y`), frame pixels: toggles the code there (if any), then says so.
    /// A click on a code (or its overlays) toggles it; false when the click hit no code.
    @discardableResult
    func tap(x: Double, y: Double) -> Bool {
        let single = settings.snapshot.singleExpanded
        let hit = shared.update { o -> (target: TapTargets.Target, expanded: Bool)? in
            guard let t = o.taps.hit(x: x, y: y) else { return nil }
            if o.expanded.contains(t.trackID) {
                o.expanded.remove(t.trackID)
            } else {
                if single { o.expanded = [] }
                o.expanded.insert(t.trackID)
            }
            o.generation += 1
            return (t, o.expanded.contains(t.trackID))
        }
        guard let hit else {
            cat.log(.debug, element.object, "tap at (\(x), \(y)) on no code")
            return false
        }
        cat.log(.info, element.object, "tap on track \(hit.target.trackID): \(hit.expanded ? "expanded" : "collapsed")")
        var params = [GValue(), GValue(), GValue(), GValue()]
        g_value_init(&params[0], ar_value_gtype(AR_VALUE_UINT64))
        g_value_set_uint64(&params[0], guint64(hit.target.trackID))
        g_value_init(&params[1], ar_value_gtype(AR_VALUE_STRING))
        g_value_set_string(&params[1], hit.target.text)
        g_value_init(&params[2], ar_value_gtype(AR_VALUE_DOUBLE))
        g_value_set_double(&params[2], x)
        g_value_init(&params[3], ar_value_gtype(AR_VALUE_DOUBLE))
        g_value_set_double(&params[3], y)
        element.emitSignal(SignalIndex.tapped.rawValue, &params)
        for i in params.indices { g_value_unset(&params[i]) }
        let s = OwnedStructure(name: "arbarcode-tapped")
        s.set("track-id", uint64: hit.target.trackID)
        s.set("data", string: hit.target.text)
        s.set("symbology", string: hit.target.symbology)
        s.set("x", double: x)
        s.set("y", double: y)
        s.set("expanded", bool: hit.expanded)
        element.postElementMessage(s)
        return true
    }

    // MARK: application overlays

    public func action(_ index: Int, params: UnsafeBufferPointer<GValue>, result: UnsafeMutablePointer<GValue>?) {
        let trackID = params.isEmpty ? 0 : withUnsafePointer(to: params[0]) { UInt64(g_value_get_uint64($0)) }
        switch SignalIndex(rawValue: index) {
        case .resetCount:
            let had = shared.update { o -> Bool in
                o.count?.reset()
                return o.count != nil
            }
            if let result { g_value_set_boolean(result, had ? 1 : 0) }
        case .countSummary:
            let json = shared.update { o -> String? in
                o.askedSummary = o.count?.summaryJSON()
                return o.askedSummary
            }
            if let result { g_value_set_string(result, json) }
        case .setOverlay:
            let json = withUnsafePointer(to: params[1]) { g_value_get_string($0).map { String(cString: $0) } } ?? "[]"
            let snapshot = shared.snapshot
            guard snapshot.takes(trackID) else {
                cat.log(.info, element.object, "set-overlay for track \(trackID) refused: no such track (gone, or never seen)")
                if let result { g_value_set_boolean(result, 0) }
                return
            }
            let style = snapshot.style
            do {
                let specs = try style.parseOverlays(json)
                shared.update {
                    $0.byTrack[trackID] = specs
                    $0.generation += 1
                }
                if let result { g_value_set_boolean(result, 1) }
            } catch {
                element.postWarning(.settings("set-overlay for track \(trackID) refused: \(error)"))
                if let result { g_value_set_boolean(result, 0) }
            }
        case .addNote:
            let x = withUnsafePointer(to: params[0]) { g_value_get_double($0) }
            let y = withUnsafePointer(to: params[1]) { g_value_get_double($0) }
            let text = withUnsafePointer(to: params[2]) { g_value_get_string($0).map { String(cString: $0) } } ?? ""
            guard x.isFinite, y.isFinite else {
                element.postWarning(.settings("add-note refused: the point (\(x), \(y)) is not a finite position in frame pixels"))
                if let result { g_value_set_uint64(result, 0) }
                return
            }
            let id = shared.update { o -> UInt64 in
                let id = o.nextNoteID
                o.nextNoteID += 1
                o.noteRequests.append(.add(id: id, x: x, y: y, text: text))
                o.liveNotes.insert(id)
                return id
            }
            if let result { g_value_set_uint64(result, guint64(id)) }
        case .editNote, .removeNote:
            let text = index == SignalIndex.editNote.rawValue
                ? withUnsafePointer(to: params[1]) { g_value_get_string($0).map { String(cString: $0) } } ?? "" : nil
            let known = shared.update { o -> Bool in
                guard o.liveNotes.contains(trackID) else { return false }
                if let text { o.noteRequests.append(.edit(id: trackID, text: text)) } else {
                    o.noteRequests.append(.remove(id: trackID))
                    o.liveNotes.remove(trackID)
                }
                return true
            }
            if let result { g_value_set_boolean(result, known ? 1 : 0) }
        case .clearOverlay:
            let existed = shared.update { o -> Bool in
                let had = o.byTrack.removeValue(forKey: trackID) != nil
                o.generation += 1
                return had
            }
            if let result { g_value_set_boolean(result, existed ? 1 : 0) }
        default:
            break
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
        let sightings = regions.filter { $0.state != .lost && $0.state != .located }.map { r in
            let fraction = r.quad.area / frameArea
            return CodeSighting(info: CodeInfo(symbology: r.symbology, text: r.text, trackID: r.trackID,
                                               expanded: r.trackID.map(shared.expanded.contains) ?? false,
                                               area: r.trackID.map { state.areas.area(of: $0, fraction: fraction) } ?? fraction,
                                               kind: r.kind),
                                quad: r.quad, detected: r.state == .detected, occluded: r.state == .occluded && !s.showOccluded)
        }
        state.areas.keep(Set(sightings.compactMap(\.info.trackID)))
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

    /// Applies the note requests of clicks and actions, moves the notes with the scene (when the frame
    /// has a luma plane), adds them to the frame's metadata (kind `note`) and returns their tiles: a
    /// dot on the scene point and an upright label above it, labels kept apart and inside the frame.
    private func noteTiles(frame: VideoFrame, regions: [BarcodeRegion], nanoseconds now: UInt64, settings s: Settings,
                           state: State) -> [RenderTile] {
        let requests = shared.update { o -> [NoteRequest] in
            defer { o.noteRequests = [] }
            return o.noteRequests
        }
        state.notes.expiryNanoseconds = UInt64(s.noteExpiry * 1e9)
        var adds: [(id: UInt64, x: Double, y: Double, text: String)] = []
        for r in requests {
            switch r {
            case .add(let id, let x, let y, let text): adds.append((id, x, y, text))
            case .edit(let id, let text): state.notes.edit(id, text: text)
            case .remove(let id):
                state.notes.remove(id)
                cat.log(.info, element.object, "note \(id) removed")
            }
        }
        // The notes there were move with the scene; new ones are pinned where the click was, on this frame.
        var spare: LumaPyramid? = nil
        let pyramid = state.notes.notes.isEmpty && adds.isEmpty ? nil : frame.trackLuma.map {
            LumaPyramid(copying: $0.base, width: $0.width, height: $0.height, stride: $0.stride, levelCount: 4, reusing: &spare)
        }
        state.notes.advance(from: state.notePyramid, to: pyramid, now: now)
        for n in adds {
            state.notes.add(id: n.id, at: Point(x: n.x, y: n.y), text: n.text, now: now, in: pyramid)
            cat.log(.info, element.object, "note \(n.id) pinned at (\(n.x), \(n.y))")
        }
        state.notePyramid = pyramid
        let notes = state.notes.notes
        var tiles: [RenderTile] = [], rects: [(id: UInt64, rect: Rect)] = []
        var items: [LabelLayout.Item] = [], labels: [LabelContent] = []
        let font = state.renderer.sizedFont(s.font ?? "Sans Bold", frameHeight: frame.height)
        for n in notes where n.visible {
            let label = LabelContent(text: n.text, font: font, color: Color(red: 1, green: 1, blue: 1),
                                     background: Color(red: 0.125, green: 0.125, blue: 0.125, alpha: 0.82), padding: 4, radius: 4)
            let size = state.renderer.size(of: label)
            items.append(LabelLayout.Item(code: n.id, index: 0,
                                          rect: PlacedRect(center: Point(x: n.point.x, y: n.point.y - size.height / 2 - 10),
                                                           width: size.width, height: size.height)))
            labels.append(label)
        }
        let visible = notes.filter(\.visible)
        for (placed, (n, label)) in zip(state.noteLayout.place(items, width: Double(frame.width), height: Double(frame.height)),
                                       zip(visible, labels)) {
            let dot = PlacedRect(center: n.point, width: 10, height: 10)
            var ops: [DrawOp] = [.dot(rect: dot, color: Color(red: 1, green: 0.8, blue: 0)), .label(label, rect: placed.rect)]
            if let l = placed.leader {
                ops.insert(.outline(quad: Quad(topLeft: l.from, topRight: l.to, bottomRight: l.to, bottomLeft: l.from),
                                    color: Color(red: 1, green: 0.8, blue: 0), width: 2), at: 0)
            }
            for op in ops { tiles += state.renderer.tiles(for: op, opacity: 1, frameWidth: frame.width, frameHeight: frame.height) }
            rects.append((n.id, placed.rect.bounds))
            rects.append((n.id, dot.bounds))
        }
        let ids = Set(notes.map(\.id))
        shared.update { o in
            o.noteRects = rects
            // Notes dropped here (expired) are gone for the actions too; ones asked for since stay.
            let asked = Set(o.noteRequests.compactMap { r -> UInt64? in if case .add(let id, _, _, _) = r { id } else { nil } })
            o.liveNotes = o.liveNotes.filter { ids.contains($0) || asked.contains($0) }
        }
        if !notes.isEmpty {
            frame.setBarcodeRegions(regions + notes.map { n in
                var r = BarcodeRegion(trackID: n.id, symbology: TargetKind.note.rawValue, payload: Array(n.text.utf8),
                                      quad: Quad(topLeft: n.point, topRight: n.point, bottomRight: n.point, bottomLeft: n.point),
                                      state: n.visible ? .tracked : .occluded, quality: 0)
                r.kind = .note
                return r
            })
        }
        return tiles
    }

    /// Moves each code's upright labels and boxes together so that codes' labels do not overlap and
    /// stay inside the frame (`LabelLayout`), with a leader line from moved ones back to their place.
    private func layOut(_ ops: inout [[(op: DrawOp, opacity: Double)]], entries: [OverlayTimeline.Entry], state: State,
                        frame: VideoFrame) {
        func screenRect(_ op: DrawOp) -> PlacedRect? {
            switch op {
            case .label(_, let rect) where rect.angle == 0: rect
            case .box(let rect, _, _) where rect.angle == 0: rect
            default: nil
            }
        }
        var items: [LabelLayout.Item] = [], owners: [Int] = []
        for (k, e) in entries.enumerated() {
            guard let id = e.info.trackID else { continue }
            let rects = ops[k].compactMap { screenRect($0.op)?.bounds }
            guard let first = rects.first else { continue }
            let union = rects.dropFirst().reduce(first) { $0.union($1) }
            items.append(LabelLayout.Item(code: id, index: 0, rect: PlacedRect(union)))
            owners.append(k)
        }
        guard !items.isEmpty else { return }
        for (placed, (k, item)) in zip(state.layout.place(items, width: Double(frame.width), height: Double(frame.height)),
                                       zip(owners, items)) {
            let d = placed.rect.center - item.rect.center
            guard d.x != 0 || d.y != 0 else { continue }
            var leaderColor: Color?
            for n in ops[k].indices {
                switch ops[k][n].op {
                case .label(let content, var rect) where rect.angle == 0:
                    rect.center = rect.center + d
                    ops[k][n].op = .label(content, rect: rect)
                    leaderColor = leaderColor ?? content.background ?? content.color
                case .box(var rect, let color, let radius) where rect.angle == 0:
                    rect.center = rect.center + d
                    ops[k][n].op = .box(rect: rect, color: color, radius: radius)
                    leaderColor = leaderColor ?? color
                default: break
                }
            }
            if let l = placed.leader, let color = leaderColor {
                ops[k].insert((.outline(quad: Quad(topLeft: l.from, topRight: l.to, bottomRight: l.to, bottomLeft: l.from), color: color,
                                        width: 2), 1), at: 0)
            }
        }
    }

    /// Swaps in a style parsed after a property change (a cheap exchange: the parse is done);
    /// a bad style is reported and the old one kept.
    private func swapStyle(_ pending: PendingStyle, _ state: State) {
        let s = pending.settings
        if let font = s.font, let problem = FontDescription.sizeProblem(font) {
            element.postWarning(.settings("Invalid value for property 'font': '\(font)': \(problem); labels are drawn no taller than the frame"))
        }
        switch pending.result {
        case .success(let loaded):
            state.style = loaded.style
            state.images = loaded.images
            state.abandonedRules = []
            state.timeline.expirySeconds = loaded.style.expirySeconds
            state.timeline.fadeSeconds = loaded.style.fadeSeconds
            state.generation += 1
            shared.update { $0.style = loaded.style }
        case .failure(let error):
            element.postWarning(.settings("Invalid overlay style, keeping the previous one: \(error)"))
        }
        state.hint = Self.hint(s, state.style)
    }

    /// The overlays of one code on this frame with their geometry.
    private func drawOps(for e: OverlayTimeline.Entry, at t: Double, state: State, overrides: Overrides, generation: Int,
                         defaultFont: String, frameHeight: Int) -> [(op: DrawOp, opacity: Double)] {
        let overlays: [ResolvedOverlay]
        let previous = state.resolved[e.key]
        if let cached = previous, cached.info == e.info, cached.generation == generation {
            overlays = cached.overlays
        } else {
            if let id = e.info.trackID, let specs = overrides.byTrack[id] {
                overlays = overrides.style.resolve(specs, for: e.info)
            } else {
                let evaluated = state.style.overlaysAndAbandonedRules(for: e.info)
                overlays = evaluated.overlays
                for r in evaluated.abandonedRules where state.abandonedRules.insert(r).inserted {
                    element.postWarning(.settings("rules[\(r)] of \(state.style.file): the 'data' match on code "
                        + "'\(ImageFile.printable(e.info.text, maxCharacters: 80))' went over its budget and was stopped "
                        + "(counted as no match; warned once per rule)"))
                }
            }
            state.resolved[e.key] = (e.info, generation, overlays)
            // Only the code's level changed (its area crossed a rule's bound): cross-fade.
            if let previous, previous.generation == generation, previous.overlays != overlays, state.style.fadeSeconds > 0 {
                var same = previous.info
                same.area = e.info.area
                if same == e.info { state.levelFades[e.key] = (previous.overlays, t) }
            }
        }
        let what = "code '\(ImageFile.printable(e.info.text, maxCharacters: 80))'"
        var ops = drawOps(overlays, quad: e.quad, trackID: e.info.trackID, what: what, state: state, defaultFont: defaultFont,
                          frameHeight: frameHeight)
        if let fade = state.levelFades[e.key] {
            let p = (t - fade.start) / state.style.fadeSeconds
            if p >= 1 || p < 0 {
                state.levelFades[e.key] = nil
            } else {
                let old = drawOps(fade.from, quad: e.quad, trackID: e.info.trackID, what: what, state: state, defaultFont: defaultFont,
                                  frameHeight: frameHeight)
                ops = old.map { ($0.op, $0.opacity * (1 - p)) } + ops.map { ($0.op, $0.opacity * p) }
            }
        }
        return ops
    }

    /// The overlays of a located region of class `symbologyClass` (`1D`, `2D`), resolved once per
    /// class and style generation.
    private func locatedOverlays(_ symbologyClass: String, state: State, generation: Int) -> [ResolvedOverlay] {
        if let cached = state.locatedResolved[symbologyClass], cached.generation == generation { return cached.overlays }
        let overlays = state.style.overlays(for: CodeInfo(symbology: symbologyClass, text: "", trackID: nil, located: true))
        state.locatedResolved[symbologyClass] = (generation, overlays)
        return overlays
    }

    /// `overlays` placed on `quad` (frame pixels); `what` names the code in warnings.
    private func drawOps(_ overlays: [ResolvedOverlay], quad: Quad, trackID: UInt64?, what: String, state: State, defaultFont: String,
                         frameHeight: Int) -> [(op: DrawOp, opacity: Double)] {
        var ops: [(DrawOp, Double)] = []
        for o in overlays {
            let spec = o.spec
            switch spec.kind {
            case .outline:
                ops.append((.outline(quad: quad, color: o.color, width: spec.lineWidth), spec.opacity))
            case .box:
                ops.append((.box(rect: spec.placement.resolve(on: quad), color: o.color, radius: spec.radius), spec.opacity))
            case .fill:
                ops.append((.fill(quad: quad, color: o.color), spec.opacity))
            case .dot:
                ops.append((.dot(rect: spec.placement.resolve(on: quad), color: o.color), spec.opacity))
            case .label:
                guard !o.text.isEmpty else { continue }
                let label = LabelContent(text: o.text, font: state.renderer.sizedFont(spec.font ?? defaultFont, frameHeight: frameHeight),
                                         color: o.color, background: spec.background, padding: spec.padding, radius: spec.radius)
                let size = state.renderer.size(of: label)
                let rect = spec.placement.resolve(on: quad, natural: .fixed(width: size.width, height: size.height))
                ops.append((.label(label, rect: rect), spec.opacity))
            case .image where spec.fromTarget:
                guard let trackID, let image = picture(PictureKey(trackID: trackID, alter: spec.alter), state: state) else { continue }
                ops.append((.warp(image, quad: quad), spec.opacity))
            case .image:
                // Loaded off the streaming thread: an image not loaded yet is not drawn yet.
                let image: OverlayImage
                switch o.image {
                case .success(let file)?:
                    switch state.images.image(file) {
                    case .ready(let i): image = i
                    case .pending: continue
                    case .failed(let why): warnUnusableImage(file.path, why, what: what, state: state); continue
                    }
                case .failure(let refusal)?:
                    warnUnusableImage(refusal.path, refusal.description, what: what, state: state)
                    continue
                case nil:
                    continue
                }
                if spec.warp {
                    ops.append((.warp(image, quad: quad), spec.opacity))
                } else {
                    let rect = spec.placement.resolve(on: quad, natural: .aspect(width: Double(image.width), height: Double(image.height)))
                    ops.append((.image(image, rect: rect), spec.opacity))
                }
            }
        }
        return ops
    }

    /// The altered picture `key` names, once its alteration is done; asks for it (off the streaming
    /// thread, `alterations`) the first time, when the track's reference picture is on this frame.
    private func picture(_ key: PictureKey, state: State) -> OverlayImage? {
        if let done = pictures.snapshot[key] {
            state.pendingPictures.remove(key)
            switch done {
            case .success(let image): return image
            case .failure(let why):
                if state.failedPictures.insert(key).inserted { element.postWarning(.settings("aroverlay: \(why)")) }
                return nil
            }
        }
        guard !state.pendingPictures.contains(key), let reference = state.references[key.trackID] else { return nil }
        state.pendingPictures.insert(key)
        let pictures = self.pictures, element = self.element
        Self.alterations.snapshot.execute {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let result = PictureAlteration.run(reference, chain: key.alter, name: "picture of rectangle \(key.trackID)")
            pictures.update { $0[key] = result }
            let m = OwnedStructure(name: "arbarcode-alteration")
            m.set("track-id", uint64: key.trackID)
            m.set("alter", string: key.alter ?? "")
            m.set("done", bool: (try? result.get()) != nil)
            m.set("milliseconds", double: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            element.postElementMessage(m)
        }
        // Run inline (tests), the picture is there already.
        if case .success(let image)? = pictures.snapshot[key] { state.pendingPictures.remove(key); return image }
        return nil
    }

    /// Reports an image that cannot be drawn, once per path (remembering at most 1024 paths).
    private func warnUnusableImage(_ path: String, _ why: String, what: String, state: State) {
        if state.missingImages.count >= 1024 { state.missingImages.removeAll() }
        guard state.missingImages.insert(path).inserted else { return }
        element.postWarning(.openRead("aroverlay: image for \(what) unusable: \(why)"))
    }

    private func hintTiles(_ hint: String, s: Settings, state: State, frame: VideoFrame) -> [RenderTile] {
        let label = LabelContent(text: hint, font: state.renderer.sizedFont(s.font ?? "Sans Bold", frameHeight: frame.height),
                                 color: Color(red: 1, green: 1, blue: 1), background: Color(red: 0, green: 0, blue: 0, alpha: 0.6),
                                 padding: 8, radius: 8)
        let size = state.renderer.size(of: label)
        // Centred, a tenth of the frame above its bottom edge.
        let center = Point(x: Double(frame.width) / 2, y: Double(frame.height) * 0.9 - size.height / 2)
        return state.renderer.tiles(for: .label(label, rect: PlacedRect(center: center, width: size.width, height: size.height)),
                                    opacity: 1, frameWidth: frame.width, frameHeight: frame.height)
    }

    /// The `show-stats` panel: the last second's frame rate and time per frame, this frame's codes.
    private func statsTiles(_ counts: [(String, Int)], s: Settings, state: State, frame: VideoFrame) -> [RenderTile] {
        let rate = state.panelReport.map { String(format: "%.1f fps, %.1f ms per frame (p95 %.1f)", $0.fps,
                                                  $0.processMedianMilliseconds, $0.processP95Milliseconds) } ?? "measuring..."
        let codes = counts.map { "\($0.1) \($0.0 == "codes" ? "tracked" : $0.0)" }.joined(separator: ", ")
        return cornerLabel(rate + "\n" + codes, corner: "top-left", s: s, state: state, frame: frame)
    }

    /// `text` in a small panel in `corner` (`top-left`, `top-right`, `bottom-left`, `bottom-right`), 8 px in.
    private func cornerLabel(_ text: String, corner: String, s: Settings, state: State, frame: VideoFrame) -> [RenderTile] {
        let font = state.renderer.sizedFont(s.font ?? "Sans Bold", frameHeight: frame.height / 2)
        let label = LabelContent(text: text, font: font, color: Color(red: 1, green: 1, blue: 1),
                                 background: Color(red: 0, green: 0, blue: 0, alpha: 0.6), padding: 6, radius: 6)
        let size = state.renderer.size(of: label)
        let x = corner.hasSuffix("left") ? 8 + size.width / 2 : Double(frame.width) - 8 - size.width / 2
        let y = corner.hasPrefix("top") ? 8 + size.height / 2 : Double(frame.height) - 8 - size.height / 2
        return state.renderer.tiles(for: .label(label, rect: PlacedRect(center: Point(x: x, y: y), width: size.width, height: size.height)),
                                    opacity: 1, frameWidth: frame.width, frameHeight: frame.height)
    }

    // MARK: signals

    private lazy var signalIDs: [guint] = {
        let type = UnsafeMutableRawPointer(element.pointer).assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee.g_type
        return Self.signals.map { g_signal_lookup($0.name, type) }
    }()

    private func hasHandlers(_ signal: SignalIndex) -> Bool {
        g_signal_has_handler_pending(UnsafeMutableRawPointer(element.pointer), signalIDs[signal.rawValue], 0, 0) != 0
    }

    /// The `arbarcode` structure describing a code's overlay: the code's fields plus `opacity`
    /// (0…1) and `present` (whether the code is on this frame).
    private func trackStructure(_ e: OverlayTimeline.Entry) -> OwnedStructure {
        let s = OwnedStructure(name: BarcodeRegion.paramsName)
        s.set("data", string: e.info.text)
        s.set("symbology", string: e.info.symbology)
        s.set("quad", doubles: e.quad.corners.flatMap { [$0.x, $0.y] })
        s.set("track-id", uint64: e.info.trackID ?? 0)
        s.set("opacity", double: e.opacity)
        s.set("present", bool: e.present)
        return s
    }

    private func emit(_ signal: SignalIndex, _ entries: [OverlayTimeline.Entry]) {
        guard !entries.isEmpty, hasHandlers(signal) else { return }
        for e in entries {
            var params = [GValue(), GValue()]
            g_value_init(&params[0], ar_value_gtype(AR_VALUE_UINT64))
            g_value_set_uint64(&params[0], guint64(e.info.trackID ?? 0))
            g_value_init(&params[1], ar_value_gtype(AR_VALUE_STRUCTURE))
            g_value_take_boxed(&params[1], UnsafeRawPointer(trackStructure(e).release()))
            element.emitSignal(signal.rawValue, &params)
            for i in params.indices { g_value_unset(&params[i]) }
        }
    }

    /// Emits `draw` for one code on a recording surface; the tile holds what the handlers drew.
    private func customDrawing(_ e: OverlayTimeline.Entry, frame: VideoFrame) -> RenderTile? {
        let drawing = CustomDrawing()
        var params = [GValue(), GValue()]
        g_value_init(&params[0], cairo_gobject_context_get_type())
        g_value_set_boxed(&params[0], drawing.contextPointer)
        g_value_init(&params[1], ar_value_gtype(AR_VALUE_STRUCTURE))
        g_value_take_boxed(&params[1], UnsafeRawPointer(trackStructure(e).release()))
        element.emitSignal(SignalIndex.draw.rawValue, &params)
        for i in params.indices { g_value_unset(&params[i]) }
        return drawing.finish(opacity: e.opacity, frameWidth: frame.width, frameHeight: frame.height)
    }
}
