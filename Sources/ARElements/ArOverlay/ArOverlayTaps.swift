import ARBridge
import ARCore
import ARGst
import ARRender
import ARVision
import CCairoGObject
import CGStreamer
import Foundation

private var cat: DebugCategory { overlayCategory }

extension ArOverlay {
    // MARK: taps

    /// Navigation events from downstream (a click in the video sink's window, or sent by an
    /// application or a remote viewer): a mouse-button press on a code or its overlays toggles the
    /// code's expanded state. The event goes on upstream either way.
    public func srcEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool {
        guard event.pointee.type == GST_EVENT_NAVIGATION else { return true }
        let type = gst_navigation_event_get_type(event)
        guard type == GST_NAVIGATION_EVENT_MOUSE_BUTTON_PRESS || type == GST_NAVIGATION_EVENT_MOUSE_BUTTON_RELEASE else { return true }
        var button: Int32 = 0
        var x = 0.0, y = 0.0
        guard gst_navigation_event_parse_mouse_button_event(event, &button, &x, &y) != 0, button == 1 else { return true }
        let s = settings.snapshot
        if type == GST_NAVIGATION_EVENT_MOUSE_BUTTON_RELEASE {
            // A note dragged down far enough is removed (as a swipe does).
            shared.update { o in
                if let p = o.pressedNote, y - p.y >= Self.noteDragPixels, o.liveNotes.contains(p.id) {
                    o.noteRequests.append(.remove(id: p.id))
                }
                o.pressedNote = nil
            }
            return true
        }
        if s.tap, tap(x: x, y: y) { return true }
        guard s.notes else { return true }
        shared.update { o in
            if let hit = o.noteRects.last(where: { $0.rect.insetBy(-4).contains(Point(x: x, y: y)) }) {
                o.pressedNote = (hit.id, y)
            } else {
                let id = o.nextNoteID
                o.nextNoteID += 1
                o.noteRequests.append(.add(id: id, x: x, y: y, text: "Note \(id)"))
                o.liveNotes.insert(id)
            }
        }
        return true
    }

    /// A tap at (`x`, `y`), frame pixels: toggles the code there (if any), then says so.
    /// A click on a code (or its overlays) toggles it; false when the click hit no code.
    @discardableResult
    func tap(x: Double, y: Double) -> Bool {
        let single = settings.snapshot.singleExpanded
        let hit = shared.update { o -> (target: TapTargets.Target, expanded: Bool)? in
            guard let t = o.taps.hit(x: x, y: y) else { return nil }
            if o.expanded.contains(t.trackID) {
                o.expanded.remove(t.trackID)
            } else {
                if single { o.expanded = [] }
                o.expanded.insert(t.trackID)
            }
            o.generation += 1
            return (t, o.expanded.contains(t.trackID))
        }
        guard let hit else {
            cat.log(.debug, element.object, "tap at (\(x), \(y)) on no code")
            return false
        }
        cat.log(.info, element.object, "tap on track \(hit.target.trackID): \(hit.expanded ? "expanded" : "collapsed")")
        var params = [GValue(), GValue(), GValue(), GValue()]
        g_value_init(&params[0], ar_value_gtype(AR_VALUE_UINT64))
        g_value_set_uint64(&params[0], guint64(hit.target.trackID))
        g_value_init(&params[1], ar_value_gtype(AR_VALUE_STRING))
        g_value_set_string(&params[1], hit.target.text)
        g_value_init(&params[2], ar_value_gtype(AR_VALUE_DOUBLE))
        g_value_set_double(&params[2], x)
        g_value_init(&params[3], ar_value_gtype(AR_VALUE_DOUBLE))
        g_value_set_double(&params[3], y)
        element.emitSignal(SignalIndex.tapped.rawValue, &params)
        for i in params.indices { g_value_unset(&params[i]) }
        let s = OwnedStructure(name: "arbarcode-tapped")
        s.set("track-id", uint64: hit.target.trackID)
        s.set("data", string: hit.target.text)
        s.set("symbology", string: hit.target.symbology)
        s.set("x", double: x)
        s.set("y", double: y)
        s.set("expanded", bool: hit.expanded)
        element.postElementMessage(s)
        return true
    }

    // MARK: application overlays

    public func action(_ index: Int, params: UnsafeBufferPointer<GValue>, result: UnsafeMutablePointer<GValue>?) {
        // The track id of the actions that take one first (add-note's first parameter is a double).
        let trackID = params.first.map { $0.g_type == ar_value_gtype(AR_VALUE_UINT64) } == true
            ? withUnsafePointer(to: params[0]) { UInt64(g_value_get_uint64($0)) } : 0
        switch SignalIndex(rawValue: index) {
        case .resetCount:
            let had = shared.update { o -> Bool in
                o.count?.reset()
                return o.count != nil
            }
            if let result { g_value_set_boolean(result, had ? 1 : 0) }
        case .countSummary:
            let json = shared.update { o -> String? in
                o.askedSummary = o.count?.summaryJSON()
                return o.askedSummary
            }
            if let result { g_value_set_string(result, json) }
        case .setOverlay:
            let json = withUnsafePointer(to: params[1]) { g_value_get_string($0).map { String(cString: $0) } } ?? "[]"
            let snapshot = shared.snapshot
            guard snapshot.takes(trackID) else {
                cat.log(.info, element.object, "set-overlay for track \(trackID) refused: no such track (gone, or never seen)")
                if let result { g_value_set_boolean(result, 0) }
                return
            }
            let style = snapshot.style
            do {
                let specs = try style.parseOverlays(json)
                shared.update {
                    $0.byTrack[trackID] = specs
                    $0.generation += 1
                }
                if let result { g_value_set_boolean(result, 1) }
            } catch {
                element.postWarning(.settings("set-overlay for track \(trackID) refused: \(error)"))
                if let result { g_value_set_boolean(result, 0) }
            }
        case .addNote:
            let x = withUnsafePointer(to: params[0]) { g_value_get_double($0) }
            let y = withUnsafePointer(to: params[1]) { g_value_get_double($0) }
            let text = withUnsafePointer(to: params[2]) { g_value_get_string($0).map { String(cString: $0) } } ?? ""
            guard x.isFinite, y.isFinite else {
                element.postWarning(.settings("add-note refused: the point (\(x), \(y)) is not a finite position in frame pixels"))
                if let result { g_value_set_uint64(result, 0) }
                return
            }
            let id = shared.update { o -> UInt64 in
                let id = o.nextNoteID
                o.nextNoteID += 1
                o.noteRequests.append(.add(id: id, x: x, y: y, text: text))
                o.liveNotes.insert(id)
                return id
            }
            if let result { g_value_set_uint64(result, guint64(id)) }
        case .editNote, .removeNote:
            let text = index == SignalIndex.editNote.rawValue
                ? withUnsafePointer(to: params[1]) { g_value_get_string($0).map { String(cString: $0) } } ?? "" : nil
            let known = shared.update { o -> Bool in
                guard o.liveNotes.contains(trackID) else { return false }
                if let text { o.noteRequests.append(.edit(id: trackID, text: text)) } else {
                    o.noteRequests.append(.remove(id: trackID))
                    o.liveNotes.remove(trackID)
                }
                return true
            }
            if let result { g_value_set_boolean(result, known ? 1 : 0) }
        case .clearOverlay:
            let existed = shared.update { o -> Bool in
                let had = o.byTrack.removeValue(forKey: trackID) != nil
                o.generation += 1
                return had
            }
            if let result { g_value_set_boolean(result, existed ? 1 : 0) }
        default:
            break
        }
    }
}
