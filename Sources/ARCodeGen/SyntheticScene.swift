import ARCore
import Foundation

/// Ground truth for one code in one frame: the bytes, zbar's symbology name and the exact symbol
/// outline (frame pixels, clockwise from the code's own top-left, quiet zone excluded).
public typealias SceneTruth = (payload: [UInt8], symbology: String, quad: Quad)

/// A deterministic clip of moving codes over a textured gray background.
///
/// Every frame is a pure function of (scene, time): no state, no system randomness. The
/// background (mid-gray plus mild low-frequency shading and fixed fine grain, all from `seed`) is
/// computed once; optional per-frame noise is seeded from `seed` and the frame time. Each code's
/// quiet zone stays inside its bounds (and the frame) at all times.
public struct SyntheticScene: Sendable {
    /// Frame width, pixels.
    public let width: Int
    /// Frame height, pixels.
    public let height: Int
    /// The moving codes, drawn in this order.
    public let codes: [SceneCode]
    /// Seed of all pseudo-randomness (background texture, per-frame noise).
    public let seed: UInt64
    /// Per-frame noise: each pixel gets a uniform offset in −noiseAmplitude...noiseAmplitude gray
    /// levels (0 = none, 0...64).
    public let noiseAmplitude: Int
    /// How codes are drawn.
    public let renderer: CodeRenderer

    private let background: LumaPlane
    private let plans: [Motion]

    /// Per-code closed-form motion, precomputed.
    private struct Motion: Sendable {
        var xRange: ClosedRange<Double>, yRange: ClosedRange<Double>
        var start: Point
    }

    /// A scene of `width × height` pixels (1...8192 each). `backgroundLevel`: mean gray level of the
    /// background (0...255); `textureAmplitude`: peak deviation of its shading, gray levels (0...64);
    /// `noiseAmplitude`: see the property. Throws `.invalidScene` for bad sizes or motion values,
    /// `.invalidPlacement` / `.perspectiveTooStrong` for a bad start placement, `.codeDoesNotFit`
    /// when a code at its largest scale cannot fit in its bounds.
    public init(width: Int, height: Int, codes: [SceneCode], seed: UInt64 = 1, backgroundLevel: UInt8 = 128,
                textureAmplitude: Double = 10, noiseAmplitude: Int = 0,
                renderer: CodeRenderer = CodeRenderer()) throws {
        guard (1...8192).contains(width), (1...8192).contains(height) else {
            throw CodeGenError.invalidScene("frame size \(width)x\(height) is outside 1...8192")
        }
        guard textureAmplitude.isFinite, (0...64).contains(textureAmplitude) else {
            throw CodeGenError.invalidScene("texture amplitude \(textureAmplitude) is outside 0...64")
        }
        guard (0...64).contains(noiseAmplitude) else {
            throw CodeGenError.invalidScene("noise amplitude \(noiseAmplitude) is outside 0...64")
        }
        let frame = Rect(x: 0, y: 0, width: Double(width), height: Double(height))
        var plans: [Motion] = []
        for (index, code) in codes.enumerated() {
            plans.append(try Self.plan(code, index: index, frame: frame))
        }
        self.init(width: width, height: height, codes: codes, seed: seed, noiseAmplitude: noiseAmplitude,
                  renderer: renderer, plans: plans,
                  background: Self.texture(width: width, height: height, seed: seed, level: backgroundLevel,
                                           amplitude: textureAmplitude))
    }

    private init(width: Int, height: Int, codes: [SceneCode], seed: UInt64, noiseAmplitude: Int,
                 renderer: CodeRenderer, plans: [Motion], background: LumaPlane) {
        self.width = width
        self.height = height
        self.codes = codes
        self.seed = seed
        self.noiseAmplitude = noiseAmplitude
        self.renderer = renderer
        self.plans = plans
        self.background = background
    }

    // MARK: Frames

    /// The frame at `index` for a clip at `fps` frames per second, i.e. at time index / fps seconds
    /// (a non-positive or non-finite fps renders time 0).
    public func frame(at index: Int, fps: Double) -> (image: LumaPlane, truth: [SceneTruth]) {
        frame(atTime: fps.isFinite && fps > 0 ? Double(index) / fps : 0)
    }

    /// The frame at `seconds` since the start of the clip (non-finite is treated as 0).
    public func frame(atTime seconds: Double) -> (image: LumaPlane, truth: [SceneTruth]) {
        let t = seconds.isFinite ? seconds : 0
        var image = background
        var truth: [SceneTruth] = []
        for (code, placement) in zip(codes, placements(atTime: t)) {
            // Cannot throw: start placements were validated and validity is scale/rotation invariant.
            guard let quad = try? renderer.render(code.matrix, placement: placement, into: &image) else { continue }
            truth.append((payload: code.payload, symbology: code.symbology, quad: quad))
        }
        if noiseAmplitude > 0 {
            var rng = SeededRandom(seed: SeededRandom.mix(seed, t.bitPattern))
            let span = UInt64(2 * noiseAmplitude + 1)
            image.pixels.withUnsafeMutableBufferPointer { px in
                for i in px.indices {
                    let v = Int(px[i]) + Int(rng.next() % span) - noiseAmplitude
                    px[i] = UInt8(clamping: v)
                }
            }
        }
        return (image, truth)
    }

