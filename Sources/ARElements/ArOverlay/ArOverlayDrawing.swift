import ARBridge
import ARCore
import ARGst
import ARRender
import ARVision
import CCairoGObject
import CGStreamer
import Foundation

extension ArOverlay {
    /// Moves each code's upright labels and boxes together so that codes' labels do not overlap and
    /// stay inside the frame (`LabelLayout`), with a leader line from moved ones back to their place.
    func layOut(_ ops: inout [[(op: DrawOp, opacity: Double)]], entries: [OverlayTimeline.Entry], state: State,
                        frame: VideoFrame) {
        func screenRect(_ op: DrawOp) -> PlacedRect? {
            switch op {
            case .label(_, let rect) where rect.angle == 0: rect
            case .box(let rect, _, _) where rect.angle == 0: rect
            default: nil
            }
        }
        var items: [LabelLayout.Item] = [], owners: [Int] = []
        for (k, e) in entries.enumerated() {
            guard let id = e.info.trackID else { continue }
            let rects = ops[k].compactMap { screenRect($0.op)?.bounds }
            guard let first = rects.first else { continue }
            let union = rects.dropFirst().reduce(first) { $0.union($1) }
            items.append(LabelLayout.Item(code: id, index: 0, rect: PlacedRect(union)))
            owners.append(k)
        }
        guard !items.isEmpty else { return }
        for (placed, (k, item)) in zip(state.layout.place(items, width: Double(frame.width), height: Double(frame.height)),
                                       zip(owners, items)) {
            let d = placed.rect.center - item.rect.center
            guard d.x != 0 || d.y != 0 else { continue }
            var leaderColor: Color?
            for n in ops[k].indices {
                switch ops[k][n].op {
                case .label(let content, var rect) where rect.angle == 0:
                    rect.center = rect.center + d
                    ops[k][n].op = .label(content, rect: rect)
                    leaderColor = leaderColor ?? content.background ?? content.color
                case .box(var rect, let color, let radius) where rect.angle == 0:
                    rect.center = rect.center + d
                    ops[k][n].op = .box(rect: rect, color: color, radius: radius)
                    leaderColor = leaderColor ?? color
                default: break
                }
            }
            if let l = placed.leader, let color = leaderColor {
                ops[k].insert((.outline(quad: Quad(topLeft: l.from, topRight: l.to, bottomRight: l.to, bottomLeft: l.from), color: color,
                                        width: 2), 1), at: 0)
            }
        }
    }

    /// Swaps in a style parsed after a property change (a cheap exchange: the parse is done);
    /// a bad style is reported and the old one kept.
    func swapStyle(_ pending: PendingStyle, _ state: State) {
        let s = pending.settings
        if let font = s.font, let problem = FontDescription.sizeProblem(font) {
            element.postWarning(.settings("Invalid value for property 'font': '\(font)': \(problem); labels are drawn no taller than the frame"))
        }
        switch pending.result {
        case .success(let loaded):
            state.style = loaded.style
            state.images = loaded.images
            state.abandonedRules = []
            state.timeline.expirySeconds = loaded.style.expirySeconds
            state.timeline.fadeSeconds = loaded.style.fadeSeconds
            state.generation += 1
            shared.update { $0.style = loaded.style }
        case .failure(let error):
            element.postWarning(.settings("Invalid overlay style, keeping the previous one: \(error)"))
        }
        state.hint = Self.hint(s, state.style)
    }

    /// The overlays of one code on this frame with their geometry.
    func drawOps(for e: OverlayTimeline.Entry, at t: Double, state: State, overrides: Overrides, generation: Int,
                         defaultFont: String, frameHeight: Int) -> [(op: DrawOp, opacity: Double)] {
        let overlays: [ResolvedOverlay]
        let previous = state.resolved[e.key]
        if let cached = previous, cached.info == e.info, cached.generation == generation {
            overlays = cached.overlays
        } else {
            if let id = e.info.trackID, let specs = overrides.byTrack[id] {
                overlays = overrides.style.resolve(specs, for: e.info)
            } else {
                let evaluated = state.style.overlaysAndAbandonedRules(for: e.info)
                overlays = evaluated.overlays
                for r in evaluated.abandonedRules where state.abandonedRules.insert(r).inserted {
                    element.postWarning(.settings("rules[\(r)] of \(state.style.file): the 'data' match on code "
                        + "'\(ImageFile.printable(e.info.text, maxCharacters: 80))' went over its budget and was stopped "
                        + "(counted as no match; warned once per rule)"))
                }
            }
            state.resolved[e.key] = (e.info, generation, overlays)
            // Only the code's level changed (its area crossed a rule's bound): cross-fade.
            if let previous, previous.generation == generation, previous.overlays != overlays, state.style.fadeSeconds > 0 {
                var same = previous.info
                same.area = e.info.area
                if same == e.info { state.levelFades[e.key] = (previous.overlays, t) }
            }
        }
        let what = "code '\(ImageFile.printable(e.info.text, maxCharacters: 80))'"
        var ops = drawOps(overlays, quad: e.quad, trackID: e.info.trackID, what: what, state: state, defaultFont: defaultFont,
                          frameHeight: frameHeight)
        if let fade = state.levelFades[e.key] {
            let p = (t - fade.start) / state.style.fadeSeconds
            if p >= 1 || p < 0 {
                state.levelFades[e.key] = nil
            } else {
                let old = drawOps(fade.from, quad: e.quad, trackID: e.info.trackID, what: what, state: state, defaultFont: defaultFont,
                                  frameHeight: frameHeight)
                ops = old.map { ($0.op, $0.opacity * (1 - p)) } + ops.map { ($0.op, $0.opacity * p) }
            }
        }
        return ops
    }

