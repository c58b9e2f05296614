import ARBridge
import ARCore
import ARGst
import ARRender
import ARVision
import CCairoGObject
import CGStreamer
import Foundation

extension ArOverlay {
    // MARK: signals

    func hasHandlers(_ signal: SignalIndex) -> Bool {
        g_signal_has_handler_pending(UnsafeMutableRawPointer(element.pointer), signalIDs[signal.rawValue], 0, 0) != 0
    }

    /// The `arbarcode` structure describing a code's overlay: the code's fields plus `opacity`
    /// (0…1) and `present` (whether the code is on this frame).
    func trackStructure(_ e: OverlayTimeline.Entry) -> OwnedStructure {
        let s = OwnedStructure(name: BarcodeRegion.paramsName)
        s.set("data", string: e.info.text)
        s.set("symbology", string: e.info.symbology)
        s.set("quad", doubles: e.quad.corners.flatMap { [$0.x, $0.y] })
        s.set("track-id", uint64: e.info.trackID ?? 0)
        s.set("opacity", double: e.opacity)
        s.set("present", bool: e.present)
        return s
    }

    func emit(_ signal: SignalIndex, _ entries: [OverlayTimeline.Entry]) {
        guard !entries.isEmpty, hasHandlers(signal) else { return }
        for e in entries {
            var params = [GValue(), GValue()]
            g_value_init(&params[0], ar_value_gtype(AR_VALUE_UINT64))
            g_value_set_uint64(&params[0], guint64(e.info.trackID ?? 0))
            g_value_init(&params[1], ar_value_gtype(AR_VALUE_STRUCTURE))
            g_value_take_boxed(&params[1], UnsafeRawPointer(trackStructure(e).release()))
            element.emitSignal(signal.rawValue, &params)
            for i in params.indices { g_value_unset(&params[i]) }
        }
    }

    /// Emits `draw` for one code on a recording surface; the tile holds what the handlers drew.
    func customDrawing(_ e: OverlayTimeline.Entry, frame: VideoFrame) -> RenderTile? {
        let drawing = CustomDrawing()
        var params = [GValue(), GValue()]
        g_value_init(&params[0], cairo_gobject_context_get_type())
        g_value_set_boxed(&params[0], drawing.contextPointer)
        g_value_init(&params[1], ar_value_gtype(AR_VALUE_STRUCTURE))
        g_value_take_boxed(&params[1], UnsafeRawPointer(trackStructure(e).release()))
        element.emitSignal(SignalIndex.draw.rawValue, &params)
        for i in params.indices { g_value_unset(&params[i]) }
        return drawing.finish(opacity: e.opacity, frameWidth: frame.width, frameHeight: frame.height)
    }
}
