import ARCore
import ARGst
import CGStreamer
import Foundation

/// Tracker state shared by `artrack` and `arbarcodetrack`: turns detections into tracks with
/// stable ids on buffer timestamps and writes them back as ROI metas.
final class TrackingStage {
    private var tracker: Tracker
    private var frameIndex: UInt64 = 0
    /// Nominal frame duration, used when buffers carry no timestamps.
    var frameDurationNanoseconds: UInt64 = 33_333_333

    init(configuration: TrackerConfiguration) {
        tracker = Tracker(configuration: configuration)
    }

    /// Forget every track (flush, seek); ids keep increasing.
    func reset() {
        tracker.reset()
    }

    /// Applies property changes that may happen while playing.
    func configure(expirySeconds: Double, maxTracks: Int) {
        let c = TrackerConfiguration(expiryNanoseconds: UInt64(max(0, expirySeconds) * 1e9), maxTracks: maxTracks)
        if c != tracker.configuration { tracker.configuration = c }
    }

    /// Runs the tracker for `frame` and replaces its codes with the tracks.
    @discardableResult
    func process(_ detections: [Detection], frame: VideoFrame) -> TrackerUpdate {
        let buffer = frame.buffer
        let t = buffer.ptsNanoseconds ?? frameIndex &* frameDurationNanoseconds
        frameIndex &+= 1
        if buffer.isDiscont && frameIndex > 1 { tracker.reset() }
        let update = tracker.update(detections: detections, timestampNanoseconds: t)
        frame.setBarcodeRegions(update.tracks.map {
            BarcodeRegion(trackID: $0.id, symbology: $0.symbology, payload: $0.payload, quad: $0.quad, state: $0.state,
                          quality: $0.quality)
        })
        return update
    }
}

/// Tracker properties shared by `artrack` and `arbarcodetrack`.
enum TrackingDefaults {
    static let expirySeconds = 1.0
    static let maxTracks = 64
    static let expiryBlurb = "Seconds a track lives after its last successful decode (then reported once as 'lost' and removed), on buffer timestamps"
    static let maxTracksBlurb = "Most tracks followed at once; codes beyond it are not tracked"
}
