/// An element's figures over a reporting interval of stream time, for its `arbarcode-stats`
/// messages: frames, frame rate, time spent per frame and late frames.
public struct FrameStats: Sendable {
    /// One interval's figures.
    public struct Report: Equatable, Sendable {
        /// Frames in the interval.
        public var frames: Int
        /// Frames per second of stream time (buffer timestamps) over the interval.
        public var fps: Double
        /// Time the element spent per frame, milliseconds: median and 95th percentile.
        public var processMedianMilliseconds: Double
        public var processP95Milliseconds: Double
        /// Decode time per decode, milliseconds (nil when nothing was decoded in the interval).
        public var decodeMedianMilliseconds: Double?
        public var decodeP95Milliseconds: Double?
        /// Frames whose processing took longer than the frame's duration (a live source outruns it).
        public var late: Int
    }

    /// Length of an interval, nanoseconds of stream time (0: no reports).
    public var intervalNanoseconds: UInt64
    private var windowStart: UInt64?
    private var process: [Double] = []
    private var decode: [Double] = []
    private var late = 0

    /// Stats reported every `intervalNanoseconds` of stream time.
    public init(intervalNanoseconds: UInt64) {
        self.intervalNanoseconds = intervalNanoseconds
    }

    /// Counts one frame at `ptsNanoseconds`, lasting `durationNanoseconds`, on which the element
    /// spent `processMilliseconds` (of which `decodeMilliseconds` decoding, if it decoded). Returns
    /// the interval's report when this frame ends it.
    public mutating func record(ptsNanoseconds pts: UInt64, durationNanoseconds: UInt64, processMilliseconds: Double,
                                decodeMilliseconds: Double? = nil) -> Report? {
        guard intervalNanoseconds > 0 else { return nil }
        // A timestamp going backwards (seek, loop): a new interval.
        if let start = windowStart, pts < start { reset() }
        let start = windowStart ?? pts
        windowStart = start
        process.append(processMilliseconds)
        if let decodeMilliseconds { decode.append(decodeMilliseconds) }
        if processMilliseconds * 1e6 > Double(durationNanoseconds) { late += 1 }
        let end = pts &+ durationNanoseconds
        // Half a frame of slack: timestamps rounded to nanoseconds fall just short of the interval.
        guard end &- start &+ durationNanoseconds / 2 >= intervalNanoseconds else { return nil }
        let report = Report(frames: process.count, fps: Double(process.count) / (Double(end - start) / 1e9),
                            processMedianMilliseconds: Self.percentile(process, 0.5),
                            processP95Milliseconds: Self.percentile(process, 0.95),
                            decodeMedianMilliseconds: decode.isEmpty ? nil : Self.percentile(decode, 0.5),
                            decodeP95Milliseconds: decode.isEmpty ? nil : Self.percentile(decode, 0.95), late: late)
        reset()
        windowStart = end
        return report
    }

    /// Forgets the interval in progress (flush, seek, restart).
    public mutating func reset() {
        windowStart = nil
        process = []
        decode = []
        late = 0
    }

    /// The `p` quantile (0…1) of `values` (nearest rank).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        var values = values
        return values.orderStatistic(min(values.count - 1, max(0, Int((p * Double(values.count)).rounded(.up)) - 1)))
    }
}
