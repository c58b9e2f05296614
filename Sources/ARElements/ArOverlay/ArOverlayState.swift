import ARBridge
import ARCore
import ARGst
import ARRender
import ARVision
import CCairoGObject
import CGStreamer
import Foundation

extension ArOverlay {
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
}
