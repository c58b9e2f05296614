import ARVision

/// Searches for rectangles on a `OneJobWorker` thread: one search at a time, never queued.
enum RectSearchWorker {
    struct Job {
        var pyramid: LumaPyramid
        /// Index of the frame searched.
        var frame: UInt64
        var detector: RectangleDetector
    }

    struct Result {
        var frame: UInt64
        /// Rectangles found, level-0 pixels of that frame.
        var found: [RectangleCandidate]
    }

    static func make() -> OneJobWorker<Job, Result> {
        OneJobWorker(name: "arrecttrack") { job in Result(frame: job.frame, found: job.detector.detect(job.pyramid)) }
    }
}
