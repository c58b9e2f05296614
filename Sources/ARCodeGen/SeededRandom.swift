/// A small, fast, deterministic pseudo-random generator (SplitMix64).
///
/// The same seed always gives the same sequence, on every platform and Swift version: use the
/// helpers below (`nextUnit()`, `next(in:)`) rather than the standard library's `random(in:using:)`,
/// whose mapping from raw bits to ranges is not guaranteed to stay the same across releases.
public struct SeededRandom: RandomNumberGenerator, Hashable, Sendable {
    /// The internal 64-bit state; advances by a fixed odd constant on every draw.
    public private(set) var state: UInt64

    /// A generator whose sequence is fully determined by `seed` (any value, including 0).
    public init(seed: UInt64) {
        self.state = seed
    }

    /// The next 64 uniformly distributed bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniformly distributed value in [0, 1), with 53 bits of precision.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// A uniformly distributed value in `range` (both ends finite; the upper end is never returned
    /// unless the range is a single value).
    public mutating func next(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextUnit()
    }

    /// A uniformly distributed integer in `range` (tiny modulo bias, irrelevant for test data).
    public mutating func next(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(bitPattern: Int64(range.upperBound) &- Int64(range.lowerBound)) &+ 1
        if span == 0 { return Int(truncatingIfNeeded: next()) }  // the full Int range
        return range.lowerBound &+ Int(truncatingIfNeeded: next() % span)
    }

    /// A well-mixed 64-bit value derived from `seed` and `stream`, to seed independent generators
    /// (e.g. one per frame) without them sharing a sequence.
    public static func mix(_ seed: UInt64, _ stream: UInt64) -> UInt64 {
        var g = SeededRandom(seed: seed ^ (stream &* 0xD6E8_FEB8_6659_FD93))
        return g.next()
    }
}
