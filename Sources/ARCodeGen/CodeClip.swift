import ARCore
import Foundation

/// The symbologies a `CodeClip` draws; raw values are the detectors' symbology names.
public enum CodeClipKind: String, CaseIterable, Hashable, Sendable {
    case qr = "qrcode", ean13, code128

    /// The kind called `name`: a symbology name as the detectors' `symbologies` property takes it
    /// (`qrcode`, `ean13`, `code128`), or `qr`.
    public init?(name: String) {
        if name == "qr" { self = .qr } else { self.init(rawValue: name) }
    }
}

/// What a `CodeClip` shows and how its codes move. Sizes and speeds are relative to the frame
/// height, so one set of options gives the same clip at any resolution.
public struct CodeClipOptions: Hashable, Sendable {
    /// Widths and heights a clip can have, pixels.
    public static let frameSizes = 16...8192
    /// Frame size, pixels (`frameSizes`: 16...8192).
    public var width: Int
    public var height: Int
    /// Frames per second (> 0); frame `i` shows time `i / fps` seconds.
    public var fps: Double
    /// Seed of every random choice (payloads, paths, texture, noise).
    public var seed: UInt64
    /// Number of codes (0...64).
    public var codeCount: Int
    /// Symbologies, used in turn (code i gets `kinds[i % kinds.count]`).
    public var kinds: [CodeClipKind]
    /// Side of a QR code (1D codes: bar height × 1.6 wide), as a fraction of the frame height.
    public var codeSize: Double
    /// Top speed of a code's centre, frame heights per second.
    public var speed: Double
    /// Top rotation speed of QR codes, degrees per second (1D codes rock within ±15°).
    public var rotationSpeed: Double
    /// Scale change amplitude: sizes vary within 1 ± this (0...0.5).
    public var scaleChange: Double
    /// Largest keystone (`CodePlacement.perspective`), 0...0.3.
    public var perspective: Double
    /// Opaque bars sweeping across the frame, hiding what they pass over (0...8).
    public var occluders: Int
    /// Codes leave through the frame's edges and come back, and some appear and disappear in place.
    public var enterLeave: Bool
    /// Give the last code the first code's payload (two identical codes in view).
    public var twins: Bool
    /// Per-frame noise, ± gray levels (0...64).
    public var noise: Int
    /// Box-blur radius, pixels (0 = sharp, 0...4).
    public var blurRadius: Int
    /// Hand shake of the camera, pixels (0...200): the whole scene wanders smoothly and jitters,
    /// each axis within ± this (`CameraMotion`); 0 = off.
    public var shake: Double
    /// Camera pan speed, pixels per second (0...2000): the whole scene, background included, pans
    /// back and forth over ±10 % of the frame width (`CameraMotion`); 0 = off.
    public var pan: Double
    /// Exposure time, seconds (0...0.25; 0 = instantaneous): each frame averages the scene at
    /// evenly spaced instants across the exposure, centred on the frame's own time (motion blur).
    public var exposure: Double
    /// What the codes move over.
    public var background: CodeClipBackground
    /// Height of a photo card (`CodeClip.init(_:photos:)`), fraction of the frame height (0.05...1).
    public var photoSize: Double

