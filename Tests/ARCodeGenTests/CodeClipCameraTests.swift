import ARCore
import XCTest
@testable import ARCodeGen

/// Camera conditions of `CodeClip`: shake, pan, exposure (motion blur) and the textured background.
final class CodeClipCameraTests: XCTestCase {
    /// One still QR code, no noise: any change comes from the option under test.
    private var still: CodeClipOptions {
        CodeClipOptions(width: 320, height: 240, seed: 4, codeCount: 1, kinds: [.qr], codeSize: 0.3, speed: 0,
                        rotationSpeed: 0, scaleChange: 0, perspective: 0, enterLeave: false, twins: false, noise: 0)
    }

    /// Centroid of the dark modules (pixels below 60: only code modules are that dark here), weighted by darkness.
    private func darkCentroid(_ image: LumaPlane) -> Point {
        var sx = 0.0, sy = 0.0, sw = 0.0
        for y in 0..<image.height {
            for x in 0..<image.width where image[x, y] < 60 {
                let w = Double(60 - Int(image[x, y]))
                sx += w * (Double(x) + 0.5); sy += w * (Double(y) + 0.5); sw += w
            }
        }
        return Point(x: sx / sw, y: sy / sw)
    }

    /// Sum of squared differences between horizontal and vertical neighbours: edge energy.
    private func edgeEnergy(_ image: LumaPlane) -> Double {
        var e = 0.0
        for y in 0..<(image.height - 1) {
            for x in 0..<(image.width - 1) {
                let v = Double(image[x, y])
                let dx = Double(image[x + 1, y]) - v, dy = Double(image[x, y + 1]) - v
                e += dx * dx + dy * dy
            }
        }
        return e
    }

    func testShakeMovesTheTruthAndThePixelsTogether() throws {
        var shaken = still
        shaken.shake = 12
        let a = try CodeClip(still), b = try CodeClip(shaken)
        var moved = 0
        for index in [5, 20, 40] {
            let offset = b.cameraOffset(frame: index)
            let fa = a.frame(at: index), fb = b.frame(at: index)
            let qa = try XCTUnwrap(fa.truth.first?.quad), qb = try XCTUnwrap(fb.truth.first?.quad)
            for (p, q) in zip(qa.corners, qb.corners) {
                XCTAssertEqual(q.x, p.x + offset.x, accuracy: 1e-9)
                XCTAssertEqual(q.y, p.y + offset.y, accuracy: 1e-9)
            }
            let ca = darkCentroid(fa.image), cb = darkCentroid(fb.image)
            XCTAssertEqual(cb.x - ca.x, offset.x, accuracy: 0.3, "frame \(index)")
            XCTAssertEqual(cb.y - ca.y, offset.y, accuracy: 0.3, "frame \(index)")
            XCTAssertLessThanOrEqual(max(abs(offset.x), abs(offset.y)), 12)
            if offset.distance(to: Point(x: 0, y: 0)) > 2 { moved += 1 }
        }
        XCTAssertGreaterThanOrEqual(moved, 2, "the shake should move the scene by more than 2 px on most frames")
    }

    func testShakeWandersBetweenFramesAndIsTheSameForTheSameSeed() throws {
        var o = still
        o.shake = 10
        let a = try CodeClip(o), b = try CodeClip(o)
        let offsets = (0..<30).map { a.cameraOffset(frame: $0) }
        XCTAssertEqual(offsets, (0..<30).map { b.cameraOffset(frame: $0) })
        XCTAssertGreaterThan(Set(offsets.map { "\($0.x),\($0.y)" }).count, 25)
    }

    func testPanMovesTheBackgroundWithTheCodes() throws {
        var o = still
        o.codeCount = 0
        o.pan = 90
        o.background = .texture
        let clip = try CodeClip(o)
        let a = clip.frame(at: 0).image, b = clip.frame(at: 10).image
        let shift = clip.cameraOffset(frame: 10) - clip.cameraOffset(frame: 0)
        XCTAssertGreaterThan(shift.distance(to: Point(x: 0, y: 0)), 20)
        // Frame 10 is frame 0 moved by the pan: compare with and without undoing the shift (bilinear).
        func sample(_ x: Double, _ y: Double) -> Double {
            let ix = Int(x.rounded(.down)), iy = Int(y.rounded(.down)), fx = x - Double(ix), fy = y - Double(iy)
            return (Double(a[ix, iy]) * (1 - fx) + Double(a[ix + 1, iy]) * fx) * (1 - fy)
                + (Double(a[ix, iy + 1]) * (1 - fx) + Double(a[ix + 1, iy + 1]) * fx) * fy
        }
        var aligned = 0.0, unaligned = 0.0, n = 0.0
        for y in 40..<200 {
            for x in 80..<240 {
                aligned += abs(Double(b[x, y]) - sample(Double(x) - shift.x, Double(y) - shift.y))
                unaligned += abs(Double(b[x, y]) - Double(a[x, y]))
                n += 1
            }
        }
        XCTAssertLessThan(aligned / n, 4, "unaligned \(unaligned / n)")
        XCTAssertGreaterThan(unaligned, 3 * aligned)
    }

    func testExposureBlursAMovingCodeAndKeepsItsTruthAtTheFrameInstant() throws {
        var moving = still
        moving.speed = 1  // a frame height (240 px) per second
        var exposed = moving
        exposed.exposure = 0.03
        let sharp = try CodeClip(moving), blurred = try CodeClip(exposed)
        XCTAssertGreaterThanOrEqual(blurred.subsamples, 3)
        let a = sharp.frame(at: 12), b = blurred.frame(at: 12)
        XCTAssertEqual(a.truth, b.truth)
        XCTAssertLessThan(edgeEnergy(b.image), 0.75 * edgeEnergy(a.image))
    }

    func testExposureLeavesAStillSceneUnchanged() throws {
        var exposed = still
        exposed.exposure = 0.05
        let clip = try CodeClip(exposed)
        XCTAssertGreaterThanOrEqual(clip.subsamples, 2)
        XCTAssertEqual(clip.frame(at: 9).image, try CodeClip(still).frame(at: 9).image)
    }

    func testTextureBackgroundDiffersFromPlainAndLeavesTheTruthAlone() throws {
        var textured = still
        textured.background = .texture
        let plain = try CodeClip(still).frame(at: 3), busy = try CodeClip(textured).frame(at: 3)
        XCTAssertEqual(plain.truth, busy.truth)
        XCTAssertTrue(plain.image != busy.image, "the texture should change the pixels")
        // Sharp strokes: far more edge energy than the gently shaded plain background.
        XCTAssertGreaterThan(edgeEnergy(busy.image), 1.5 * edgeEnergy(plain.image))
    }

    func testCameraOptionsOutOfRangeThrow() {
        var o = still
        o.exposure = 1
        XCTAssertThrowsError(try CodeClip(o))
        o = still
        o.shake = -1
        XCTAssertThrowsError(try CodeClip(o))
    }
}