    /// Each code's placement at `seconds` since the start (same order as `codes`).
    public func placements(atTime seconds: Double) -> [CodePlacement] {
        let t = seconds.isFinite ? seconds : 0
        return zip(codes, plans).map { code, plan in
            var p = code.placement
            let s = Self.scale(code, t)
            p.moduleSize *= s
            p.barHeight *= s
            p.rotationDegrees = Self.angle(code, t)
            p.center = Point(x: Self.bounce(plan.start.x, code.velocity.x, t, plan.xRange),
                             y: Self.bounce(plan.start.y, code.velocity.y, t, plan.yRange))
            return p
        }
    }

    // MARK: Demo

    /// A demo scene (seed 1, mild noise) with four slowly moving codes, each in its own quarter of
    /// the frame: QR "https://shop.example/p/1001" (top-left, slight keystone, rocking ±10°),
    /// QR "HELLO ARBARCODE" (top-right, spinning 8°/s, breathing ±10 %), EAN-13 "4006381333931"
    /// (bottom-left, rocking ±8°) and Code 128 "ARB-128-DEMO" (bottom-right, rocking ±5°).
    /// Sizes scale with min(width/640, height/480): at 640×480 QR modules are 4 px, EAN-13 2 px,
    /// Code 128 1.5 px. Sizes below 1 are treated as 1.
    public static func demo(width: Int = 640, height: Int = 480) -> SyntheticScene {
        let w = min(8192, max(1, width)), h = min(8192, max(1, height))
        let fw = Double(w), fh = Double(h)
        let s = min(fw / 640, fh / 480)
        let quarters = [Rect(x: 0, y: 0, width: fw / 2, height: fh / 2),
                        Rect(x: fw / 2, y: 0, width: fw / 2, height: fh / 2),
                        Rect(x: 0, y: fh / 2, width: fw / 2, height: fh / 2),
                        Rect(x: fw / 2, y: fh / 2, width: fw / 2, height: fh / 2)]
        func v(_ x: Double, _ y: Double) -> Point { Point(x: x * s, y: y * s) }
        do {
            let codes = [
                try SceneCode.qr("https://shop.example/p/1001",
                                 placement: CodePlacement(center: quarters[0].center, moduleSize: 4 * s, perspective: 0.06),
                                 velocity: v(14, 9), angularVelocity: 4, rotationRange: -10...10, bounds: quarters[0]),
                try SceneCode.qr("HELLO ARBARCODE",
                                 placement: CodePlacement(center: quarters[1].center, moduleSize: 4 * s),
                                 velocity: v(-11, 7), angularVelocity: 8, scaleRate: 0.04, scaleRange: 0.9...1.1,
                                 bounds: quarters[1]),
                try SceneCode.ean13("4006381333931",
                                    placement: CodePlacement(center: quarters[2].center, moduleSize: 2 * s, barHeight: 50 * s),
                                    velocity: v(9, -6), angularVelocity: 3, rotationRange: -8...8, bounds: quarters[2]),
                try SceneCode.code128("ARB-128-DEMO",
                                      placement: CodePlacement(center: quarters[3].center, moduleSize: 1.5 * s, barHeight: 50 * s),
                                      velocity: v(-7, -5), angularVelocity: 2, rotationRange: -5...5, bounds: quarters[3]),
            ]
            return try SyntheticScene(width: w, height: h, codes: codes, seed: 1, noiseAmplitude: 2)
        } catch {
            // Unreachable with the proportional layout above; fall back to an empty scene.
            return SyntheticScene(width: w, height: h, codes: [], seed: 1, noiseAmplitude: 2, renderer: CodeRenderer(),
                                  plans: [], background: texture(width: w, height: h, seed: 1, level: 128, amplitude: 10))
        }
    }

    // MARK: Motion

    /// Triangle wave: starts at `x0` (clamped into `range`), moves at `v` per second, reflects at the ends.
    static func bounce(_ x0: Double, _ v: Double, _ t: Double, _ range: ClosedRange<Double>) -> Double {
        let lo = range.lowerBound, span = range.upperBound - range.lowerBound
        let start = min(max(x0, lo), range.upperBound)
        guard span > 0 else { return lo }
        let period = 2 * span
        var m = ((start - lo) + v * t).truncatingRemainder(dividingBy: period)
        if m < 0 { m += period }
        return lo + (m <= span ? m : period - m)
    }

    private static func scale(_ code: SceneCode, _ t: Double) -> Double {
        let one = min(max(1, code.scaleRange.lowerBound), code.scaleRange.upperBound)
        return code.scaleRate == 0 ? one : bounce(one, code.scaleRate, t, code.scaleRange)
    }

