import ARBridge
import ARVision
import Foundation

/// Searches for rectangles on its own thread so the streaming thread never waits for a search.
/// Holds at most one job: `submit` refuses work while busy (a stale search is dropped, never
/// queued), and the result waits until `takeResult` collects it.
final class RectSearchWorker: @unchecked Sendable {  // Job, result and flags are guarded by `condition`; the detector is a value copied per job.
    struct Result {
        /// Index of the frame searched.
        var frame: UInt64
        /// Rectangles found, level-0 pixels of that frame.
        var found: [RectangleCandidate]
    }

    private let condition = NSCondition()
    private var job: (pyramid: LumaPyramid, frame: UInt64, detector: RectangleDetector)?
    private var result: Result?
    private var busy = false
    private var stopping = false
    private var generation = 0
    private let finished = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in run() }
        thread.start()
    }

    /// Hands a search of `pyramid` (frame `frame`) to the worker; false while it is busy or holds
    /// an uncollected result.
    func submit(_ pyramid: LumaPyramid, frame: UInt64, detector: RectangleDetector) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !busy, result == nil, !stopping else { return false }
        job = (pyramid, frame, detector)
        busy = true
        condition.signal()
        return true
    }

    /// The finished search, if any (once).
    func takeResult() -> Result? {
        condition.lock()
        defer { condition.unlock() }
        let r = result
        result = nil
        return r
    }

    /// Drops the pending result and the search under way (flush, caps change).
    func cancel() {
        condition.lock()
        generation += 1
        result = nil
        if job != nil {
            job = nil
            busy = false
        }
        condition.unlock()
    }

    /// Stops the thread, waiting for a search in progress to end.
    func stop() {
        condition.lock()
        stopping = true
        generation += 1
        condition.signal()
        condition.unlock()
        finished.wait()
    }

    private func run() {
        ar_thread_set_name("arrecttrack")
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(ar_thread_id()), TrackDecodeWorker.niceness)
        while true {
            condition.lock()
            while job == nil && !stopping { condition.wait() }
            if stopping { condition.unlock(); break }
            let job = self.job!
            self.job = nil
            let mine = generation
            condition.unlock()
            let found = job.detector.detect(job.pyramid)
            condition.lock()
            busy = false
            if mine == generation { result = Result(frame: job.frame, found: found) }
            condition.unlock()
        }
        finished.signal()
    }
}