    /// Defaults: 1280×720 at 30 fps, seed 1, 10 codes (QR, EAN-13, Code 128 in turn), codes 17 % of
    /// the frame height, up to 0.12 heights/s and 20°/s, ±10 % scale, keystone up to 0.1, no
    /// occluders, codes entering and leaving, one pair of twins, noise ±2, no blur; a still camera,
    /// instantaneous exposure, the plain background, photo cards 35 % of the frame height.
    public init(width: Int = 1280, height: Int = 720, fps: Double = 30, seed: UInt64 = 1, codeCount: Int = 10,
                kinds: [CodeClipKind] = [.qr, .ean13, .code128], codeSize: Double = 0.17, speed: Double = 0.12,
                rotationSpeed: Double = 20, scaleChange: Double = 0.1, perspective: Double = 0.1, occluders: Int = 0,
                enterLeave: Bool = true, twins: Bool = true, noise: Int = 2, blurRadius: Int = 0,
                shake: Double = 0, pan: Double = 0, exposure: Double = 0, background: CodeClipBackground = .plain,
                photoSize: Double = 0.35) {
        self.width = width
        self.height = height
        self.fps = fps
        self.seed = seed
        self.codeCount = codeCount
        self.kinds = kinds
        self.codeSize = codeSize
        self.speed = speed
        self.rotationSpeed = rotationSpeed
        self.scaleChange = scaleChange
        self.perspective = perspective
        self.occluders = occluders
        self.enterLeave = enterLeave
        self.twins = twins
        self.noise = noise
        self.blurRadius = blurRadius
        self.shake = shake
        self.pan = pan
        self.exposure = exposure
        self.background = background
        self.photoSize = photoSize
    }
}

/// What a truth quad outlines.
public enum CodeClipOutline: String, Hashable, Sendable {
    /// The code's exact symbol outline (generated codes).
    case exact
    /// A photo card's edges: the code is somewhere inside, its exact corners unknown.
    case card
}

/// Ground truth of one code (or photo card with a code) on one frame.
public struct CodeClipTruth: Hashable, Sendable {
    /// The code's number in the clip, from 0 (twins have different numbers); photo cards with a
    /// code follow the generated codes (`codeCount + k` for the k-th photo).
    public var index: Int
    public var payload: [UInt8]
    /// zbar's symbology name ("QR-Code", "EAN-13", "CODE-128"); for a photo, its `symbology`.
    public var symbology: String
    /// Exact symbol outline (quiet zone excluded), frame pixels, clockwise from the code's own
    /// top-left; for a photo card the card's edges (see `outline`).
    public var quad: Quad
    /// Share of the symbol (card) inside the frame and not hidden by an occluder or a code drawn over it, 0...1.
    public var visibleFraction: Double
    /// Whether `quad` is the code's exact outline or a card containing it.
    public var outline: CodeClipOutline = .exact
}

/// A deterministic clip of moving codes (any number, QR / EAN-13 / Code 128) with rotation, scale
/// change, keystone, occlusion, codes entering and leaving, noise and blur, optionally seen through
/// a moving camera (shake, pan), with motion blur, over a busy background and among photo cards:
/// the input of the tracker's tests and benchmarks. Every frame is a pure function of (options,
/// photos, frame index).
public struct CodeClip: Sendable {
    public let options: CodeClipOptions

    /// Closed-form motion of one moving thing (code or card).
    private struct Motion: Sendable {
        var box: Rect
        var velocity: Point
        var angle0: Double, angularVelocity: Double, rockRange: ClosedRange<Double>?
        var scalePhase: Double, scalePeriod: Double
        /// Shown only while `(t - onset) mod period < shown`; nil = always.
        var schedule: (onset: Double, period: Double, shown: Double)?
        /// Distance from the centre to the farthest drawn point at the largest scale, pixels.
        var reach: Double
    }

    private struct Path: Sendable {
        var code: SceneCode
        var motion: Motion
    }

    private struct Card: Sendable {
        /// The photo, shrunk to its largest size on screen.
        var photo: ClipPhoto
        /// Frame pixels per photo pixel at scale factor 1.
        var scale: Double
        var motion: Motion
    }

    /// One thing drawn on a frame, in drawing order: cards, then codes.
    private struct Shown {
        /// Truth index: code number, or `codeCount + k` for card k.
        var index: Int
        /// A card (index into `cards`) or a code at a placement.
        var card: (index: Int, center: Point, scale: Double, angle: Double)?
        var placement: CodePlacement?
        var quad: Quad
        /// What it hides of the things drawn before it.
        var cover: Quad
    }

