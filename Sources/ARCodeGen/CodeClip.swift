import ARCore
import Foundation

/// The symbologies a `CodeClip` draws.
public enum CodeClipKind: String, CaseIterable, Hashable, Sendable {
    case qr, ean13, code128
}

/// What a `CodeClip` shows and how its codes move. Sizes and speeds are relative to the frame
/// height, so one set of options gives the same clip at any resolution.
public struct CodeClipOptions: Hashable, Sendable {
    /// Frame size, pixels (16...8192).
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

    /// Defaults: 1280×720 at 30 fps, seed 1, 10 codes (QR, EAN-13, Code 128 in turn), codes 17 % of
    /// the frame height, up to 0.12 heights/s and 20°/s, ±10 % scale, keystone up to 0.1, no
    /// occluders, codes entering and leaving, one pair of twins, noise ±2, no blur.
    public init(width: Int = 1280, height: Int = 720, fps: Double = 30, seed: UInt64 = 1, codeCount: Int = 10,
                kinds: [CodeClipKind] = [.qr, .ean13, .code128], codeSize: Double = 0.17, speed: Double = 0.12,
                rotationSpeed: Double = 20, scaleChange: Double = 0.1, perspective: Double = 0.1, occluders: Int = 0,
                enterLeave: Bool = true, twins: Bool = true, noise: Int = 2, blurRadius: Int = 0) {
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
    }
}

/// Ground truth of one code on one frame.
public struct CodeClipTruth: Hashable, Sendable {
    /// The code's number in the clip, from 0 (twins have different numbers).
    public var index: Int
    public var payload: [UInt8]
    /// zbar's symbology name ("QR-Code", "EAN-13", "CODE-128").
    public var symbology: String
    /// Exact symbol outline (quiet zone excluded), frame pixels, clockwise from the code's own top-left.
    public var quad: Quad
    /// Share of the symbol inside the frame and not hidden by an occluder or a code drawn over it, 0...1.
    public var visibleFraction: Double
}

/// A deterministic clip of moving codes (any number, QR / EAN-13 / Code 128) with rotation, scale
/// change, keystone, occlusion, codes entering and leaving, noise and blur: the input of the
/// tracker's tests and benchmarks. Every frame is a pure function of (options, frame index).
public struct CodeClip: Sendable {
    public let options: CodeClipOptions

    private struct Path: Sendable {
        var code: SceneCode
        var box: Rect
        var velocity: Point
        var angle0: Double, angularVelocity: Double, rockRange: ClosedRange<Double>?
        var scalePhase: Double, scalePeriod: Double
        /// Shown only while `(t - onset) mod period < shown`; nil = always.
        var schedule: (onset: Double, period: Double, shown: Double)?
    }

    private let paths: [Path]
    private let background: GrayImage
    private let renderer = CodeRenderer()

