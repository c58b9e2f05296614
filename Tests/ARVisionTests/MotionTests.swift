import ARCodeGen
import ARCore
import XCTest
@testable import ARVision

final class MotionTests: XCTestCase {
    /// A QR code drawn on a textured background at `placement`, as a pyramid, and its exact quad.
    private func frame(_ placement: CodePlacement) throws -> (LumaPyramid, Quad) {
        var image = try SyntheticScene(width: 320, height: 240, codes: [], seed: 4).frame(atTime: 0).image
        let quad = try CodeRenderer().render(try CodeMatrix.qr(text: "MOTION"), placement: placement, into: &image)
        let plane = LumaPlane(width: 320, height: 240, pixels: image.pixels)
        return (LumaPyramid(plane, levelCount: 4), quad)
    }

    func testMotionOfAMovingTurningCodeIsMeasuredToASubPixel() throws {
        let (a, qa) = try frame(CodePlacement(center: Point(x: 150, y: 120), moduleSize: 3, rotationDegrees: 10))
        let (b, qb) = try frame(CodePlacement(center: Point(x: 161.5, y: 114.25), moduleSize: 3.1, rotationDegrees: 14))
        let m = try XCTUnwrap(QuadMotionEstimator().estimate(qa, from: a, to: b))
        XCTAssertLessThan(m.transform.apply(qa).maxCornerDistance(to: qb), 0.6)
        XCTAssertGreaterThanOrEqual(m.inliers, 8)
    }

    func testACode128MovingAlongItsBarsIsMeasured() throws {
        // Points on straight bars see no motion along them; the bar ends along the top and bottom edges do.
        func code128(_ placement: CodePlacement) throws -> (LumaPyramid, Quad) {
            var image = try LumaPlane(validatingWidth: 320, height: 240, fill: 200)
            let quad = try CodeRenderer().render(try CodeMatrix.code128("ALONG-128"), placement: placement, into: &image)
            return (LumaPyramid(LumaPlane(width: 320, height: 240, pixels: image.pixels), levelCount: 4), quad)
        }
        let (a, qa) = try code128(CodePlacement(center: Point(x: 160, y: 110), moduleSize: 1.5, rotationDegrees: 5, barHeight: 50))
        let (b, qb) = try code128(CodePlacement(center: Point(x: 160.3, y: 113.5), moduleSize: 1.5, rotationDegrees: 5, barHeight: 50))
        let m = try XCTUnwrap(QuadMotionEstimator().estimate(qa, from: a, to: b))
        XCTAssertLessThan(m.transform.apply(qa).maxCornerDistance(to: qb), 1.0)
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
        let b = LumaPyramid(LumaPlane(width: 320, height: 240, pixels: blank.pixels), levelCount: 4)
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
        let plane = LumaPlane(width: 4, height: 2, pixels: [0, 4, 8, 8, 4, 0, 8, 8])
        XCTAssertEqual(plane.halved().pixels, [2, 8])
    }

    func testAPyramidBuiltIntoReusedBuffersEqualsOneBuiltFresh() throws {
        // Odd sizes and a row stride wider than the image exercise the tails of the 4-pixel steps.
        let (w, h, stride) = (203, 117, 211)
        var state: UInt32 = 12345
        let rows: [UInt8] = (0..<(stride * h)).map { _ in state = state &* 1_664_525 &+ 1_013_904_223; return UInt8(state >> 24) }
        let plane = rows.withUnsafeBytes { LumaPlane(copying: $0.baseAddress!, width: w, height: h, stride: stride) }
        let fresh = LumaPyramid(plane, levelCount: 4)
        var spare: LumaPyramid? = LumaPyramid(LumaPlane(width: w, height: h, pixels: .init(repeating: 7, count: w * h)), levelCount: 4)
        let reused = rows.withUnsafeBytes {
            LumaPyramid(copying: $0.baseAddress!, width: w, height: h, stride: stride, levelCount: 4, reusing: &spare)
        }
        XCTAssertNil(spare)
        XCTAssertEqual(reused.levels.count, fresh.levels.count)
        for (a, b) in zip(reused.levels, fresh.levels) {
            XCTAssertEqual(a.width, b.width)
            XCTAssertEqual(a.pixels, b.pixels)
        }
        // The 2×2 mean, rounded, pixel by pixel.
        let l1 = fresh.levels[1]
        for y in 0..<l1.height {
            for x in 0..<l1.width {
                let s = [plane[2 * x, 2 * y], plane[2 * x + 1, 2 * y], plane[2 * x, 2 * y + 1], plane[2 * x + 1, 2 * y + 1]].reduce(0) { $0 + Int($1) }
                XCTAssertEqual(Int(l1[x, y]), (s + 2) / 4)
            }
        }
    }
}
