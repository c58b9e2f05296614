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
    /// Applies the note requests of clicks and actions, moves the notes with the scene (when the frame
    /// has a luma plane), adds them to the frame's metadata (kind `note`) and returns their tiles: a
    /// dot on the scene point and an upright label above it, labels kept apart and inside the frame.
    func noteTiles(frame: VideoFrame, regions: [BarcodeRegion], nanoseconds now: UInt64, settings s: Settings,
                           state: State) -> [RenderTile] {
        let requests = shared.update { o -> [NoteRequest] in
            defer { o.noteRequests = [] }
            return o.noteRequests
        }
        state.notes.expiryNanoseconds = UInt64(s.noteExpiry * 1e9)
        var adds: [(id: UInt64, x: Double, y: Double, text: String)] = []
        for r in requests {
            switch r {
            case .add(let id, let x, let y, let text): adds.append((id, x, y, text))
            case .edit(let id, let text): state.notes.edit(id, text: text)
            case .remove(let id):
                state.notes.remove(id)
                cat.log(.info, element.object, "note \(id) removed")
            }
        }
        // The notes there were move with the scene; new ones are pinned where the click was, on this frame.
        var spare: LumaPyramid? = nil
        let pyramid = state.notes.notes.isEmpty && adds.isEmpty ? nil : frame.trackLuma.map {
            LumaPyramid(copying: $0.base, width: $0.width, height: $0.height, stride: $0.stride, levelCount: 4, reusing: &spare)
        }
        state.notes.advance(from: state.notePyramid, to: pyramid, now: now)
        for n in adds {
            state.notes.add(id: n.id, at: Point(x: n.x, y: n.y), text: n.text, now: now, in: pyramid)
            cat.log(.info, element.object, "note \(n.id) pinned at (\(n.x), \(n.y))")
        }
        state.notePyramid = pyramid
        let notes = state.notes.notes
        var tiles: [RenderTile] = [], rects: [(id: UInt64, rect: Rect)] = []
        var items: [LabelLayout.Item] = [], labels: [LabelContent] = []
        let font = state.renderer.sizedFont(s.font ?? "Sans Bold", frameHeight: frame.height)
        for n in notes where n.visible {
            let label = LabelContent(text: n.text, font: font, color: Color(red: 1, green: 1, blue: 1),
                                     background: Color(red: 0.125, green: 0.125, blue: 0.125, alpha: 0.82), padding: 4, radius: 4)
            let size = state.renderer.size(of: label)
            items.append(LabelLayout.Item(code: n.id, index: 0,
                                          rect: PlacedRect(center: Point(x: n.point.x, y: n.point.y - size.height / 2 - 10),
                                                           width: size.width, height: size.height)))
            labels.append(label)
        }
        let visible = notes.filter(\.visible)
        for (placed, (n, label)) in zip(state.noteLayout.place(items, width: Double(frame.width), height: Double(frame.height)),
                                       zip(visible, labels)) {
            let dot = PlacedRect(center: n.point, width: 10, height: 10)
            var ops: [DrawOp] = [.dot(rect: dot, color: Color(red: 1, green: 0.8, blue: 0)), .label(label, rect: placed.rect)]
            if let l = placed.leader {
                ops.insert(.outline(quad: Quad(topLeft: l.from, topRight: l.to, bottomRight: l.to, bottomLeft: l.from),
                                    color: Color(red: 1, green: 0.8, blue: 0), width: 2), at: 0)
            }
            for op in ops { tiles += state.renderer.tiles(for: op, opacity: 1, frameWidth: frame.width, frameHeight: frame.height) }
            rects.append((n.id, placed.rect.bounds))
            rects.append((n.id, dot.bounds))
        }
        let ids = Set(notes.map(\.id))
        shared.update { o in
            o.noteRects = rects
            // Notes dropped here (expired) are gone for the actions too; ones asked for since stay.
            let asked = Set(o.noteRequests.compactMap { r -> UInt64? in if case .add(let id, _, _, _) = r { id } else { nil } })
            o.liveNotes = o.liveNotes.filter { ids.contains($0) || asked.contains($0) }
        }
        if !notes.isEmpty {
            frame.setBarcodeRegions(regions + notes.map { n in
                var r = BarcodeRegion(trackID: n.id, symbology: TargetKind.note.rawValue, payload: Array(n.text.utf8),
                                      quad: Quad(topLeft: n.point, topRight: n.point, bottomRight: n.point, bottomLeft: n.point),
                                      state: n.visible ? .tracked : .occluded, quality: 0)
                r.kind = .note
                return r
            })
        }
        return tiles
    }
}