    private let paths: [Path]
    private let cards: [Card]
    private let background: LumaPlane
    /// Pixels of background beyond each edge of the frame (for camera motion).
    private let margin: Int
    private let camera: CameraMotion
    /// Scene renders averaged per frame (1 without exposure).
    public let subsamples: Int
    /// Draws the codes: 4×4 samples per edge pixel, 2×2 when 4 or more renders are averaged (the
    /// average smooths the edges further).
    private let renderer: CodeRenderer

    /// A clip of `options.codeCount` generated codes and one moving card per photo in `photos`
    /// (those with a payload get card truth, the others none), cards `options.photoSize` of the
    /// frame height tall (narrower if a photo is wider than 90 % of the frame). Throws
    /// `CodeGenError.invalidScene` for options out of range.
    public init(_ options: CodeClipOptions, photos: [ClipPhoto] = []) throws {
        let o = options
        let sizes = CodeClipOptions.frameSizes
        guard sizes.contains(o.width), sizes.contains(o.height) else {
            throw CodeGenError.invalidScene("frame size \(o.width)x\(o.height) is outside \(sizes)")
        }
        guard o.fps.isFinite, o.fps > 0, (0...64).contains(o.codeCount), !o.kinds.isEmpty,
              o.codeSize > 0.02, o.codeSize <= 0.6, (0...0.5).contains(o.scaleChange), (0...0.3).contains(o.perspective),
              (0...8).contains(o.occluders), (0...64).contains(o.noise), (0...4).contains(o.blurRadius),
              o.speed.isFinite, o.speed >= 0, o.rotationSpeed.isFinite,
              (0...200).contains(o.shake), (0...2000).contains(o.pan), (0...0.25).contains(o.exposure),
              (0.05...1).contains(o.photoSize), photos.count <= 64
        else { throw CodeGenError.invalidScene("clip options out of range: \(o)") }
        self.options = o
        let camera = CameraMotion(shakePixels: o.shake, panPixelsPerSecond: o.pan, panReach: 0.1 * Double(o.width),
                                  seed: o.seed)
        self.camera = camera
        let margin = camera.isStill ? 0 : Int(camera.reach.rounded(.up)) + 2
        self.margin = margin
        let bw = o.width + 2 * margin, bh = o.height + 2 * margin
        switch o.background {
        case .plain:
            background = try SyntheticScene(width: bw, height: bh, codes: [], seed: o.seed).frame(atTime: 0).image
        case .texture:
            background = TexturedBackground.image(width: bw, height: bh, seed: o.seed)
        }
        var rng = SeededRandom(seed: SeededRandom.mix(o.seed, 0xC0DE))
        let w = Double(o.width), h = Double(o.height)
        // A grid of home cells, one per code and card, each bouncing around its own cell.
        let things = o.codeCount + photos.count
        let columns = max(1, Int((Double(things) * w / h).squareRoot().rounded(.up)))
        let rows = max(1, (things + columns - 1) / columns)
        func cell(_ i: Int) -> Rect {
            Rect(x: Double(i % columns) * w / Double(columns), y: Double(i / columns) * h / Double(rows),
                 width: w / Double(columns), height: h / Double(rows))
        }
        /// The bounce box of thing `i` reaching `reach` pixels from its centre.
        func box(_ i: Int, reach: Double, leaves: Bool) -> Rect {
            let cell = cell(i)
            var box = cell.insetBy(cell.width * 0.25)
            // Keep the quiet zone inside the frame, except for things that leave through an edge.
            let frame = Rect(x: reach, y: reach, width: max(0, w - 2 * reach), height: max(0, h - 2 * reach))
            box = box.intersection(frame).isEmpty ? Rect(x: cell.center.x, y: cell.center.y, width: 0, height: 0)
                : box.intersection(frame)
            if leaves {
                // Stretch the box past the nearest vertical edge by a code and a half.
                if cell.center.x < w / 2 { box = Rect(x: -reach * 1.5, y: box.y, width: box.maxX + reach * 1.5, height: box.height) }
                else { box = Rect(x: box.x, y: box.y, width: w + reach * 1.5 - box.x, height: box.height) }
            }
            return box
        }
        func schedule(_ i: Int) -> (Double, Double, Double)? {
            o.enterLeave && i % 3 == 2 ? (0.3 + Double(i) * 0.37, 6.0, 4.0) : nil
        }
        var paths: [Path] = []
        for i in 0..<o.codeCount {
            let isTwin = o.twins && i == o.codeCount - 1 && i > 0
            let kind = o.kinds[isTwin ? 0 : i % o.kinds.count]
            let side = o.codeSize * h
            let code: SceneCode
            let tag = "\(o.seed % 1000)-\(i)"
            let dummy = CodePlacement(center: Point(x: 0, y: 0), moduleSize: 1)
            switch kind {
            case .qr:
                let text = "ARCODE QR \(tag)"
                let matrix = try CodeMatrix.qr(text: text)
                var p = dummy
                p.moduleSize = side / Double(matrix.width)
                code = SceneCode(payload: Array(text.utf8), matrix: matrix, placement: p)
            case .ean13:
                var digits = ""
                for _ in 0..<12 { digits += String(rng.next(in: 0...9)) }
                let full = try CodeMatrix.ean13Normalized(digits)
                let matrix = try CodeMatrix.ean13(full)
                var p = dummy
                p.moduleSize = side * 1.6 / Double(matrix.width)
                p.barHeight = side * 0.55
                code = SceneCode(payload: Array(full.utf8), matrix: matrix, placement: p)
            case .code128:
                let text = "C128-\(tag)"
                let matrix = try CodeMatrix.code128(text)
                var p = dummy
                p.moduleSize = side * 1.6 / Double(matrix.width)
                p.barHeight = side * 0.55
                code = SceneCode(payload: Array(text.utf8), matrix: matrix, placement: p)
            }
            var c = isTwin ? paths[0].code : code
            c.placement.perspective = o.perspective * rng.next(in: -1.0...1.0)
            let reach = side * (kind == .qr ? 0.8 : 1.1) * (1 + o.scaleChange)
            let leaves = o.enterLeave && i % 3 == 1
            let bounds = box(i, reach: reach, leaves: leaves)
            let direction = rng.next(in: 0.0...(2 * Double.pi))
            let v = o.speed * h * rng.next(in: 0.5...1.0) * (leaves ? 2 : 1)
            let linear = kind != .qr
            let motion = Motion(box: bounds, velocity: Point(x: v * cos(direction), y: v * sin(direction)),
                                angle0: linear ? rng.next(in: -10.0...10.0) : rng.next(in: 0.0...360.0),
                                angularVelocity: o.rotationSpeed * rng.next(in: -1.0...1.0) * (linear ? 0.5 : 1),
                                rockRange: linear ? -15...15 : nil,
                                scalePhase: rng.next(in: 0.0...(2 * Double.pi)), scalePeriod: rng.next(in: 3.0...6.0),
                                schedule: schedule(i), reach: reach)
            paths.append(Path(code: c, motion: motion))
        }
        self.paths = paths

        // Photo cards: the same motion model (cells after the codes'), rocking within ±15° like 1D codes.
        var cardRng = SeededRandom(seed: SeededRandom.mix(o.seed, 0xCA4D))
        var cards: [Card] = []
        for (k, photo) in photos.enumerated() {
            let i = o.codeCount + k
            let pw = Double(photo.image.width), ph = Double(photo.image.height)
            let scale = min(o.photoSize * h / ph, 0.9 * w / pw)
            var shrunk = photo
            shrunk.image = CardRenderer.downscaled(photo.image, maxHeight: max(1, Int((ph * scale * (1 + o.scaleChange)).rounded(.up))))
            let shrink = Double(photo.image.height) / Double(shrunk.image.height)
            let reach = 0.5 * (pw * pw + ph * ph).squareRoot() * scale * (1 + o.scaleChange)
            let leaves = o.enterLeave && i % 3 == 1
            let direction = cardRng.next(in: 0.0...(2 * Double.pi))
            let v = o.speed * h * cardRng.next(in: 0.5...1.0) * (leaves ? 2 : 1)
            let motion = Motion(box: box(i, reach: reach, leaves: leaves),
                                velocity: Point(x: v * cos(direction), y: v * sin(direction)),
                                angle0: cardRng.next(in: -10.0...10.0),
                                angularVelocity: o.rotationSpeed * cardRng.next(in: -1.0...1.0) * 0.5, rockRange: -15...15,
                                scalePhase: cardRng.next(in: 0.0...(2 * Double.pi)),
                                scalePeriod: cardRng.next(in: 3.0...6.0), schedule: schedule(i), reach: reach)
            cards.append(Card(photo: shrunk, scale: scale * shrink, motion: motion))
        }
        self.cards = cards

        // Motion blur: one scene render per ~2 px of the fastest motion across the exposure, 2...16.
        if o.exposure > 0 {
            var fastest = camera.maxSpeed
            for m in paths.map(\.motion) + cards.map(\.motion) {
                let v = (m.velocity.x * m.velocity.x + m.velocity.y * m.velocity.y).squareRoot()
                fastest = max(fastest, camera.maxSpeed + v + abs(m.angularVelocity) * Double.pi / 180 * m.reach
                              + o.scaleChange * 2 * Double.pi / m.scalePeriod * m.reach)
            }
            if o.occluders > 0 { fastest = max(fastest, camera.maxSpeed + (w + 0.16 * h) / 5) }
            subsamples = min(16, max(2, Int((fastest * o.exposure / 2).rounded(.up))))
        } else {
            subsamples = 1
        }
        renderer = CodeRenderer(samplesPerAxis: subsamples >= 4 ? 2 : 4)
    }

