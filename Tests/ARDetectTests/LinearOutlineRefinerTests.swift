import ARCodeGen
import ARCore
import XCTest
@testable import ARDetect

final class LinearOutlineRefinerTests: XCTestCase {
    /// A 1D code drawn on a textured background at `placement`, and its exact outline.
    private func frame(_ matrix: CodeMatrix, _ placement: CodePlacement) throws -> (LumaPlane, Quad) {
        var image = try SyntheticScene(width: 400, height: 300, codes: [], seed: 5).frame(atTime: 0).image
        let quad = try CodeRenderer().render(matrix, placement: placement, into: &image)
        return (LumaPlane(width: 400, height: 300, pixels: image.pixels), quad)
    }

    /// The rectangle a detector reports from a few scan lines: right axis and length, a third of
    /// the height, corners averaged (so keystone is lost).
    private func roughOutline(_ q: Quad) -> Quad {
        let c = q.center
        let u = ((q.topRight - q.topLeft) + (q.bottomRight - q.bottomLeft)) * 0.5
        let h = ((q.bottomLeft - q.topLeft) + (q.bottomRight - q.topRight)) * (0.5 / 3)
        return Quad(topLeft: c - u * 0.5 - h * 0.5, topRight: c + u * 0.5 - h * 0.5,
                    bottomRight: c + u * 0.5 + h * 0.5, bottomLeft: c - u * 0.5 + h * 0.5)
    }

    func testAKeystonedCode128WithFineBarsIsFittedToASubPixel() throws {
        let placement = CodePlacement(center: Point(x: 200, y: 150), moduleSize: 1.3, rotationDegrees: -12,
                                      barHeight: 70, perspective: 0.1)
        let (plane, truth) = try frame(try CodeMatrix.code128("C128-7-3"), placement)
        let fitted = try XCTUnwrap(LinearOutlineRefiner().refine(roughOutline(truth), in: plane))
        XCTAssertLessThan(fitted.maxCornerDistance(to: truth), 0.6)
    }

    func testABottomWideEAN13IsFittedToASubPixel() throws {
        let placement = CodePlacement(center: Point(x: 190, y: 160), moduleSize: 2, rotationDegrees: 8,
                                      barHeight: 60, perspective: -0.08)
        let (plane, truth) = try frame(try CodeMatrix.ean13("4006381333931"), placement)
        let fitted = try XCTUnwrap(LinearOutlineRefiner().refine(roughOutline(truth), in: plane))
        XCTAssertLessThan(fitted.maxCornerDistance(to: truth), 0.6)
    }

    func testNoCodeGivesNoFit() throws {
        let blank = try SyntheticScene(width: 400, height: 300, codes: [], seed: 5).frame(atTime: 0).image
        let plane = LumaPlane(width: 400, height: 300, pixels: blank.pixels)
        let q = Quad(Rect(x: 100, y: 120, width: 180, height: 20))
        XCTAssertNil(LinearOutlineRefiner().refine(q, in: plane))
    }

    func testACodeClippedByTheFrameBorderGetsNoFit() throws {
        // The first bars lie left of the frame: a fit would end at the border, short of the code.
        let placement = CodePlacement(center: Point(x: 70, y: 150), moduleSize: 2, rotationDegrees: 0, barHeight: 60)
        let (plane, truth) = try frame(try CodeMatrix.ean13("4006381333931"), placement)
        XCTAssertLessThan(truth.topLeft.x, 0)
        XCTAssertNil(LinearOutlineRefiner().refine(roughOutline(truth), in: plane))
    }
}
