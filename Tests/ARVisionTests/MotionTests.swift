import ARCodeGen
import ARCore
import XCTest
@testable import ARVision

final class MotionTests: XCTestCase {
    /// A QR code drawn on a textured background at `placement`, as a pyramid, and its exact quad.
    private func frame(_ placement: CodePlacement) throws -> (LumaPyramid, Quad) {
        var image = try SyntheticScene(width: 320, height: 240, codes: [], seed: 4).frame(atTime: 0).image
        let quad = try CodeRenderer().render(try CodeMatrix.qr(text: "MOTION"), placement: placement, into: &image)
        let plane = try XCTUnwrap(LumaPlane(width: 320, height: 240, pixels: image.pixels))
        return (LumaPyramid(plane, levelCount: 4), quad)
    }

    func testMotionOfAMovingTurningCodeIsMeasuredToASubPixel() throws {
        let (a, qa) = try frame(CodePlacement(center: Point(x: 150, y: 120), moduleSize: 3, rotationDegrees: 10))
        let (b, qb) = try frame(CodePlacement(center: Point(x: 161.5, y: 114.25), moduleSize: 3.1, rotationDegrees: 14))
        let m = try XCTUnwrap(QuadMotionEstimator().estimate(qa, from: a, to: b))
        XCTAssertLessThan(m.transform.apply(qa).maxCornerDistance(to: qb), 0.6)
        XCTAssertGreaterThanOrEqual(m.inliers, 8)
    }

    func testLargeMotionIsFollowedWithAGuess() throws {
        let (a, qa) = try frame(CodePlacement(center: Point(x: 110, y: 120), moduleSize: 3))
        let (b, qb) = try frame(CodePlacement(center: Point(x: 175, y: 130), moduleSize: 3))
        let guess = Homography(matrix: [1, 0, 60, 0, 1, 8, 0, 0, 1])
        let m = try XCTUnwrap(QuadMotionEstimator().estimate(qa, from: a, to: b, predicted: guess))
        XCTAssertLessThan(m.transform.apply(qa).maxCornerDistance(to: qb), 0.6)
    }

    func testACodeThatVanishedGivesNoMotion() throws {
        let (a, qa) = try frame(CodePlacement(center: Point(x: 150, y: 120), moduleSize: 3))
        let blank = try SyntheticScene(width: 320, height: 240, codes: [], seed: 4).frame(atTime: 0).image
        let b = LumaPyramid(try XCTUnwrap(LumaPlane(width: 320, height: 240, pixels: blank.pixels)), levelCount: 4)
        XCTAssertNil(QuadMotionEstimator().estimate(qa, from: a, to: b))
    }

    func testRobustFitIgnoresOutliers() throws {
        let truth = try XCTUnwrap(Homography(matrix: [0.99, -0.1, 5, 0.1, 0.99, -3, 0, 0, 1]))
        let src = (0..<20).map { Point(x: Double($0 % 5) * 10, y: Double($0 / 5) * 10) }
        var dst = src.map { truth.apply($0) }
        dst[3] = Point(x: 500, y: 500)
        dst[11] = Point(x: -40, y: 7)
        let fit = try XCTUnwrap(MotionFit.robust(from: src, to: dst))
        XCTAssertEqual(fit.inliers.count, 18)
        XCTAssertLessThan(fit.motion.apply(Point(x: 100, y: 100)).distance(to: truth.apply(Point(x: 100, y: 100))), 1e-6)
    }

    func testHalvingAveragesTwoByTwoBlocks() throws {
        let plane = try XCTUnwrap(LumaPlane(width: 4, height: 2, pixels: [0, 4, 8, 8, 4, 0, 8, 8]))
        XCTAssertEqual(plane.halved().pixels, [2, 8])
    }
}
