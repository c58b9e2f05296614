import CGStreamer

/// A raw-video source implemented in Swift (a GstPushSrc subclass made by the bridge), in TIME format.
///
/// Lifecycle: `init` when the GstElement is created; `start` on READY→PAUSED; `fixate` and
/// `setInfo` during caps negotiation; `fill` once per buffer on the streaming thread; `stop` on
/// PAUSED→READY. `num-buffers` and `do-timestamp` come from GstBaseSrc. A live source calls
/// `ElementHandle.setLive(true)` when its `is-live` property changes (GstBaseSrc reads it before
/// `start`) and is then paced by the clock on its buffers' timestamps.
public protocol VideoSourceElement: ElementImplementation {
    /// Fixates the caps downstream allows (transfer full in and out); default: `gst_caps_fixate`.
    func fixate(_ caps: UnsafeMutablePointer<GstCaps>) -> UnsafeMutablePointer<GstCaps>
    /// Draws the next frame into `frame` (all of it) and sets the buffer's PTS and duration.
    /// Returns false at the end of the stream.
    func fill(_ frame: VideoFrame) throws -> Bool
}

extension VideoSourceElement {
    public func fixate(_ caps: UnsafeMutablePointer<GstCaps>) -> UnsafeMutablePointer<GstCaps> { gst_caps_fixate(caps) }
}

extension ElementHandle {
    /// Sources: whether the element is live (paced by the clock, no preroll).
    public func setLive(_ live: Bool) {
        pointer.withMemoryRebound(to: GstBaseSrc.self, capacity: 1) { gst_base_src_set_live($0, live ? 1 : 0) }
    }
}

extension Buffer {
    /// Sets presentation timestamp and duration, nanoseconds.
    public func setTimestamps(ptsNanoseconds: UInt64, durationNanoseconds: UInt64?) {
        pointer.pointee.pts = GstClockTime(ptsNanoseconds)
        pointer.pointee.duration = durationNanoseconds.map { GstClockTime($0) } ?? GstClockTime.max
    }
}

/// `gst_caps_make_writable` (a C macro): `caps` itself when writable, else a copy (transfer full).
public func makeWritable(_ caps: UnsafeMutablePointer<GstCaps>) -> UnsafeMutablePointer<GstCaps> {
    let mini = UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self)
    return UnsafeMutableRawPointer(gst_mini_object_make_writable(mini)!).assumingMemoryBound(to: GstCaps.self)
}