    /// Number of codes.
    public var codeCount: Int { paths.count }

    /// Each code's payload and symbology, in code order.
    public var codes: [(payload: [UInt8], symbology: String)] { paths.map { ($0.code.payload, $0.code.symbology) } }

    /// Each photo card's payload (nil: no code) and symbology, in card order (truth index `codeCount + k`).
    public var photoCards: [(payload: [UInt8]?, symbology: String)] { cards.map { ($0.photo.payload, $0.photo.symbology) } }

    /// The camera's displacement of the whole scene at frame `index`, pixels.
    public func cameraOffset(frame index: Int) -> Point { camera.offset(atTime: Double(index) / options.fps) }

    /// The frame at `index` and the truth of every code at least partly visible on it. With an
    /// exposure the image averages `subsamples` renders across it; the truth is the scene at the
    /// frame's own instant `index / fps`, the middle of the exposure.
    public func frame(at index: Int) -> (image: LumaPlane, truth: [CodeClipTruth]) {
        let t = Double(index) / options.fps
        let now = layout(t)
        var image: LumaPlane
        if subsamples <= 1 {
            image = draw(now)
        } else {
            let n = subsamples
            var sum = [UInt16](repeating: 0, count: options.width * options.height)
            for k in 0..<n {
                let instant = draw(layout(t + options.exposure * ((Double(k) + 0.5) / Double(n) - 0.5)))
                sum.withUnsafeMutableBufferPointer { s in
                    instant.pixels.withUnsafeBufferPointer { p in
                        for i in s.indices { s[i] &+= UInt16(p[i]) }
                    }
                }
            }
            var pixels = [UInt8](repeating: 0, count: sum.count)
            let half = UInt16(n / 2), count = UInt16(n)
            sum.withUnsafeBufferPointer { s in
                pixels.withUnsafeMutableBufferPointer { p in
                    for i in s.indices { p[i] = UInt8(truncatingIfNeeded: (s[i] + half) / count) }
                }
            }
            image = LumaPlane(width: options.width, height: options.height, pixels: pixels)
        }
        if options.blurRadius > 0 { boxBlur(&image, radius: options.blurRadius) }
        if options.noise > 0 { addNoise(&image, frame: index) }

        let frame = Rect(x: 0, y: 0, width: Double(options.width), height: Double(options.height))
        var truth: [CodeClipTruth] = []
        for (k, d) in now.shown.enumerated() {
            let payload: [UInt8], symbology: String
            if let card = d.card {
                guard let p = cards[card.index].photo.payload else { continue }
                (payload, symbology) = (p, cards[card.index].photo.symbology)
            } else {
                (payload, symbology) = (paths[d.index].code.payload, paths[d.index].code.symbology)
            }
            let covers = now.shown[(k + 1)...].map(\.cover)
            var visible = 0, total = 0
            for j in 0...6 {
                for i in 0...6 {
                    let p = d.quad.anchorPoint(u: Double(i) / 6, v: Double(j) / 6)
                    total += 1
                    let inFrame = p.x >= 0 && p.y >= 0 && p.x < frame.maxX && p.y < frame.maxY
                    if inFrame && !covers.contains(where: { $0.contains(p) })
                        && !now.bars.contains(where: { p.x >= $0.minX && p.x < $0.maxX && p.y >= $0.minY && p.y < $0.maxY }) {
                        visible += 1
                    }
                }
            }
            guard visible > 0 else { continue }
            truth.append(CodeClipTruth(index: d.index, payload: payload, symbology: symbology, quad: d.quad,
                                       visibleFraction: Double(visible) / Double(total),
                                       outline: d.card == nil ? .exact : .card))
        }
        truth.sort { $0.index < $1.index }
        return (image, truth)
    }

