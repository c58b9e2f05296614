import CGStreamer

/// Cached tiles (upright labels, the hint) as GStreamer mini objects: pixel buffers, or overlay
/// rectangles (which also keep GStreamer's conversions of their pixels). An entry unused for
/// `maxIdleFrames` frames is dropped.
final class OverlayTileCache {
    private var entries: [AnyHashable: (object: UnsafeMutablePointer<GstMiniObject>, lastUsed: UInt64)] = [:]
    private var frame: UInt64 = 0
    let maxIdleFrames: UInt64 = 30

    deinit {
        removeAll()
    }

    /// Number of entries.
    var count: Int { entries.count }

    /// The object for `key` (a new reference), or nil.
    func object(for key: AnyHashable) -> UnsafeMutablePointer<GstMiniObject>? {
        // One hash of the key (labels' keys hash their text and font).
        guard let i = entries.index(forKey: key) else { return nil }
        entries.values[i].lastUsed = frame
        return gst_mini_object_ref(entries.values[i].object)
    }

    /// Keeps `object` (takes a new reference) for `key`.
    func store(_ object: UnsafeMutablePointer<GstMiniObject>, for key: AnyHashable) {
        _ = gst_mini_object_ref(object)
        if let old = entries[key] { gst_mini_object_unref(old.object) }
        entries[key] = (object, frame)
    }

    /// The buffer for `key` (a new reference), or nil.
    func buffer(for key: AnyHashable) -> UnsafeMutablePointer<GstBuffer>? {
        object(for: key).map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: GstBuffer.self) }
    }

    /// Keeps `buffer` (takes a new reference) for `key`.
    func store(_ buffer: UnsafeMutablePointer<GstBuffer>, for key: AnyHashable) {
        store(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self), for: key)
    }

    /// Ends a frame: drops entries idle for too long.
    func endFrame() {
        frame += 1
        guard frame % 16 == 0 else { return }
        for (key, e) in entries where frame - e.lastUsed > maxIdleFrames {
            gst_mini_object_unref(e.object)
            entries[key] = nil
        }
    }

    func removeAll() {
        for e in entries.values { gst_mini_object_unref(e.object) }
        entries.removeAll()
    }
}
