import ARCodeGen
import ARCore
import XCTest
@testable import ARVision

final class AppearanceTests: XCTestCase {
    /// A textured scene with a QR code at `placement`, as a pyramid, and the code's quad.
    private func scene(_ placement: CodePlacement, cover: ((inout LumaPlane, Quad) -> Void)? = nil) throws -> (LumaPyramid, Quad) {
        var image = try SyntheticScene(width: 320, height: 240, codes: [], seed: 4).frame(atTime: 0).image
        let quad = try CodeRenderer().render(try CodeMatrix.qr(text: "LOOK"), placement: placement, into: &image)
        cover?(&image, quad)
        return (LumaPyramid(LumaPlane(width: 320, height: 240, pixels: image.pixels), levelCount: 4), quad)
    }

    private let here = CodePlacement(center: Point(x: 150, y: 120), moduleSize: 3, rotationDegrees: 10)

    func testTheSameCodeMovedAndBlurredStillMatches() throws {
        let (a, qa) = try scene(here)
        let (b, qb) = try scene(CodePlacement(center: Point(x: 163.5, y: 111.25), moduleSize: 3.2, rotationDegrees: 16))
        let look = try XCTUnwrap(Appearance(a, quad: qa))
        XCTAssertTrue(try XCTUnwrap(Appearance(b, quad: qb)).matches(look))
        // Blurred over 5 px (a box along the rows): still the code.
        var blurred = b.levels[0].pixels
        let w = 320
        for y in 0..<240 { for x in 2..<(w - 2) {
            blurred[y * w + x] = UInt8((x - 2...x + 2).map { Int(b.levels[0].pixels[y * w + $0]) }.reduce(0, +) / 5)
        } }
        let pb = LumaPyramid(LumaPlane(width: w, height: 240, pixels: blurred), levelCount: 4)
        XCTAssertTrue(try XCTUnwrap(Appearance(pb, quad: qb)).matches(look))
    }

    func testAFlatOrTexturedCoverDoesNotMatch() throws {
        let (a, qa) = try scene(here)
        let look = try XCTUnwrap(Appearance(a, quad: qa))
        // A hand: a flat patch over the code.
        let (flat, _) = try scene(here) { image, quad in
            let box = quad.boundingBox
            for y in Int(box.minY) - 4...Int(box.maxY) + 4 { for x in Int(box.minX) - 4...Int(box.maxX) + 4 { image[x, y] = 150 } }
        }
        XCTAssertFalse(try XCTUnwrap(Appearance(flat, quad: qa)).matches(look))
        // A box with print on it: another QR code over this one.
        let (other, _) = try scene(here) { image, _ in
            _ = try? CodeRenderer().render(try! CodeMatrix.qr(text: "SOMETHING ELSE ENTIRELY"),
                                           placement: CodePlacement(center: Point(x: 150, y: 120), moduleSize: 3.4, rotationDegrees: 55),
                                           into: &image)
        }
        XCTAssertFalse(try XCTUnwrap(Appearance(other, quad: qa)).matches(look))
    }

    func testAQuadMostlyOutsideTheFrameHasNoLook() throws {
        let (a, qa) = try scene(here)
        XCTAssertNil(Appearance(a, quad: qa.translated(dx: 300, dy: 0)))
        XCTAssertNotNil(Appearance(a, quad: qa.translated(dx: 10, dy: 0)))
    }

    func testATrackThatDriftedByLessThanASampleStillSeesItsCode() throws {
        // Between decodes the flow may leave a track a few pixels off its code: a sixteenth of the
        // code's side (one sample) must not make it look covered.
        let (a, qa) = try scene(here)
        let look = try XCTUnwrap(Appearance(a, quad: qa))
        let shift = qa.meanSide / 18
        for (dx, dy) in [(shift, 0.0), (0.0, -shift), (-shift, shift)] {
            let drifted = try XCTUnwrap(Appearance(a, quad: qa.translated(dx: dx, dy: dy)))
            XCTAssertTrue(drifted.matches(look), "drifted by (\(dx), \(dy)) px: similarity \(drifted.similarity(to: look))")
        }
    }
}
