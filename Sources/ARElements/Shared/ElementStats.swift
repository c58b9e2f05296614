import ARCore
import ARGst
import Foundation

/// The `stats-interval` property and the `arbarcode-stats` element message, shared by the elements
/// that post it: every `stats-interval` seconds of stream time, `frames` (int), `fps` (double),
/// `process-ms-median` and `process-ms-p95` (double: time the element spent per frame), `late` (int:
/// frames that took longer than their duration), `decode-ms-median` and `decode-ms-p95` (double, when
/// the element decoded), and the element's own counts (e.g. `tracks`, `occluded`, `codes`, of the
/// interval's last frame; `tracks-refused`: codes not tracked because `max-tracks` were alive, since start). Not thread-safe: used from the streaming thread.
final class ElementStats {
    /// Name of the element message.
    static let messageName = "arbarcode-stats"

    /// The `stats-interval` entry of an element whose settings hold the interval (seconds) at `path`.
    static func property<S>(_ path: WritableKeyPath<S, Double>) -> Property<S> {
        .double("stats-interval", "Stats interval",
                "Seconds of stream time between 'arbarcode-stats' element messages (frames, fps, time per frame median "
                    + "and p95, late frames, decode times, tracks); 0 = none", path, range: 0...3600)
    }

    private var stats = FrameStats(intervalNanoseconds: 0)
    private var started: UInt64 = 0
    private var frames: UInt64 = 0
    /// Nominal frame duration when buffers carry none, nanoseconds.
    var frameDurationNanoseconds: UInt64 = 33_333_333

    /// Marks the start of a frame's processing.
    func begin() {
        started = DispatchTime.now().uptimeNanoseconds
    }

    /// Milliseconds since `begin`.
    var elapsedMilliseconds: Double {
        Double(DispatchTime.now().uptimeNanoseconds &- started) / 1e6
    }

    /// Ends `frame`'s processing (`decodeMilliseconds` of it decoding, if it decoded); when
    /// `intervalSeconds` of stream time have passed, posts the message with `counts` appended.
    func end(_ frame: VideoFrame, intervalSeconds: Double, decodeMilliseconds: Double? = nil, counts: [(String, Int)] = [],
             element: ElementHandle) {
        let interval = UInt64(max(0, intervalSeconds) * 1e9)
        if interval != stats.intervalNanoseconds { stats = FrameStats(intervalNanoseconds: interval) }
        let duration = frame.buffer.durationNanoseconds ?? frameDurationNanoseconds
        let pts = frame.buffer.ptsNanoseconds ?? frames &* duration
        frames &+= 1
        guard let r = stats.record(ptsNanoseconds: pts, durationNanoseconds: duration, processMilliseconds: elapsedMilliseconds,
                                   decodeMilliseconds: decodeMilliseconds) else { return }
        let s = OwnedStructure(name: Self.messageName)
        s.set("frames", int: Int32(clamping: r.frames))
        s.set("fps", double: r.fps)
        s.set("process-ms-median", double: r.processMedianMilliseconds)
        s.set("process-ms-p95", double: r.processP95Milliseconds)
        s.set("late", int: Int32(clamping: r.late))
        if let m = r.decodeMedianMilliseconds, let p = r.decodeP95Milliseconds {
            s.set("decode-ms-median", double: m)
            s.set("decode-ms-p95", double: p)
        }
        for (name, value) in counts { s.set(name, int: Int32(clamping: value)) }
        element.postElementMessage(s)
    }

    /// Forgets the interval in progress (flush, restart).
    func reset() {
        stats.reset()
        frames = 0
    }
}
