/// Each code's area as rules see it (a fraction of the frame's), with hysteresis: the value moves
/// only when the code's real area has changed by more than `ratio` from it, so a code whose size
/// wavers around a rule's `min-area`/`max-area` does not switch its overlays on every frame.
public struct AreaLevels: Sendable {
    /// The change (a factor, > 1) the area must exceed before the value rules see follows it.
    public var ratio: Double
    private var shown: [UInt64: Double] = [:]

    public init(ratio: Double = 1.25) {
        self.ratio = ratio
    }

    /// The area rules see for track `id` whose area is now `fraction` of the frame's.
    public mutating func area(of id: UInt64, fraction: Double) -> Double {
        if let s = shown[id], fraction <= s * ratio, fraction * ratio >= s { return s }
        shown[id] = fraction
        return fraction
    }

    /// Forgets the tracks not in `ids` (gone from the screen).
    public mutating func keep(_ ids: Set<UInt64>) {
        shown = shown.filter { ids.contains($0.key) }
    }

    /// Forgets every track (flush, discontinuity).
    public mutating func reset() {
        shown = [:]
    }
}
