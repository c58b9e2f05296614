import CGStreamer

/// Pixel buffers of cached tiles (upright labels, the hint), kept while in use: an entry unused
/// for `maxIdleFrames` frames is dropped.
final class OverlayTileCache {
    private var entries: [AnyHashable: (buffer: UnsafeMutablePointer<GstBuffer>, lastUsed: UInt64)] = [:]
    private var frame: UInt64 = 0
    let maxIdleFrames: UInt64 = 30

    deinit {
        removeAll()
    }

    /// The buffer for `key` (a new reference), or nil.
    func buffer(for key: AnyHashable) -> UnsafeMutablePointer<GstBuffer>? {
        guard let e = entries[key] else { return nil }
        entries[key] = (e.buffer, frame)
        gst_mini_object_ref(UnsafeMutableRawPointer(e.buffer).assumingMemoryBound(to: GstMiniObject.self))
        return e.buffer
    }

    /// Keeps `buffer` (takes a new reference) for `key`.
    func store(_ buffer: UnsafeMutablePointer<GstBuffer>, for key: AnyHashable) {
        gst_mini_object_ref(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self))
        if let old = entries[key] { overlayUnref(old.buffer) }
        entries[key] = (buffer, frame)
    }

    /// Ends a frame: drops entries idle for too long.
    func endFrame() {
        frame += 1
        guard frame % 16 == 0 else { return }
        for (key, e) in entries where frame - e.lastUsed > maxIdleFrames {
            overlayUnref(e.buffer)
            entries[key] = nil
        }
    }

    func removeAll() {
        for e in entries.values { overlayUnref(e.buffer) }
        entries.removeAll()
    }
}
