import ARBridge
import ARCore
import ARGst
import CGStreamer

/// What the tracking elements announce on each frame: a bus ELEMENT message and GObject signals.
///
/// Message (posted on frames where one of its lists is not empty): structure `arbarcode-tracks`
/// with `frame` (uint64, from 0), `pts` (uint64 nanoseconds, when known), `added` and `removed`
/// (lists of `arbarcode` structures, see `BarcodeRegion`, with `track-id`) and, when
/// `message-updates` is on, `updated`: every live track that was not added on this frame, at its
/// quad on this frame. Signals, emitted on the streaming thread with one `arbarcode` structure each:
/// `track-added`, `track-updated` (every live track not added, every frame), `track-removed`.
/// Regions in state `located` (seen, not read) are not tracks: they are never announced.
enum TrackEvents {
    static let messageName = "arbarcode-tracks"

    /// Signals of both tracking elements, in this order (indices below).
    static let signals: [SignalSpec] = [
        SignalSpec("track-added", params: [.structure]),
        SignalSpec("track-updated", params: [.structure]),
        SignalSpec("track-removed", params: [.structure]),
    ]
    static let added = 0, updated = 1, removed = 2

    static let messagesBlurb = "Post an 'arbarcode-tracks' element message on frames where tracks were added or removed"
    static let updatesBlurb = "Also list every followed track ('updated') in the element message, on every frame"

    /// The tracks of one frame, split for reporting (quads as reported, i.e. smoothed).
    struct Frame {
        var index: UInt64
        var ptsNanoseconds: UInt64?
        var added: [BarcodeRegion]
        var updated: [BarcodeRegion]
        var removed: [BarcodeRegion]
    }

    /// Posts the message and emits the signals for `frame` (its `located` regions left out).
    static func publish(_ frame: Frame, element: ElementHandle, messages: Bool, updates: Bool) {
        var frame = frame
        for list in [\Frame.added, \Frame.updated, \Frame.removed] {
            frame[keyPath: list].removeAll { $0.state == .located }
        }
        if messages, !frame.added.isEmpty || !frame.removed.isEmpty || (updates && !frame.updated.isEmpty) {
            let s = OwnedStructure(name: messageName)
            s.set("frame", uint64: frame.index)
            if let pts = frame.ptsNanoseconds { s.set("pts", uint64: pts) }
            s.set("added", structures: frame.added.map { $0.structure(reference: false) })
            s.set("removed", structures: frame.removed.map { $0.structure(reference: false) })
            if updates { s.set("updated", structures: frame.updated.map { $0.structure(reference: false) }) }
            element.postElementMessage(s)
        }
        emit(added, frame.added, element)
        emit(updated, frame.updated, element)
        emit(removed, frame.removed, element)
    }

    private static func emit(_ index: Int, _ regions: [BarcodeRegion], _ element: ElementHandle) {
        guard !regions.isEmpty, hasHandlers(index, element) else { return }
        for r in regions {
            var params = [GValue()]
            g_value_init(&params[0], ar_value_gtype(AR_VALUE_STRUCTURE))
            g_value_take_boxed(&params[0], UnsafeRawPointer(r.structure(reference: false).release()))
            element.emitSignal(index, &params)
            g_value_unset(&params[0])
        }
    }

    /// Whether anyone listens: building structures for nobody would cost streaming-thread time.
    private static func hasHandlers(_ index: Int, _ element: ElementHandle) -> Bool {
        let instance = UnsafeMutableRawPointer(element.pointer).assumingMemoryBound(to: GTypeInstance.self)
        let id = g_signal_lookup(signals[index].name, instance.pointee.g_class.pointee.g_type)
        return id != 0 && g_signal_has_handler_pending(UnsafeMutableRawPointer(element.pointer), id, 0, 0) != 0
    }
}

/// Upstream liveness, from a LATENCY query on the filter's sink pad.
enum TrackLiveness {
    static func upstreamIsLive(_ element: ElementHandle) -> Bool {
        let base = UnsafeMutableRawPointer(element.pointer).assumingMemoryBound(to: GstBaseTransform.self)
        guard let pad = base.pointee.sinkpad, let query = gst_query_new_latency() else { return false }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(query).assumingMemoryBound(to: GstMiniObject.self)) }
        var live: gboolean = 0
        if gst_pad_peer_query(pad, query) != 0 { gst_query_parse_latency(query, &live, nil, nil) }
        return live != 0
    }
}
