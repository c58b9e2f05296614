import Foundation

/// The 1€ filter (Casiez, Roussel, Vogel, CHI 2012): a low-pass filter whose cutoff rises with the
/// signal's speed, so slow jitter is smoothed strongly while fast motion is followed with little lag.
public struct OneEuroFilter: Sendable {
    /// Cutoff frequency at zero speed, hertz. Lower smooths more.
    public var minCutoff: Double
    /// Cutoff increase per unit of speed (hertz per value-unit per second). Higher lags less when moving.
    public var beta: Double
    /// Cutoff frequency for the speed estimate, hertz.
    public var dCutoff: Double

    private var previous: (value: Double, derivative: Double, time: Double)?

    /// Non-positive cutoffs freeze the output at the first sample (no crash).
    public init(minCutoff: Double = 1.0, beta: Double = 0.0, dCutoff: Double = 1.0) {
        self.minCutoff = minCutoff
        self.beta = beta
        self.dCutoff = dCutoff
    }

    /// Filters one sample taken at `timestampSeconds` and returns the smoothed value.
    ///
    /// The first sample after creation or `reset()` is returned unchanged. A timestamp equal to or
    /// earlier than the previous one restarts the filter from this sample (returned unchanged), so no
    /// division by a zero or negative interval happens. A non-finite value or timestamp is returned
    /// as-is without touching the state.
    public mutating func filter(_ value: Double, timestampSeconds t: Double) -> Double {
        guard value.isFinite, t.isFinite else { return value }
        guard let prev = previous, t > prev.time else {
            previous = (value, 0, t)
            return value
        }
        let dt = t - prev.time
        let derivative = lowPass(prev.derivative, (value - prev.value) / dt, alpha(dCutoff, dt))
        let cutoff = minCutoff + beta * abs(derivative)
        let smoothed = lowPass(prev.value, value, alpha(cutoff, dt))
        previous = (smoothed, derivative, t)
        return smoothed
    }

    /// Forgets the history; the next sample passes through unchanged.
    public mutating func reset() {
        previous = nil
    }

    /// Smoothing factor of an exponential low-pass at `cutoff` hertz over `dt` seconds (0 for cutoff ≤ 0).
    private func alpha(_ cutoff: Double, _ dt: Double) -> Double {
        guard cutoff > 0 else { return 0 }
        let tau = 1 / (2 * Double.pi * cutoff)
        return 1 / (1 + tau / dt)
    }

    /// One exponential smoothing step from `previous` towards `value`.
    private func lowPass(_ previous: Double, _ value: Double, _ alpha: Double) -> Double {
        previous + alpha * (value - previous)
    }
}