    private static func angle(_ code: SceneCode, _ t: Double) -> Double {
        let a0 = code.placement.rotationDegrees
        guard let range = code.rotationRange else { return a0 + code.angularVelocity * t }
        return bounce(a0, code.angularVelocity, t, range)
    }

    private static func plan(_ code: SceneCode, index: Int, frame: Rect) throws -> Motion {
        let values = [code.velocity.x, code.velocity.y, code.angularVelocity, code.scaleRate,
                      code.scaleRange.lowerBound, code.scaleRange.upperBound,
                      code.rotationRange?.lowerBound ?? 0, code.rotationRange?.upperBound ?? 0]
        guard values.allSatisfy({ $0.isFinite }) else {
            throw CodeGenError.invalidScene("code \(index): non-finite motion value")
        }
        guard code.scaleRange.lowerBound > 0 else {
            throw CodeGenError.invalidScene("code \(index): scale range \(code.scaleRange) must be positive")
        }
        _ = try CodeProjection(matrix: code.matrix, placement: code.placement)
        // Largest reachable scale; the outline's shape is scale invariant, so scale the local corners.
        let sMax = code.scaleRate == 0 ? scale(code, 0) : code.scaleRange.upperBound
        var p = code.placement
        p.center = Point(x: 0, y: 0)
        p.rotationDegrees = 0
        p.moduleSize *= sMax
        p.barHeight *= sMax
        let corners = try CodeProjection(matrix: code.matrix, placement: p).quietZoneQuad.corners
        // Reachable rotation interval, radians (nil = every angle).
        let interval: ClosedRange<Double>?
        if let r = code.rotationRange {
            interval = code.angularVelocity == 0 ? angle(code, 0)...angle(code, 0) : r
        } else {
            interval = code.angularVelocity == 0 ? code.placement.rotationDegrees...code.placement.rotationDegrees : nil
        }
        var ex = 0.0, ey = 0.0
        for c in corners {
            let radius = (c.x * c.x + c.y * c.y).squareRoot(), phase = atan2(c.y, c.x)
            guard let interval else { ex = max(ex, radius); ey = max(ey, radius); continue }
            let a = interval.lowerBound * Double.pi / 180, b = interval.upperBound * Double.pi / 180
            // x(θ) = R cos(θ + φ), y(θ) = R cos(θ + φ − π/2).
            ex = max(ex, maxAbsCos(radius, a + phase, b + phase))
            ey = max(ey, maxAbsCos(radius, a + phase - Double.pi / 2, b + phase - Double.pi / 2))
        }
        ex += 0.5; ey += 0.5  // rounding slack
        let box = (code.bounds ?? frame).intersection(frame)
        guard box.minX + ex <= box.maxX - ex, box.minY + ey <= box.maxY - ey else {
            throw CodeGenError.codeDoesNotFit(index: index)
        }
        return Motion(xRange: (box.minX + ex)...(box.maxX - ex), yRange: (box.minY + ey)...(box.maxY - ey),
                      start: code.placement.center)
    }

    /// max |R cos α| for α in [a, b].
    private static func maxAbsCos(_ radius: Double, _ a: Double, _ b: Double) -> Double {
        if b - a >= Double.pi || (a / Double.pi).rounded(.up) <= (b / Double.pi).rounded(.down) { return radius }
        return max(abs(radius * cos(a)), abs(radius * cos(b)))
    }

    // MARK: Background

    private static func texture(width: Int, height: Int, seed: UInt64, level: UInt8, amplitude: Double) -> LumaPlane {
        var rng = SeededRandom(seed: SeededRandom.mix(seed, 0xBAC6_0000))
        // Three gentle plane waves (periods 80...400 px) plus fixed fine grain.
        var waves: [(fx: Double, fy: Double, phase: Double, weight: Double)] = []
        for weight in [0.5, 0.3, 0.2] {
            let period = rng.next(in: 80.0...400.0), dir = rng.next(in: 0.0...(2 * Double.pi))
            waves.append((2 * Double.pi * cos(dir) / period, 2 * Double.pi * sin(dir) / period,
                          rng.next(in: 0.0...(2 * Double.pi)), weight))
        }
        let grain = Int(amplitude / 3)
        var pixels = [UInt8](repeating: level, count: width * height)
        pixels.withUnsafeMutableBufferPointer { px in
            for y in 0..<height {
                for x in 0..<width {
                    var v = 0.0
                    for w in waves { v += w.weight * sin(w.fx * Double(x) + w.fy * Double(y) + w.phase) }
                    var g = Double(level) + amplitude * v
                    if grain > 0 { g += Double(rng.next(in: -grain...grain)) }
                    px[y * width + x] = UInt8(clamping: Int(g.rounded()))
                }
            }
        }
        return LumaPlane(width: width, height: height, pixels: pixels)
    }
}