    /// The frame's truth as a line of the arexport JSON schema: id = code number + 1, state
    /// `detected` for a wholly visible code and `tracked` for a partly hidden one.
    public func truthRecord(frame index: Int, truth: [CodeClipTruth], ptsNanoseconds: UInt64?) -> FrameRecord {
        FrameRecord(frame: UInt64(index), ptsNanoseconds: ptsNanoseconds, width: options.width, height: options.height,
                    objects: truth.map {
                        ObjectRecord(id: UInt64($0.index + 1), symbology: $0.symbology, payload: $0.payload, quad: $0.quad,
                                     state: $0.visibleFraction >= 1 ? .detected : .tracked)
                    })
    }

    /// `truthRecord` as one JSON line (no newline), each photo card's object carrying an extra
    /// `"outline":"card"` after `state` (its quad holds the code rather than outlining it); readers
    /// of the arexport schema ignore the key.
    public func truthLine(frame index: Int, truth: [CodeClipTruth], ptsNanoseconds: UInt64?) -> String {
        let record = truthRecord(frame: index, truth: truth, ptsNanoseconds: ptsNanoseconds)
        guard truth.contains(where: { $0.outline == .card }) else { return record.jsonLine() }
        var single = record
        single.objects = []
        let prefix = String(single.jsonLine().dropLast(2))  // ... "objects":[
        var objects: [String] = []
        for (object, t) in zip(record.objects, truth) {
            single.objects = [object]
            var json = String(single.jsonLine().dropFirst(prefix.count).dropLast(2))  // {"id":...}
            if t.outline == .card { json = String(json.dropLast()) + ",\"outline\":\"card\"}" }
            objects.append(json)
        }
        return prefix + objects.joined(separator: ",") + "]}"
    }

