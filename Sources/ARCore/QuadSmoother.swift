import Foundation

/// Smooths a quad over time with one `OneEuroFilter` per corner coordinate (8 filters), for steadier
/// overlays. Parameters are in pixels and seconds (`beta` per pixel/second of corner speed).
public struct QuadSmoother: Sendable {
    private var filters: [OneEuroFilter]

    /// All 8 filters share the parameters: `minCutoff` and `dCutoff` in hertz, `beta` per pixel/second.
    public init(minCutoff: Double = 1.0, beta: Double = 0.0, dCutoff: Double = 1.0) {
        filters = Array(repeating: OneEuroFilter(minCutoff: minCutoff, beta: beta, dCutoff: dCutoff), count: 8)
    }

    /// Smooths the corners of `quad` (pixels) observed at `timestampSeconds`; corner roles are kept.
    /// Follows `OneEuroFilter.filter` for the first sample and for repeated or backward timestamps.
    public mutating func smooth(_ quad: Quad, timestampSeconds: Double) -> Quad {
        let raw = quad.corners.flatMap { [$0.x, $0.y] }
        var out: [Double] = []
        out.reserveCapacity(8)
        for i in 0..<8 { out.append(filters[i].filter(raw[i], timestampSeconds: timestampSeconds)) }
        return Quad((0..<4).map { Point(x: out[2 * $0], y: out[2 * $0 + 1]) })!
    }

    /// Forgets the history of every corner; the next quad passes through unchanged.
    public mutating func reset() {
        for i in filters.indices { filters[i].reset() }
    }
}
