import ARCore
import ARDetect
import ARVision
import Foundation

/// Decodes on its own thread (a `OneJobWorker`) so the streaming thread never waits for zbar.
/// Holds at most one job: `submit` refuses work while busy (stale work is dropped, never queued),
/// and the result waits until `takeResult` collects it.
final class TrackDecodeWorker: Sendable {
    /// One decode: a full scan (`regions` nil) or re-decodes of the tracks in `regions`, on frame `frame`.
    struct Job {
        var plane: LumaPlane
        var frame: UInt64
        var regions: [Track]?
        /// Full scans: tracked codes' quads, left to region re-decodes.
        var skipping: [Quad] = []
        var symbologies: String?
        var options: DetectorOptions
    }

    struct Result {
        var frame: UInt64
        var full: Bool
        var detections: [Detection]
        /// Full scans: verified regions no pass read.
        var located: [LocatedRegion]
        /// Time the decode took, milliseconds.
        var milliseconds: Double
    }

    private let worker: OneJobWorker<Job, Result>

    /// A worker decoding with `decoder`, which only its thread uses from now on.
    init(decoder: TrackDecoder) {
        worker = OneJobWorker(name: "arbarcodetrack") { job in
            try? decoder.reconfigure(symbologies: job.symbologies, options: job.options)
            let t0 = DispatchTime.now().uptimeNanoseconds
            let found = job.regions.map { DetectorResult(codes: decoder.regions(job.plane, $0), located: []) }
                ?? decoder.full(job.plane, skipping: job.skipping)
            return Result(frame: job.frame, full: job.regions == nil, detections: found.codes, located: found.located,
                          milliseconds: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
        }
    }

    /// Hands `job` to the worker; false (and nothing happens) while it is still busy or holds an
    /// uncollected result.
    func submit(_ job: Job) -> Bool { worker.submit(job) }

    /// The finished result, if any (once).
    func takeResult() -> Result? { worker.takeResult() }

    /// Drops the pending result and the one being computed (flush, seek, caps change).
    func cancel() { worker.cancel() }

    /// Stops the thread, waiting for a decode in progress to end.
    func stop() { worker.stop() }
}
