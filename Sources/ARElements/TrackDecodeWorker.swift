import ARCore
import ARDetect
import ARVision
import COSShim
import Foundation

/// Decodes on its own thread so the streaming thread never waits for zbar. Holds at most one
/// job: `submit` refuses work while busy (stale work is dropped, never queued), and the result
/// waits until `takeResult` collects it.
final class TrackDecodeWorker: @unchecked Sendable {  // Job and result are guarded by `condition`; the decoder is used by the worker thread only.
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

    private let condition = NSCondition()
    private var job: Job?
    private var result: Result?
    private var busy = false
    private var stopping = false
    private var generation = 0
    private var decoder: TrackDecoder
    private let finished = DispatchSemaphore(value: 0)

    /// The worker thread's nice value (Linux: per thread), above the streaming thread's 0.
    static let niceness: Int32 = 10

    init(decoder: TrackDecoder) {
        self.decoder = decoder
        let thread = Thread { [self] in run() }
        thread.start()
    }

    /// Hands `job` to the worker; false (and nothing happens) while it is still busy or holds an
    /// uncollected result.
    func submit(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !busy, result == nil, !stopping else { return false }
        self.job = job
        busy = true
        condition.signal()
        return true
    }

    /// The finished result, if any (once).
    func takeResult() -> Result? {
        condition.lock()
        defer { condition.unlock() }
        let r = result
        result = nil
        return r
    }

    /// Drops the pending result and the one being computed (flush, seek, caps change).
    func cancel() {
        condition.lock()
        generation += 1
        result = nil
        // A job not yet picked up is dropped too: it belongs to frames before the flush.
        if job != nil {
            job = nil
            busy = false
        }
        condition.unlock()
    }

    /// Stops the thread, waiting for a decode in progress to end.
    func stop() {
        condition.lock()
        stopping = true
        generation += 1
        condition.signal()
        condition.unlock()
        finished.wait()
    }

    private func run() {
        // Named for `top -H` and debuggers (Linux keeps 15 bytes).
        COSShim_set_thread_name("arbarcodetrack")
        // Below the streaming thread: when the cores are busy, frames go first and decodes wait.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(COSShim_gettid()), Self.niceness)
        while true {
            condition.lock()
            while job == nil && !stopping { condition.wait() }
            if stopping { condition.unlock(); break }
            let job = self.job!
            self.job = nil
            let myGeneration = generation
            condition.unlock()

            try? decoder.reconfigure(symbologies: job.symbologies, options: job.options)
            let t0 = DispatchTime.now().uptimeNanoseconds
            let found = job.regions.map { DetectorResult(codes: decoder.regions(job.plane, $0), located: []) }
                ?? decoder.full(job.plane, skipping: job.skipping)

            condition.lock()
            busy = false
            if myGeneration == generation {
                result = Result(frame: job.frame, full: job.regions == nil, detections: found.codes, located: found.located,
                                milliseconds: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            }
            condition.unlock()
        }
        finished.signal()
    }
}
