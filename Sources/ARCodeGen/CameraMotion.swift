import ARCore
import Foundation

/// How a hand-held camera moves the whole scene (background, codes, cards, occluders): a slow pan
/// plus hand shake. A closed-form function of time (no state), so any instant can be rendered on its
/// own.
///
/// - Shake: per axis, a smooth random wander (value noise with knots 1 s, 0.5 s and 0.25 s apart,
///   weights 0.45, 0.3, 0.1) plus jitter (knots 1/15 s apart, weight 0.15); each axis stays within
///   ±`shakePixels`.
/// - Pan: along a direction within ±20° of horizontal (side and angle from the seed), at
///   `panPixelsPerSecond`, back and forth over ±`panReach` pixels (a triangle wave starting at 0).
public struct CameraMotion: Hashable, Sendable {
    /// Shake amplitude, pixels (each axis within ± this).
    public let shakePixels: Double
    /// Pan speed, pixels per second.
    public let panPixelsPerSecond: Double
    /// How far the pan goes either way before it turns back, pixels.
    public let panReach: Double
    /// Seed of the shake and of the pan's direction.
    public let seed: UInt64
    private let panDirection: Point

    /// Value-noise octaves of the shake: knot spacing (seconds) and weight (weights sum to 1).
    private static let octaves: [(spacing: Double, weight: Double)] = [(1, 0.45), (0.5, 0.3), (0.25, 0.1), (1.0 / 15, 0.15)]

    /// A camera; `shakePixels` and `panPixelsPerSecond` ≥ 0 (0 = off), `panReach` ≥ 0 pixels.
    public init(shakePixels: Double, panPixelsPerSecond: Double, panReach: Double, seed: UInt64) {
        self.shakePixels = max(0, shakePixels)
        self.panPixelsPerSecond = max(0, panPixelsPerSecond)
        self.panReach = max(0, panReach)
        self.seed = seed
        var rng = SeededRandom(seed: SeededRandom.mix(seed, 0xCA3E_4A00))
        let angle = rng.next(in: -20.0...20.0) * Double.pi / 180 + (rng.next(in: 0...1) == 0 ? 0 : Double.pi)
        panDirection = Point(x: cos(angle), y: sin(angle))
    }

    /// Whether the camera moves at all.
    public var isStill: Bool { shakePixels == 0 && (panPixelsPerSecond == 0 || panReach == 0) }

    /// Largest distance of the scene from its rest position on either axis, pixels.
    public var reach: Double { shakePixels + panReach }

    /// Upper bound of the scene's speed, pixels per second (for motion-blur sampling).
    public var maxSpeed: Double {
        // Smoothstep interpolation: slope at most 1.5 × (knot difference ≤ 2) / spacing per unit amplitude.
        let shake = Self.octaves.reduce(0.0) { $0 + $1.weight * 3 / $1.spacing } * shakePixels
        return shake * 2.0.squareRoot() + panPixelsPerSecond
    }

    /// Displacement of the whole scene at `seconds` since the start, pixels (x right, y down).
    public func offset(atTime seconds: Double) -> Point {
        guard !isStill else { return Point(x: 0, y: 0) }
        let t = seconds.isFinite ? seconds : 0
        var x = 0.0, y = 0.0
        if panPixelsPerSecond > 0, panReach > 0 {
            let along = SyntheticScene.bounce(0, panPixelsPerSecond, t, -panReach...panReach)
            x += along * panDirection.x
            y += along * panDirection.y
        }
        if shakePixels > 0 {
            var sx = 0.0, sy = 0.0
            for (k, octave) in Self.octaves.enumerated() {
                sx += octave.weight * noise(t / octave.spacing, stream: UInt64(2 * k))
                sy += octave.weight * noise(t / octave.spacing, stream: UInt64(2 * k + 1))
            }
            x += shakePixels * sx
            y += shakePixels * sy
        }
        return Point(x: x, y: y)
    }

    /// Smooth value noise in −1...1 at `u` knots: random knot values, smoothstep in between.
    private func noise(_ u: Double, stream: UInt64) -> Double {
        let i = u.rounded(.down), f = u - i
        let knot = Int64(i)
        func value(_ n: Int64) -> Double {
            var rng = SeededRandom(seed: SeededRandom.mix(SeededRandom.mix(seed, 0x5A4E_0000 &+ stream), UInt64(bitPattern: n)))
            return rng.next(in: -1.0...1.0)
        }
        let s = f * f * (3 - 2 * f)
        return value(knot) * (1 - s) + value(knot + 1) * s
    }
}
