import ARCore
import ARVision

/// Searches for rectangles off the streaming thread: a ``DecodeScheduler`` on a thread of its
/// own, one search at a time, never queued (`submit` refuses while busy or while a result waits).
final class RectSearchWorker: Sendable {
    struct Job: Sendable {
        var pyramid: LumaPyramid
        /// Index of the frame searched.
        var frame: UInt64
        var detector: RectangleDetector
    }

    struct Result: Sendable {
        var frame: UInt64
        /// Rectangles found, level-0 pixels of that frame.
        var found: [RectangleCandidate]
    }

    private let scheduler: DecodeScheduler<Result>

    /// A worker searching on `executor`; by default a thread of its own named `arrecttrack`, at
    /// the same nice value as the decode worker's.
    init(executor: (any DecodeExecutor)? = nil) {
        scheduler = DecodeScheduler(executor: executor ?? DecodeThread(name: "arrecttrack", niceness: TrackDecodeWorker.niceness))
    }

    /// Hands `job` to the worker; false (and nothing happens) while it is busy or holds a result.
    func submit(_ job: Job) -> Bool {
        scheduler.submit { Result(frame: job.frame, found: job.detector.detect(job.pyramid)) }
    }

    /// The finished result, if any (once).
    func takeResult() -> Result? { scheduler.takeResult() }

    /// Drops the pending result and the one being computed (flush, seek, caps change).
    func cancel() { scheduler.cancel() }

    /// Takes no more work and waits for a search in progress to end.
    func stop() { scheduler.stop() }
}
