import ARCore
import ARDetect
import ARVision
import Foundation

/// Decodes off the streaming thread so it never waits for zbar longer than it chooses to. A
/// ``DecodeScheduler`` holds at most one job in flight: `submit` refuses work while busy (stale
/// work is dropped, never queued), and the result waits until `takeResult` collects it.
final class TrackDecodeWorker: @unchecked Sendable {  // The decoder and `decodedEpoch` are used only by the job in flight, and the scheduler allows one; `epoch` only by the caller (the streaming thread).
    /// One decode on frame `frame`: a full scan with the re-decodes of `tracks` in the same batches,
    /// or (`regions`) those re-decodes alone.
    struct Job {
        var plane: LumaPlane
        var frame: UInt64
        var kind: DecodeKind
        /// The tracks due for a re-decode.
        var tracks: [Track] = []
        /// Full scans: tracked codes, left to their re-decodes.
        var skipping: [KnownCode] = []
        /// Full scans: `plane`'s pyramid (its coarser levels serve the localizer).
        var pyramid: LumaPyramid?
        var symbologies: String?
        var options: DetectorOptions
        /// Set by `submit`: the flushes (`cancel`) before this job.
        var epoch = 0
    }

    struct Result {
        var frame: UInt64
        var full: Bool
        /// Full scans: the codes found (new ones among them).
        var detections: [Detection]
        /// The tracks' re-decodes (to be matched to live tracks only).
        var tracked: [Detection]
        /// Full scans: verified regions no pass read.
        var located: [LocatedRegion]
        /// Time the decode took, milliseconds.
        var milliseconds: Double
        /// Time from the decode's start until a frame waiting for it had all it could get,
        /// milliseconds: a full scan's first decodes of its located regions (the codes it hands
        /// over early: `takeResultOrParts`), else the whole decode.
        var readyMilliseconds: Double
    }

    private let decoder: TrackDecoder
    private let scheduler: DecodeScheduler<Result>
    /// Called on a decoding thread after each part is handed over (tests hold the job there).
    private let partHandedOver: (@Sendable () -> Void)?
    /// Nanoseconds on a monotonic clock, for the results' times.
    private let clock: @Sendable () -> UInt64
    /// `cancel` calls so far (caller's side).
    private var epoch = 0
    /// The epoch of the last job decoded (worker's side): a job of a later one starts by forgetting
    /// the frames before (`TrackDecoder.reset`), whatever stale job ran in between.
    private var decodedEpoch = 0

    /// The worker thread's nice value (Linux: per thread), above the streaming thread's 0.
    static let niceness: Int32 = 10

    /// A worker decoding with `decoder` on `executor`; by default a thread of its own named
    /// `arbarcodetrack`, at `niceness`. `partHandedOver`: called on a decoding thread after each
    /// part of a job is handed over (`takeResultOrParts`). `clock`: nanoseconds, monotonic.
    init(decoder: TrackDecoder, executor: (any DecodeExecutor)? = nil, partHandedOver: (@Sendable () -> Void)? = nil,
         clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        self.decoder = decoder
        self.partHandedOver = partHandedOver
        self.clock = clock
        scheduler = DecodeScheduler(executor: executor ?? DecodeThread(name: "arbarcodetrack", niceness: Self.niceness))
    }

    /// Hands `job` to the worker; false (and nothing happens) while it is still busy or holds an
    /// uncollected result.
    func submit(_ job: Job) -> Bool {
        var stamped = job
        stamped.epoch = epoch
        return scheduler.submit { [self, stamped] publish in decode(stamped, publish: publish) }
    }

    /// The finished result, if any (once).
    func takeResult() -> Result? {
        scheduler.takeResult()
    }

    /// The finished result (once), waiting for the decode in flight until `deadline`; when the wait
    /// ends without it, the codes a full scan in flight has read so far and not yet handed over
    /// (`BarcodeDetector.scan`'s `early`), each part a result of the job's frame with `detections` only.
    func takeResultOrParts(waitingUntil deadline: Date) -> (result: Result?, parts: [Result]) {
        scheduler.takeResultOrParts(waitingUntil: deadline)
    }

    /// Drops the pending result and the one being computed (flush, seek, caps change); the first
    /// job submitted after it starts by forgetting the frames before (the decoder's memory of places).
    func cancel() {
        epoch += 1
        scheduler.cancel()
    }

    /// Takes no more work and waits for a decode in progress to end (the default thread then ends).
    func stop() {
        scheduler.stop()
    }

    private func decode(_ job: Job, publish: @escaping @Sendable (Result) -> Void) -> Result {
        let partHandedOver = partHandedOver
        if job.epoch != decodedEpoch {
            decoder.reset()
            decodedEpoch = job.epoch
        }
        try? decoder.reconfigure(symbologies: job.symbologies, options: job.options)
        let clock = clock, t0 = clock()
        let elapsed = { Double(clock() - t0) / 1e6 }
        var ready: Double?
        let (found, tracked) = switch job.kind {
        case .full:
            decoder.full(job.plane, skipping: job.skipping, andRegions: job.tracks, pyramid: job.pyramid, early: EarlyHandOver(codes: { codes in
                let t = elapsed()
                publish(Result(frame: job.frame, full: true, detections: codes, tracked: [], located: [], milliseconds: t, readyMilliseconds: t))
                partHandedOver?()
            }, firstDecodesEnded: { ready = elapsed() }))
        case .regions: (DetectorResult(codes: [], located: []), decoder.regions(job.plane, job.tracks))
        }
        let total = elapsed()
        return Result(frame: job.frame, full: job.kind == .full, detections: found.codes, tracked: tracked, located: found.located,
                      milliseconds: total, readyMilliseconds: ready ?? total)
    }
}
