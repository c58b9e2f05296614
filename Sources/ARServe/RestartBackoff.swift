/// How long a failed camera waits before its pipeline is started again: the delay doubles with
/// each failure in a row, from `initialSeconds` up to `maximumSeconds`; a camera that ran (frames
/// flowing) for at least `maximumSeconds` before it failed starts over at `initialSeconds`.
public struct RestartBackoff: Sendable, Equatable {
    /// Delay after the first failure, seconds (> 0).
    public var initialSeconds: Double
    /// Longest delay, seconds (≥ `initialSeconds`); also how long a camera must have run for its
    /// next failure to count as the first again.
    public var maximumSeconds: Double

    /// 1 s, 2 s, 4 s … up to 30 s by default.
    public init(initialSeconds: Double = 1, maximumSeconds: Double = 30) {
        self.initialSeconds = initialSeconds
        self.maximumSeconds = max(maximumSeconds, initialSeconds)
    }

    /// The delay after failure number `failuresInARow` (1 for the first), seconds.
    public func delaySeconds(failuresInARow: Int) -> Double {
        var delay = initialSeconds
        for _ in 1..<max(failuresInARow, 1) {
            delay *= 2
            if delay >= maximumSeconds { return maximumSeconds }
        }
        return min(delay, maximumSeconds)
    }

    /// The failures in a row once a camera fails again: 1 when the run that just ended delivered
    /// frames for at least `maximumSeconds` (`runningSeconds`; nil when it never delivered a
    /// frame), else one more than `previous`.
    public func failuresInARow(previous: Int, runningSeconds: Double?) -> Int {
        if let runningSeconds, runningSeconds >= maximumSeconds { return 1 }
        return previous + 1
    }
}
