/// Frames per second over the last second of frame arrivals (monotonic clock, ns): what a camera
/// delivers now, 0 once it has delivered nothing for a second.
public struct FrameRateMeter: Sendable {
    /// The window the rate is measured over, ns.
    public let windowNanoseconds: UInt64
    private var arrivals: [UInt64] = []
    private var first = 0  // arrivals before `first` have left the window

    /// A meter over `windowNanoseconds` (default one second).
    public init(windowNanoseconds: UInt64 = 1_000_000_000) {
        self.windowNanoseconds = windowNanoseconds
    }

    /// Records a frame that arrived at `nanoseconds` (monotonic, not decreasing).
    public mutating func add(atNanoseconds nanoseconds: UInt64) {
        arrivals.append(nanoseconds)
        drop(before: nanoseconds)
    }

    /// Frames per second at `nanoseconds`: the frames in the window ending then, over the time
    /// they span (n - 1 intervals); 0 with fewer than two frames in the window.
    public func framesPerSecond(atNanoseconds nanoseconds: UInt64) -> Double {
        let start = nanoseconds > windowNanoseconds ? nanoseconds - windowNanoseconds : 0
        let recent = arrivals[first...].filter { $0 >= start && $0 <= nanoseconds }
        guard recent.count >= 2, let oldest = recent.first, let newest = recent.last, newest > oldest else { return 0 }
        return Double(recent.count - 1) * 1e9 / Double(newest - oldest)
    }

    private mutating func drop(before nanoseconds: UInt64) {
        let start = nanoseconds > windowNanoseconds ? nanoseconds - windowNanoseconds : 0
        while first < arrivals.count && arrivals[first] < start { first += 1 }
        if first > 256 {  // keep the storage bounded
            arrivals.removeFirst(first)
            first = 0
        }
    }
}
