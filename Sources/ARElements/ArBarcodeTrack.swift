import ARCore
import ARDetect
import ARGst
import CGStreamer
import Foundation

private let cat = DebugCategory("arbarcodetrack", description: "arbarcode detector and tracker")

/// `arbarcodetrack`: `arbarcodedetect` and `artrack` in one element, the one most pipelines use.
/// Decodes every `detect-interval` frames and reports every live track on every frame.
public final class ArBarcodeTrack: VideoFilterElement {
    public struct Settings {
        var symbologies: String? = "all"
        var detectInterval = 1
        var expirySeconds = TrackingDefaults.expirySeconds
        var maxTracks = TrackingDefaults.maxTracks
    }

    public static let defaultSettings = Settings()

    public static let metadata = ElementMetadata(
        factoryName: "arbarcodetrack", typeName: "ArBarcodeTrack", longName: "Barcode detector and tracker",
        klass: "Filter/Analyzer/Video",
        description: "Finds barcodes and QR codes, follows each with a stable id, and attaches the tracks as region-of-interest metadata",
        caps: LumaFormats.caps, writesFrame: false)

    public static let properties: [Property<Settings>] = [
        .string("symbologies", "Symbologies",
                "Comma-separated symbologies to decode, or 'all'. Known: " + Symbology.all.map(\.name).joined(separator: ", "),
                \.symbologies),
        .uint("detect-interval", "Detect interval",
              "Decode the whole frame every N frames (1 = every frame); tracks carry positions in between",
              \.detectInterval, range: 1...1000),
        .double("expiry", "Expiry", TrackingDefaults.expiryBlurb, \.expirySeconds, range: 0...10),
        .uint("max-tracks", "Maximum tracks", TrackingDefaults.maxTracksBlurb, \.maxTracks, range: 1...1024),
    ]

    private let element: ElementHandle
    private let settings: SettingsStore<Settings>
    private var detector: CodeDetectorStage?
    private var stage: TrackingStage?
    private var framesSinceDetect = 0

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    public func start() throws {
        let s = settings.snapshot
        detector = try CodeDetectorStage(symbologies: s.symbologies)
        stage = TrackingStage(configuration: TrackerConfiguration(expiryNanoseconds: UInt64(s.expirySeconds * 1e9),
                                                                  maxTracks: s.maxTracks))
        framesSinceDetect = 0
    }

    public func stop() {
        detector = nil
        stage = nil
    }

    public func setInfo(_ info: VideoInfo) throws {
        if let d = info.frameDurationNanoseconds { stage?.frameDurationNanoseconds = d }
    }

    public func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool {
        if event.isFlushStop {
            stage?.reset()
            framesSinceDetect = 0
        }
        return true
    }

    public func transform(_ frame: VideoFrame) throws {
        guard let detector, let stage else { return }
        let s = settings.snapshot
        try detector.reconfigure(symbologies: s.symbologies)
        stage.configure(expirySeconds: s.expirySeconds, maxTracks: s.maxTracks)
        var detections: [Detection] = []
        if framesSinceDetect % s.detectInterval == 0 {
            detections = detector.detect(frame)
        }
        framesSinceDetect += 1
        let update = stage.process(detections, frame: frame)
        cat.log(.log, element.object, "\(detections.count) detections, \(update.tracks.count) tracks")
    }
}