    /// The overlays of a located region of class `symbologyClass` (`1D`, `2D`), resolved once per
    /// class and style generation.
    func locatedOverlays(_ symbologyClass: String, state: State, generation: Int) -> [ResolvedOverlay] {
        if let cached = state.locatedResolved[symbologyClass], cached.generation == generation { return cached.overlays }
        let overlays = state.style.overlays(for: CodeInfo(symbology: symbologyClass, text: "", trackID: nil, located: true))
        state.locatedResolved[symbologyClass] = (generation, overlays)
        return overlays
    }

    /// `overlays` placed on `quad` (frame pixels); `what` names the code in warnings.
    func drawOps(_ overlays: [ResolvedOverlay], quad: Quad, trackID: UInt64?, what: String, state: State, defaultFont: String,
                         frameHeight: Int) -> [(op: DrawOp, opacity: Double)] {
        var ops: [(DrawOp, Double)] = []
        for o in overlays {
            let spec = o.spec
            switch spec.kind {
            case .outline:
                ops.append((.outline(quad: quad, color: o.color, width: spec.lineWidth), spec.opacity))
            case .box:
                ops.append((.box(rect: spec.placement.resolve(on: quad), color: o.color, radius: spec.radius), spec.opacity))
            case .fill:
                ops.append((.fill(quad: quad, color: o.color), spec.opacity))
            case .dot:
                ops.append((.dot(rect: spec.placement.resolve(on: quad), color: o.color), spec.opacity))
            case .label:
                guard !o.text.isEmpty else { continue }
                let label = LabelContent(text: o.text, font: state.renderer.sizedFont(spec.font ?? defaultFont, frameHeight: frameHeight),
                                         color: o.color, background: spec.background, padding: spec.padding, radius: spec.radius)
                let size = state.renderer.size(of: label)
                let rect = spec.placement.resolve(on: quad, natural: .fixed(width: size.width, height: size.height))
                ops.append((.label(label, rect: rect), spec.opacity))
            case .image where spec.fromTarget:
                guard let trackID, let image = picture(PictureKey(trackID: trackID, alter: spec.alter), state: state) else { continue }
                ops.append((.warp(image, quad: quad), spec.opacity))
            case .image:
                // Loaded off the streaming thread: an image not loaded yet is not drawn yet.
                let image: OverlayImage
                switch o.image {
                case .success(let file)?:
                    switch state.images.image(file) {
                    case .ready(let i): image = i
                    case .pending: continue
                    case .failed(let why): warnUnusableImage(file.path, why, what: what, state: state); continue
                    }
                case .failure(let refusal)?:
                    warnUnusableImage(refusal.path, refusal.description, what: what, state: state)
                    continue
                case nil:
                    continue
                }
                if spec.warp {
                    ops.append((.warp(image, quad: quad), spec.opacity))
                } else {
                    let rect = spec.placement.resolve(on: quad, natural: .aspect(width: Double(image.width), height: Double(image.height)))
                    ops.append((.image(image, rect: rect), spec.opacity))
                }
            }
        }
        return ops
    }

    /// The altered picture `key` names, once its alteration is done; asks for it (off the streaming
    /// thread, `alterations`) the first time, when the track's reference picture is on this frame.
    func picture(_ key: PictureKey, state: State) -> OverlayImage? {
        if let done = pictures.snapshot[key] {
            state.pendingPictures.remove(key)
            switch done {
            case .success(let image): return image
            case .failure(let why):
                if state.failedPictures.insert(key).inserted { element.postWarning(.settings("aroverlay: \(why)")) }
                return nil
            }
        }
        guard !state.pendingPictures.contains(key), let reference = state.references[key.trackID] else { return nil }
        state.pendingPictures.insert(key)
        let pictures = self.pictures, element = self.element
        Self.alterations.snapshot.execute {
            let t0 = DispatchTime.now().uptimeNanoseconds
            let result = PictureAlteration.run(reference, chain: key.alter, name: "picture of rectangle \(key.trackID)")
            pictures.update { $0[key] = result }
            let m = OwnedStructure(name: "arbarcode-alteration")
            m.set("track-id", uint64: key.trackID)
            m.set("alter", string: key.alter ?? "")
            m.set("done", bool: (try? result.get()) != nil)
            m.set("milliseconds", double: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            element.postElementMessage(m)
        }
        // Run inline (tests), the picture is there already.
        if case .success(let image)? = pictures.snapshot[key] { state.pendingPictures.remove(key); return image }
        return nil
    }

    /// Reports an image that cannot be drawn, once per path (remembering at most 1024 paths).
    func warnUnusableImage(_ path: String, _ why: String, what: String, state: State) {
        if state.missingImages.count >= 1024 { state.missingImages.removeAll() }
        guard state.missingImages.insert(path).inserted else { return }
        element.postWarning(.openRead("aroverlay: image for \(what) unusable: \(why)"))
    }
}
