import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

final class DeblurPassTests: XCTestCase {
    /// 16 rows of bars 3 to 12 px wide (modules of 3 px), the same in every row, on light margins.
    private func barRows() -> LumaPlane {
        var random = SeededRandom(seed: 5)
        var row = [UInt8](repeating: 220, count: 60)
        var dark = true
        while row.count < 420 {
            row += [UInt8](repeating: dark ? 30 : 220, count: 3 * (1 + Int(random.next() % 4)))
            dark.toggle()
        }
        row += [UInt8](repeating: 220, count: 60)
        var plane = LumaPlane(width: row.count, height: 16)
        plane.pixels = Array((0..<16).map { _ in row }.joined())
        return plane
    }

    func testTheBlurLengthIsMeasuredFromTheRowsSpectrum() throws {
        // Boxes of 7 to 23 px across 3 px modules (2.3 to 7.7 modules): a box also dips at the
        // first zeros of a half and a third of it, so the search starts near its edges' ramp.
        for radius in 3...11 {
            var plane = barRows()
            plane.blurRows(radius: radius)
            let length = try XCTUnwrap(plane.measuredBlurLength(modulePixels: 3))
            // Within a pixel but for the 19 px box (17.1 px).
            XCTAssertEqual(length, Double(2 * radius + 1), accuracy: 0.11 * Double(2 * radius + 1), "box of \(2 * radius + 1) px")
        }
    }

    func testDeblurringUndoesTheBlurAcrossTheBars() {
        let sharp = barRows()
        var blurred = sharp
        blurred.blurRows(radius: 4)
        func wrong(_ plane: LumaPlane) -> Int {
            var b = plane
            b.binarizeRows()
            return zip(b.pixels, sharp.pixels).filter { ($0 < 128) != ($1 < 128) }.count
        }
        var deblurred = blurred
        deblurred.deblurRows(length: 9, noise: 0.01)
        // Binarized as is, the blurred bars lose their narrow ones; deblurred, few pixels differ.
        XCTAssertGreaterThan(wrong(blurred), sharp.pixels.count / 20)
        XCTAssertLessThan(wrong(deblurred), sharp.pixels.count / 100)
    }

    func testOnlyStripsWithSoftEdgesAreDeblurred() {
        var sharp = barRows()
        let before = sharp.pixels
        // Sharp bars ramp over a pixel: left as they are.
        XCTAssertFalse(sharp.deblur(modulePixels: 3))
        XCTAssertEqual(sharp.pixels, before)
        var blurred = barRows()
        blurred.blurRows(radius: 4)
        XCTAssertGreaterThanOrEqual(blurred.rowEdgeRamp() ?? 0, RegionDecoder.deblurRamp * 3)
        XCTAssertTrue(blurred.deblur(modulePixels: 3))
    }

    func testLengthsBeyondTheRowAreRefusedNotTrapped() {
        var narrow = LumaPlane(width: 16, height: 4)
        narrow.pixels = (0..<64).map { UInt8($0 % 16 < 8 ? 30 : 220) }
        let before = narrow.pixels
        // Lengths whose first zero lies below the transform's first bin, and a box longer than the row.
        XCTAssertNil(narrow.rowBlurLength(shortest: 70, longest: 80))
        narrow.deblurRows(length: 100, noise: 0.01)
        XCTAssertEqual(narrow.pixels, before)
    }

    func testTheTransformRoundTrips() {
        var re = (0..<64).map { Double(($0 * 37) % 11) }, im = [Double](repeating: 0, count: 64)
        let original = re
        FourierPlan(count: 64).transform(&re, &im, inverse: false)
        // Each bin as the discrete Fourier transform's sum gives it.
        for k in [0, 1, 5, 31, 32, 63] {
            let angle = { (x: Int) in -2 * Double.pi * Double(k * x) / 64 }
            XCTAssertEqual(re[k], original.indices.map { original[$0] * cos(angle($0)) }.reduce(0, +), accuracy: 1e-9, "bin \(k)")
            XCTAssertEqual(im[k], original.indices.map { original[$0] * sin(angle($0)) }.reduce(0, +), accuracy: 1e-9, "bin \(k)")
        }
        // The inverse, unscaled, gives back 64 times the input.
        FourierPlan(count: 64).transform(&re, &im, inverse: true)
        for (a, b) in zip(re, original) { XCTAssertEqual(a / 64, b, accuracy: 1e-9) }
        for v in im { XCTAssertEqual(v / 64, 0, accuracy: 1e-9) }
    }

    /// A Code 128 moving 7 px (2.3 modules) across its bars during the exposure: no other pass
    /// reads it. (Blur also widens the localizer's measured modules: 4 px here; the deblurred pass
    /// runs on the finest scale.)
    private func blurredCode() throws -> DetectScene {
        var scene = try DetectScene(width: 800, height: 200)
        try scene.add(CodeMatrix.code128("ARCODE-417"), x: 400, y: 100, module: 3, barHeight: 90)
        scene.image.blurRows(radius: 3)
        return scene
    }

    func testACodeBlurredByMotionAcrossItsBarsIsReadDeblurred() throws {
        let found = try blurredCode().detect(try BarcodeDetector(options: DetectorOptions(locate: .regions)))
        XCTAssertEqual(found.map(\.text), ["ARCODE-417"])
        XCTAssertGreaterThanOrEqual(found.first?.quality ?? 0, 2, "confirmed by several bands")
    }

    func testWithoutDeblurTheSameCodeIsNotRead() throws {
        var options = DetectorOptions(locate: .regions)
        options.deblur = false
        XCTAssertEqual(try blurredCode().detect(try BarcodeDetector(options: options)).map(\.text), [])
    }
}