    /// Throws `CodeGenError.invalidScene` for options out of range.
    public init(_ options: CodeClipOptions) throws {
        let o = options
        guard (16...8192).contains(o.width), (16...8192).contains(o.height) else {
            throw CodeGenError.invalidScene("frame size \(o.width)x\(o.height) is outside 16...8192")
        }
        guard o.fps.isFinite, o.fps > 0, (0...64).contains(o.codeCount), !o.kinds.isEmpty,
              o.codeSize > 0.02, o.codeSize <= 0.6, (0...0.5).contains(o.scaleChange), (0...0.3).contains(o.perspective),
              (0...8).contains(o.occluders), (0...64).contains(o.noise), (0...4).contains(o.blurRadius),
              o.speed.isFinite, o.speed >= 0, o.rotationSpeed.isFinite
        else { throw CodeGenError.invalidScene("clip options out of range: \(o)") }
        self.options = o
        background = try SyntheticScene(width: o.width, height: o.height, codes: [], seed: o.seed).frame(atTime: 0).image
        var rng = SeededRandom(seed: SeededRandom.mix(o.seed, 0xC0DE))
        let w = Double(o.width), h = Double(o.height)
        // A grid of home cells, about as many as codes, each code bouncing around its own cell.
        let columns = max(1, Int((Double(o.codeCount) * w / h).squareRoot().rounded(.up)))
        let rows = max(1, (o.codeCount + columns - 1) / columns)
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
            let cell = Rect(x: Double(i % columns) * w / Double(columns), y: Double(i / columns) * h / Double(rows),
                            width: w / Double(columns), height: h / Double(rows))
            var box = cell.insetBy(cell.width * 0.25)
            let reach = side * (kind == .qr ? 0.8 : 1.1) * (1 + o.scaleChange)
            let leaves = o.enterLeave && i % 3 == 1
            // Keep the quiet zone inside the frame, except for codes that leave through an edge.
            let frame = Rect(x: reach, y: reach, width: max(0, w - 2 * reach), height: max(0, h - 2 * reach))
            box = box.intersection(frame).isEmpty ? Rect(x: cell.center.x, y: cell.center.y, width: 0, height: 0)
                : box.intersection(frame)
            if leaves {
                // Stretch the box past the nearest vertical edge by a code and a half.
                if cell.center.x < w / 2 { box = Rect(x: -reach * 1.5, y: box.y, width: box.maxX + reach * 1.5, height: box.height) }
                else { box = Rect(x: box.x, y: box.y, width: w + reach * 1.5 - box.x, height: box.height) }
            }
            let direction = rng.next(in: 0.0...(2 * Double.pi))
            let v = o.speed * h * rng.next(in: 0.5...1.0) * (leaves ? 2 : 1)
            let linear = kind != .qr
            let schedule: (Double, Double, Double)? = o.enterLeave && i % 3 == 2
                ? (0.3 + Double(i) * 0.37, 6.0, 4.0) : nil
            paths.append(Path(code: c, box: box, velocity: Point(x: v * cos(direction), y: v * sin(direction)),
                              angle0: linear ? rng.next(in: -10.0...10.0) : rng.next(in: 0.0...360.0),
                              angularVelocity: o.rotationSpeed * rng.next(in: -1.0...1.0) * (linear ? 0.5 : 1),
                              rockRange: linear ? -15...15 : nil,
                              scalePhase: rng.next(in: 0.0...(2 * Double.pi)), scalePeriod: rng.next(in: 3.0...6.0),
                              schedule: schedule))
        }
        self.paths = paths
    }

    /// Number of codes.
    public var codeCount: Int { paths.count }

    /// Each code's payload and symbology, in code order.
    public var codes: [(payload: [UInt8], symbology: String)] { paths.map { ($0.code.payload, $0.code.symbology) } }

    /// The frame at `index` and the truth of every code at least partly visible on it.
    public func frame(at index: Int) -> (image: GrayImage, truth: [CodeClipTruth]) {
        let t = Double(index) / options.fps
        var image = background
        var drawn: [(index: Int, code: SceneCode, quad: Quad, quiet: Quad)] = []
        for (i, path) in paths.enumerated() {
            if let s = path.schedule {
                var phase = (t - s.onset).truncatingRemainder(dividingBy: s.period)
                if phase < 0 { phase += s.period }
                if t < s.onset || phase >= s.shown { continue }
            }
            let p = placement(path, t)
            guard let quad = try? renderer.render(path.code.matrix, placement: p, into: &image),
                  let quiet = try? CodeRenderer.quietZoneQuad(of: path.code.matrix, placement: p) else { continue }
            drawn.append((i, path.code, quad, quiet))
        }
        let bars = occluderRects(t)
        for bar in bars { fill(&image, bar, level: 70) }
        if options.blurRadius > 0 { boxBlur(&image, radius: options.blurRadius) }
        if options.noise > 0 { addNoise(&image, frame: index) }

        let frame = Rect(x: 0, y: 0, width: Double(options.width), height: Double(options.height))
        var truth: [CodeClipTruth] = []
        for (k, d) in drawn.enumerated() {
            let covers = drawn[(k + 1)...].map(\.quiet)
            var visible = 0, total = 0
            for j in 0...6 {
                for i in 0...6 {
                    let p = d.quad.anchorPoint(u: Double(i) / 6, v: Double(j) / 6)
                    total += 1
                    let inFrame = p.x >= 0 && p.y >= 0 && p.x < frame.maxX && p.y < frame.maxY
                    if inFrame && !covers.contains(where: { $0.contains(p) })
                        && !bars.contains(where: { p.x >= $0.minX && p.x < $0.maxX && p.y >= $0.minY && p.y < $0.maxY }) {
                        visible += 1
                    }
                }
            }
            guard visible > 0 else { continue }
            truth.append(CodeClipTruth(index: d.index, payload: d.code.payload, symbology: d.code.symbology, quad: d.quad,
                                       visibleFraction: Double(visible) / Double(total)))
        }
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

    private func placement(_ path: Path, _ t: Double) -> CodePlacement {
        var p = path.code.placement
        let s = 1 + options.scaleChange * sin(2 * Double.pi * t / path.scalePeriod + path.scalePhase)
        p.moduleSize *= s
        p.barHeight *= s
        p.center = Point(x: SyntheticScene.bounce(path.box.center.x, path.velocity.x, t, path.box.minX...path.box.maxX),
                         y: SyntheticScene.bounce(path.box.center.y, path.velocity.y, t, path.box.minY...path.box.maxY))
        if let r = path.rockRange {
            p.rotationDegrees = SyntheticScene.bounce(path.angle0, path.angularVelocity, t, r)
        } else {
            p.rotationDegrees = path.angle0 + path.angularVelocity * t
        }
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

    private func fill(_ image: inout GrayImage, _ rect: Rect, level: UInt8) {
        let x0 = max(0, Int(rect.minX.rounded())), x1 = min(image.width, Int(rect.maxX.rounded()))
        let y0 = max(0, Int(rect.minY.rounded())), y1 = min(image.height, Int(rect.maxY.rounded()))
        guard x0 < x1, y0 < y1 else { return }
        for y in y0..<y1 { for x in x0..<x1 { image[x, y] = level } }
    }

    private func addNoise(_ image: inout GrayImage, frame: Int) {
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

    private func boxBlur(_ image: inout GrayImage, radius r: Int) {
        let w = image.width, h = image.height, s = image.stride, n = 2 * r + 1
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