    // MARK: Scene at one instant

    /// What is where at `t` seconds: things drawn (cards, then codes), occluder bars, camera offset.
    private func layout(_ t: Double) -> (shown: [Shown], bars: [Rect], offset: Point) {
        let offset = camera.offset(atTime: t)
        var shown: [Shown] = []
        for (k, card) in cards.enumerated() where isShown(card.motion, t) {
            let center = self.center(card.motion, t) + offset
            let scale = card.scale * scaleFactor(card.motion, t), angle = self.angle(card.motion, t)
            let quad = CardRenderer.quad(width: card.photo.image.width, height: card.photo.image.height, center: center,
                                         scale: scale, rotationDegrees: angle)
            shown.append(Shown(index: paths.count + k, card: (k, center, scale, angle), placement: nil, quad: quad, cover: quad))
        }
        for (i, path) in paths.enumerated() where isShown(path.motion, t) {
            var p = placement(path, t)
            p.center = p.center + offset
            guard let quad = try? CodeRenderer.symbolQuad(of: path.code.matrix, placement: p),
                  let quiet = try? CodeRenderer.quietZoneQuad(of: path.code.matrix, placement: p) else { continue }
            shown.append(Shown(index: i, card: nil, placement: p, quad: quad, cover: quiet))
        }
        let bars = occluderRects(t).map { Rect(x: $0.x + offset.x, y: $0.y + offset.y, width: $0.width, height: $0.height) }
        return (shown, bars, offset)
    }

