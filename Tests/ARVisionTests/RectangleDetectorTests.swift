import ARCodeGen
import ARCore
import ARVision
import XCTest

/// Scenes for the rectangle tests: a rendered, framed picture in perspective on a painted wall.
enum PosterFixture {
    static let width = 320, height = 240
    static let picture = PosterScene.picture(width: 160, height: 120, seed: 3)
    static let wall = PosterScene.wall(width: width, height: height, seed: 3)

    /// The frame at `time` (0…1) of the move, and where the poster's corners are.
    static func frame(_ time: Double, tilt: Double = 45) -> (plane: LumaPlane, quad: Quad) {
        let quad = PosterScene.quad(time: time, frameWidth: width, frameHeight: height, posterWidth: 120, posterHeight: 90,
                                    maxTiltDegrees: tilt)
        let image = PosterScene.compose(picture, onto: wall, at: quad).luma()
        return (LumaPlane(width: width, height: height, pixels: image.pixels), quad)
    }

    static func plane(_ gray: LumaPlane) -> LumaPlane { LumaPlane(width: gray.width, height: gray.height, pixels: gray.pixels) }
}

final class RectangleDetectorTests: XCTestCase {
    /// Found alone on every frame of a turn to 45°; upright, its corners within 1.5 % of its size.
    /// Turned, a side is sometimes taken on the inner edge of the picture's frame: the median error
    /// stays within 4 % (following from the first frame holds 2 %: `PlanarTargetTests`).
    func testAPosterOnATexturedWallIsFoundWithItsCorners() {
        var errors: [Double] = []
        for time in [0.0, 0.1, 0.2, 0.3, 0.4, 0.5] {
            let (plane, truth) = PosterFixture.frame(time)
            let found = RectangleDetector().detect(plane)
            XCTAssertEqual(found.count, 1, "t=\(time): \(found)")
            guard let c = found.first else { continue }
            errors.append(c.quad.maxCornerDistance(to: truth) / truth.meanSide)
            XCTAssertGreaterThan(c.confidence, 0.9)
        }
        XCTAssertLessThanOrEqual(errors.first ?? 1, 0.015, "upright")
        XCTAssertLessThanOrEqual(errors.sorted()[errors.count / 2], 0.04, "corner errors (fraction of the size): \(errors)")
    }

    /// A framed picture at 640 × 480 is searched on the half-size level, where its frame's outline
    /// and inner edge are 6 px apart: the outline is found, not the inner edge, nor a quad with
    /// sides on both (each as confident alone as the outline). Turned, a single search still
    /// takes a corner on the inner edge on some frames; following holds the first outline
    /// (`arbench rect`: median 0.3 %, p95 1.5 % at 640 × 480).
    func testAFramedPictureIsFoundByItsOutlineNotItsFramesInnerEdge() {
        for seed: UInt64 in 0..<6 {
            let wall = PosterScene.wall(width: 640, height: 480, seed: seed)
            let picture = PosterScene.picture(width: 320, height: 240, seed: seed)
            for time in [0.0] {
                let truth = PosterScene.quad(time: time, frameWidth: 640, frameHeight: 480, posterWidth: 240, posterHeight: 180)
                let plane = PosterFixture.plane(PosterScene.compose(picture, onto: wall, at: truth).luma())
                let found = RectangleDetector().detect(LumaPyramid(plane, levelCount: 3))
                XCTAssertEqual(found.count, 1, "seed \(seed), t=\(time)")
                guard let c = found.first else { continue }
                let error = c.quad.maxCornerDistance(to: truth) / truth.meanSide
                XCTAssertLessThanOrEqual(error, 0.02, "seed \(seed), t=\(time): \(c.quad.corners) for \(truth.corners)")
            }
        }
    }

    func testAPlainWallHasNoRectangles() {
        var wall = try! LumaPlane(validatingWidth: 320, height: 240, fill: 0)
        for y in 0..<240 { for x in 0..<320 { wall.pixels[y * 320 + x] = UInt8(140 + (x + y) / 40 + (x * 7 + y * 13) % 5) } }
        XCTAssertEqual(RectangleDetector().detect(PosterFixture.plane(wall)), [])
    }

    func testATexturedBackgroundHasNoRectangles() {
        for seed: UInt64 in 1...4 {
            let found = RectangleDetector().detect(PosterFixture.plane(TexturedBackground.image(width: 320, height: 240, seed: seed)))
            XCTAssertEqual(found, [], "seed \(seed)")
        }
    }

    func testABarcodeAloneIsNotARectangle() throws {
        // A QR code on its white label over the wall: a clean quadrilateral, but two-tone inside.
        var image = TexturedBackground.image(width: 320, height: 240, seed: 3)
        let matrix = try CodeMatrix.qr(text: "NOT A POSTER")
        _ = try CodeRenderer().render(matrix, placement: CodePlacement(center: Point(x: 160, y: 120), moduleSize: 5, rotationDegrees: 10),
                                      into: &image)
        XCTAssertEqual(RectangleDetector().detect(PosterFixture.plane(image)), [])
    }

    func testOptionsBoundSizeAndAspect() {
        let (plane, _) = PosterFixture.frame(0)
        var o = RectangleOptions()
        o.minSize = 0.6
        XCTAssertEqual(RectangleDetector(options: o).detect(plane), [], "90 px is under 0.6 of 240")
        o = RectangleOptions()
        o.maxAspect = 0.6
        XCTAssertEqual(RectangleDetector(options: o).detect(plane), [], "a 4:3 poster has aspect 0.75")
        o.maxAspect = 0.8
        XCTAssertEqual(RectangleDetector(options: o).detect(plane).count, 1)
        o = RectangleOptions()
        o.quadratureTolerance = 0
        XCTAssertEqual(RectangleDetector(options: o).detect(PosterFixture.frame(0.3).plane), [], "turned 30°, its corners are not square")
    }
}

final class PlanarTargetTests: XCTestCase {
    /// Followed from its first frame's corners alone, through a sideways drift and a turn to 45°
    /// and back: the median corner error stays within 2 % of the poster's size.
    func testAPosterIsFollowedByItsTextureThroughA45DegreeTilt() {
        let frames = 40
        var (plane, truth) = PosterFixture.frame(0)
        var previous = LumaPyramid(plane, levelCount: 4)
        guard var target = PlanarTarget(quad: truth, pyramid: previous) else { return XCTFail("no texture to follow") }
        var errors: [Double] = []
        for i in 1...frames {
            (plane, truth) = PosterFixture.frame(Double(i) / Double(frames))
            let next = LumaPyramid(plane, levelCount: 4)
            XCTAssertTrue(target.track(from: previous, to: next), "frame \(i)")
            errors.append(zip(target.quad.corners, truth.corners).map { $0.distance(to: $1) }.max()! / truth.meanSide)
            previous = next
        }
        let median = errors.sorted()[errors.count / 2]
        XCTAssertLessThanOrEqual(median, 0.02, "errors \(errors)")
    }
}
