import ARCore
import ARGst
import CGStreamer
import Foundation

private let cat = DebugCategory("artrack", description: "arbarcode code tracker")

/// `artrack`: follows the codes found by a detector upstream (ROI metas from `arbarcodedetect` or
/// any element writing `arbarcode` params) and gives each a stable id. Every frame carries every
/// live track, decoded on it or not; between decodes tracks follow the image (formats with a luma
/// plane) or coast on their last velocity. Regions upstream in state `located` (seen, not read)
/// are not tracked: they pass through as they are, and are not announced.
public final class ArTrack: VideoFilterElement {
    public struct Settings: Sendable {
        var tracking = TrackingSettings()
    }

    public static let defaultSettings = Settings()

    public static let metadata = ElementMetadata(
        factoryName: "artrack", typeName: "ArTrack", longName: "Barcode tracker",
        klass: "Filter/Analyzer/Video",
        description: "Gives each detected code a stable id across frames and reports every live track on every frame",
        caps: "video/x-raw", writesFrame: false)

    public static let properties: [Property<Settings>] = TrackingSettings.properties(\.tracking)

    public static var signals: [SignalSpec] { TrackEvents.signals }

    private let element: ElementHandle
    private let settings: SettingsStore<Settings>
    private var stage: TrackingStage?
    private let stats = ElementStats()

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    public func start() throws {
        let s = settings.snapshot
        stage = TrackingStage(configuration: s.tracking.configuration)
        stats.reset()
    }

    public func stop() {
        stage = nil
    }

    public func setInfo(_ info: VideoInfo) throws {
        if let d = info.frameDurationNanoseconds {
            stage?.frameDurationNanoseconds = d
            stats.frameDurationNanoseconds = d
        }
    }

    public func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool {
        if event.isFlushStop {
            stage?.reset()
            stats.reset()
        }
        return true
    }

    public func transform(_ frame: VideoFrame) throws {
        guard let stage else { return }
        stats.begin()
        let s = settings.snapshot
        stage.configure(s.tracking)
        let regions = frame.barcodeRegions
        let detections = regions.filter { $0.state == .detected }.map {
            Detection(symbology: $0.symbology, payload: $0.payload, quad: $0.quad, quality: $0.quality, outlineComplete: $0.outlineComplete,
                      atFrameEdge: $0.atFrameEdge)
        }
        stage.begin(frame: frame, luma: frame.trackLuma)
        // Regions seen upstream but not read are not tracked: they pass through.
        let (update, events) = stage.finish(detections, located: regions.filter { $0.state == .located }, frame: frame)
        TrackEvents.publish(events, element: element, messages: s.tracking.messages, updates: s.tracking.messageUpdates)
        if let warning = stage.limitWarning(update) { element.postWarning(.settings(warning)) }
        cat.log(.log, element.object, "\(detections.count) detections, \(update.tracks.count) tracks")
        stats.end(frame, intervalSeconds: s.tracking.statsInterval, counts: TrackingSettings.counts(update, refused: stage.refusedTracks), element: element)
    }
}
