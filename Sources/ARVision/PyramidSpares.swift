import ARCore

/// Pyramids of earlier frames whose buffers new frames' pyramids are written into, so that a
/// stream allocates nothing per frame. A spare something else still reads (an async decode job's
/// frame, `lent`) is passed over: writing into it would copy its buffers first.
public struct PyramidSpares {
    /// Spares kept (`recycle` drops the oldest past it).
    public let capacity: Int
    private var spares: [LumaPyramid] = []

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Spares held now.
    public var count: Int { spares.count }

    /// Makes `capacity` + 1 pyramids of `width` × `height` (`levelCount` levels), as many as a stream
    /// writes into while a decode holds one of them, allocated and written so their pages are
    /// mapped: from then on a stream allocates nothing. Nothing is made when the newest spare
    /// already has that size. (Tried on a background queue at stop 47: it raced the stream's first
    /// decodes for the cores.)
    public mutating func prepare(width: Int, height: Int, levelCount: Int) {
        guard width > 0, height > 0 else { return }
        if let p = spares.last, p.width == width, p.height == height { return }
        // Not held to the capacity: the stream's first frame takes one while it has no previous.
        spares = (0...capacity).map { _ in LumaPyramid(zerosWidth: width, height: height, levelCount: levelCount) }
    }

    /// The pyramid of `width` × `height` pixels at `base` (rows `stride` bytes apart), written into
    /// the newest spare `lent` does not hold (new buffers when there is none).
    public mutating func pyramid(copying base: UnsafeRawPointer, width: Int, height: Int, stride: Int,
                                 levelCount: Int, lent: LumaPyramid? = nil) -> LumaPyramid {
        // Spares of another size would be replaced, not written into (a size change).
        spares.removeAll { $0.width != width || $0.height != height }
        var spare = spares.lastIndex { !$0.sharesPixels(with: lent) }.map { spares.remove(at: $0) }
        return LumaPyramid(copying: base, width: width, height: height, stride: stride, levelCount: levelCount, reusing: &spare)
    }

    /// Keeps `pyramid`, a frame's no longer needed, as the newest spare.
    public mutating func recycle(_ pyramid: LumaPyramid) {
        spares.append(pyramid)
        if spares.count > capacity { spares.removeFirst(spares.count - capacity) }
    }
}
