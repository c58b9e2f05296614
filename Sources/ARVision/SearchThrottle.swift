/// When a throttled search may run: at most `searchesPerSecond` on buffer time, the first at once.
/// Pure: the caller says when it started one (a worker may refuse work while busy).
public struct SearchThrottle: Hashable, Sendable {
    /// Most searches per second of buffer time (> 0).
    public var searchesPerSecond: Double
    /// Buffer time of the last search started, nanoseconds; nil before the first.
    public private(set) var lastNanoseconds: UInt64?

    public init(searchesPerSecond: Double) {
        self.searchesPerSecond = searchesPerSecond
    }

    /// Whether a search may start at buffer time `t` (nanoseconds): none yet, or at least
    /// 1 / `searchesPerSecond` since the last (a timestamp going back counts as due).
    public func isDue(at t: UInt64) -> Bool {
        guard let last = lastNanoseconds else { return true }
        guard t >= last else { return true }
        return Double(t - last) >= 1e9 / max(1e-6, searchesPerSecond) - 1
    }

    /// Records a search started at `t`.
    public mutating func started(at t: UInt64) { lastNanoseconds = t }

    /// Forgets the last search (flush, seek): the next one is due at once.
    public mutating func reset() { lastNanoseconds = nil }
}