    /// The scene image (no blur, no noise) for a layout.
    private func draw(_ scene: (shown: [Shown], bars: [Rect], offset: Point)) -> LumaPlane {
        var image = margin == 0 ? background : shiftedBackground(scene.offset)
        for d in scene.shown {
            if let card = d.card {
                CardRenderer.render(cards[card.index].photo.image, center: card.center, scale: card.scale,
                                    rotationDegrees: card.angle, into: &image)
            } else if let p = d.placement {
                _ = try? renderer.render(paths[d.index].code.matrix, placement: p, into: &image)
            }
        }
        for bar in scene.bars { fill(&image, bar, level: 70) }
        return image
    }

    /// The frame-sized window of the (larger) background seen with the scene displaced by `offset`,
    /// bilinear.
    private func shiftedBackground(_ offset: Point) -> LumaPlane {
        let w = options.width, h = options.height, bw = background.width, bh = background.height
        let sx = Double(margin) - offset.x, sy = Double(margin) - offset.y
        let ix = Int(sx.rounded(.down)), iy = Int(sy.rounded(.down))
        let fx = Int(((sx - Double(ix)) * 256).rounded()), fy = Int(((sy - Double(iy)) * 256).rounded())
        let w00 = (256 - fx) * (256 - fy), w10 = fx * (256 - fy), w01 = (256 - fx) * fy, w11 = fx * fy
        var out = [UInt8](repeating: 0, count: w * h)
        // Columns whose two source pixels both lie inside the background: no clamping needed.
        let xa = max(0, -ix), xb = min(w, bw - 1 - ix)
        background.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let r0 = min(bh - 1, max(0, iy + y)) * bw, r1 = min(bh - 1, max(0, iy + y + 1)) * bw
                    let row = y * w
                    func blend(_ x: Int, _ c0: Int, _ c1: Int) {
                        let v = Int(src[r0 + c0]) * w00 + Int(src[r0 + c1]) * w10 + Int(src[r1 + c0]) * w01
                            + Int(src[r1 + c1]) * w11
                        dst[row + x] = UInt8(truncatingIfNeeded: (v + 32768) >> 16)
                    }
                    for x in 0..<min(w, xa) { blend(x, min(bw - 1, max(0, ix + x)), min(bw - 1, max(0, ix + x + 1))) }
                    if xa < xb {
                        let a0 = src.baseAddress! + r0 + ix, a1 = src.baseAddress! + r1 + ix
                        let d = dst.baseAddress! + row
                        for x in xa..<xb {
                            let v = Int(a0[x]) &* w00 &+ Int(a0[x + 1]) &* w10 &+ Int(a1[x]) &* w01 &+ Int(a1[x + 1]) &* w11
                            d[x] = UInt8(truncatingIfNeeded: (v &+ 32768) >> 16)
                        }
                    }
                    for x in max(xa, xb)..<w { blend(x, min(bw - 1, max(0, ix + x)), min(bw - 1, max(0, ix + x + 1))) }
                }
            }
        }
        return LumaPlane(width: w, height: h, pixels: out)
    }

    private func isShown(_ m: Motion, _ t: Double) -> Bool {
        guard let s = m.schedule else { return true }
        var phase = (t - s.onset).truncatingRemainder(dividingBy: s.period)
        if phase < 0 { phase += s.period }
        return !(t < s.onset || phase >= s.shown)
    }

    private func scaleFactor(_ m: Motion, _ t: Double) -> Double {
        1 + options.scaleChange * sin(2 * Double.pi * t / m.scalePeriod + m.scalePhase)
    }

    private func center(_ m: Motion, _ t: Double) -> Point {
        Point(x: SyntheticScene.bounce(m.box.center.x, m.velocity.x, t, m.box.minX...m.box.maxX),
              y: SyntheticScene.bounce(m.box.center.y, m.velocity.y, t, m.box.minY...m.box.maxY))
    }

    private func angle(_ m: Motion, _ t: Double) -> Double {
        if let r = m.rockRange { return SyntheticScene.bounce(m.angle0, m.angularVelocity, t, r) }
        return m.angle0 + m.angularVelocity * t
    }

    private func placement(_ path: Path, _ t: Double) -> CodePlacement {
        var p = path.code.placement
        let s = scaleFactor(path.motion, t)
        p.moduleSize *= s
        p.barHeight *= s
        p.center = center(path.motion, t)
        p.rotationDegrees = angle(path.motion, t)
        return p
    }

    /// Vertical bars sweeping left to right, each once every 5 s, frame pixels.
    private func occluderRects(_ t: Double) -> [Rect] {
        let w = Double(options.width), h = Double(options.height)
        let barWidth = 0.08 * h
        return (0..<options.occluders).map { k in
            let period = 5.0, offset = Double(k) * period / Double(max(1, options.occluders))
            let phase = ((t + offset).truncatingRemainder(dividingBy: period)) / period
            let x = -barWidth + phase * (w + 2 * barWidth)
            let top = k % 2 == 0 ? 0 : h * 0.3
            return Rect(x: x, y: top, width: barWidth, height: h * 0.7)
        }
    }

    private func fill(_ image: inout LumaPlane, _ rect: Rect, level: UInt8) {
        let x0 = max(0, Int(rect.minX.rounded())), x1 = min(image.width, Int(rect.maxX.rounded()))
        let y0 = max(0, Int(rect.minY.rounded())), y1 = min(image.height, Int(rect.maxY.rounded()))
        guard x0 < x1, y0 < y1 else { return }
        for y in y0..<y1 { for x in x0..<x1 { image[x, y] = level } }
    }

    private func addNoise(_ image: inout LumaPlane, frame: Int) {
        var rng = SeededRandom(seed: SeededRandom.mix(options.seed, UInt64(frame) &+ 0x5EED))
        let a = options.noise, span = UInt64(2 * a + 1)
        image.pixels.withUnsafeMutableBufferPointer { px in
            var i = 0
            while i < px.count {
                // One draw gives noise for 8 pixels.
                var bits = rng.next()
                for k in 0..<8 where i + k < px.count {
                    px[i + k] = UInt8(clamping: Int(px[i + k]) + Int((bits & 0xFF) % span) - a)
                    bits >>= 8
                }
                i += 8
            }
        }
    }

    private func boxBlur(_ image: inout LumaPlane, radius r: Int) {
        let w = image.width, h = image.height, s = image.width, n = 2 * r + 1
        var tmp = [UInt8](repeating: 0, count: s * h)
        image.pixels.withUnsafeMutableBufferPointer { px in
            tmp.withUnsafeMutableBufferPointer { t in
                for y in 0..<h {
                    let row = y * s
                    for x in 0..<w {
                        var sum = 0
                        for d in -r...r { sum += Int(px[row + min(w - 1, max(0, x + d))]) }
                        t[row + x] = UInt8(sum / n)
                    }
                }
                for y in 0..<h {
                    for x in 0..<w {
                        var sum = 0
                        for d in -r...r { sum += Int(t[min(h - 1, max(0, y + d)) * s + x]) }
                        px[y * s + x] = UInt8(sum / n)
                    }
                }
            }
        }
    }
}
