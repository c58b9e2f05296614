import ARCore
import Dispatch
import Synchronization

/// Pyramids of earlier frames whose buffers new frames' pyramids are written into, so that a
/// stream allocates nothing per frame. A spare something else still reads (an async decode job's
/// frame, `lent`) is passed over: writing into it would copy its buffers first.
public struct PyramidSpares {
    /// Spares kept (`recycle` drops the oldest past it).
    public let capacity: Int
    private var spares: [LumaPyramid] = []
    /// Pyramids `prepare` made, until a new frame's pyramid takes them in.
    private let made = Handover()

    /// Pyramids handed from the thread that made them to the stream's: those of the size last
    /// asked for only (an earlier `prepare` that ends later is dropped).
    private final class Handover: Sendable {
        private struct Held {
            var width = 0, height = 0
            var pyramids: [LumaPyramid] = []
        }

        private let held = Mutex(Held())

        /// Pyramids of `width` × `height` are wanted: any others held or put are dropped.
        func want(width: Int, height: Int) {
            held.withLock { $0 = Held(width: width, height: height) }
        }

        func put(_ pyramids: [LumaPyramid], width: Int, height: Int) {
            held.withLock { if $0.width == width && $0.height == height { $0.pyramids = pyramids } }
        }

        func take() -> [LumaPyramid] {
            held.withLock { h in
                defer { h.pyramids = [] }
                return h.pyramids
            }
        }
    }

    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Spares held now.
    public var count: Int { spares.count }

    /// Makes `capacity` + 1 pyramids of `width` × `height` (`levelCount` levels), as many as a stream
    /// writes into while a decode holds one of them, allocated and written so their pages are
    /// mapped, on `run` (by default a background queue: made on the streaming thread when caps
    /// are set, they held a 4K stream's first frame back by 24–114 ms).
    /// The first `pyramid(copying:…)` after they are made takes them in: from then on a stream
    /// allocates nothing (after a flush too, if its last pyramid is recycled). Nothing is made when
    /// the newest spare already has that size.
    public mutating func prepare(width: Int, height: Int, levelCount: Int,
                                 run: (@escaping @Sendable () -> Void) -> Void = { DispatchQueue.global(qos: .utility).async(execute: $0) }) {
        guard width > 0, height > 0 else { return }
        if let p = spares.last, p.width == width, p.height == height { return }
        let made = self.made, count = capacity + 1
        made.want(width: width, height: height)
        run {
            made.put((0..<count).map { _ in LumaPyramid(LumaPlane(width: width, height: height), levelCount: levelCount) },
                     width: width, height: height)
        }
    }

    /// The pyramid of `width` × `height` pixels at `base` (rows `stride` bytes apart), written into
    /// the newest spare `lent` does not hold (new buffers when there is none).
    public mutating func pyramid(copying base: UnsafeRawPointer, width: Int, height: Int, stride: Int,
                                 levelCount: Int, lent: LumaPyramid? = nil) -> LumaPyramid {
        // Spares of another size would be replaced, not written into (a size change).
        spares.removeAll { $0.width != width || $0.height != height }
        // Behind the spares, and not held to the capacity: the stream may need one more than it keeps.
        spares.insert(contentsOf: made.take().filter { $0.width == width && $0.height == height }, at: 0)
        var spare = spares.lastIndex { !$0.sharesPixels(with: lent) }.map { spares.remove(at: $0) }
        return LumaPyramid(copying: base, width: width, height: height, stride: stride, levelCount: levelCount, reusing: &spare)
    }

    /// Keeps `pyramid`, a frame's no longer needed, as the newest spare.
    public mutating func recycle(_ pyramid: LumaPyramid) {
        spares.append(pyramid)
        if spares.count > capacity { spares.removeFirst(spares.count - capacity) }
    }
}
