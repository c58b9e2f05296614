import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

final class StripFusionTests: XCTestCase {
    /// A Code 128 moving 3 px a frame, its contrast cut to 100 grey levels and ±60 levels of noise
    /// on every pixel (different on every frame), with its exact region.
    private func noisyFrames(_ count: Int, noise amplitude: Int = 60, contrast: Int = 100) throws -> [(scene: DetectScene, region: LocatedRegion)] {
        var state: UInt64 = 7
        return try (0..<count).map { frame in
            var scene = try DetectScene(width: 360, height: 160)
            let dx = Double(frame) * 3
            try scene.add(CodeMatrix.code128("FUSED-128"), x: 170 + dx, y: 80, module: 2, barHeight: 60)
            for y in 0..<160 {
                for x in 0..<360 {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    let noise = Int((state >> 33) % UInt64(2 * amplitude + 1)) - amplitude
                    scene.image[x, y] = UInt8(max(0, min(255, 128 + (Int(scene.image[x, y]) - 128) * contrast / 255 + noise)))
                }
            }
            let region = LocatedRegion(kind: .linear, quad: Quad(topLeft: Point(x: 10 + dx, y: 55), topRight: Point(x: 340 + dx, y: 55),
                                                                  bottomRight: Point(x: 340 + dx, y: 105), bottomLeft: Point(x: 10 + dx, y: 105)),
                                       axisDegrees: 0, moduleSize: 2, score: 1, verified: true)
            return (scene, region)
        }
    }

    func testStripsOfSeveralFramesFusedAreReadWhereNoSingleFrameIs() throws {
        let decoder = try RegionDecoder(symbologies: Symbology.allByDefault)
        let options = DetectorOptions(locate: .regions, threads: 1)
        var fusion = StripFusion()
        var single: [Int] = [], fused: [Int] = []
        for (call, f) in try noisyFrames(4).enumerated() {
            f.scene.image.pixels.withUnsafeBytes {
                let luma = LumaImage(base: $0.baseAddress!, width: 360, height: 160, stride: 360)
                single.append(decoder.decode(f.region, in: luma, options: options).map(\.quality).max() ?? 0)
                guard let (strip, placement) = decoder.renderedStrip(f.region, in: luma, scale: 1.5) else { return XCTFail("no strip") }
                guard let pixels = fusion.add(strip.pixels, width: strip.width, rows: strip.height, quad: f.region.quad, scale: 1.5,
                                              call: UInt64(call), keep: 4) else { return fused.append(-1) }
                var image = strip
                image.pixels = pixels
                let codes = decoder.decode(strip: image, placement: placement, region: f.region, in: luma, options: options)
                XCTAssertEqual(Set(codes.map(\.text)).subtracting(["FUSED-128"]), [], "no other reading")
                fused.append(codes.filter { $0.text == "FUSED-128" }.map(\.quality).max() ?? 0)
            }
        }
        XCTAssertTrue(single.allSatisfy { $0 < 2 }, "no single frame confirms the code: \(single)")
        XCTAssertEqual(fused.first, -1, "nothing to fuse on the first frame")
        XCTAssertGreaterThanOrEqual(fused.last ?? 0, 2, "four frames fused confirm it: \(fused)")
    }

    /// The detector fuses the strips of a verified 1D region no pass read (rendered, fused and
    /// decoded on its threads, the fusion updated in region order): each call's result is the same
    /// with one thread or four.
    func testTheDetectorsFusionGivesTheSameResultsOnAnyNumberOfThreads() throws {
        let frames = try noisyFrames(6, noise: 40)
        func results(threads: Int) throws -> [String] {
            var options = DetectorOptions(locate: .regions, threads: threads)
            options.fuseFrames = 4
            let detector = try BarcodeDetector(options: options)
            return frames.map { f in
                let r = f.scene.image.pixels.withUnsafeBytes {
                    detector.scan(LumaImage(base: $0.baseAddress!, width: 360, height: 160, stride: 360))
                }
                return "\(r.codes.map { ($0.text, $0.quality, $0.quad.corners) }) \(r.located.map { ($0.kind, $0.quad.corners) })"
            }
        }
        let one = try results(threads: 1)
        XCTAssertTrue(one.allSatisfy { $0.contains("linear") }, "a verified 1D region left unread (fused) on every call: \(one)")
        XCTAssertEqual(try results(threads: 4), one)
    }

    /// In the whole detector (the localizer's region, the tracker's retried passes): a Code 128 at 60
    /// grey levels of contrast and ±20 of noise is confirmed (read on two lines) on no frame alone,
    /// and on one with fused strips; the fusion runs beside the refining batches on two threads.
    func testTheDetectorConfirmsFromFusedStripsACodeNoFrameConfirmsAlone() throws {
        let frames = try noisyFrames(6, noise: 20, contrast: 60)
        func confirmations(fuse: Int, threads: Int) throws -> [Int] {
            var options = DetectorOptions(locate: .regions, threads: threads)
            options.fuseFrames = fuse
            options.retryPassesEvery = 3
            let detector = try BarcodeDetector(options: options)
            return frames.map { f in
                let codes = f.scene.image.pixels.withUnsafeBytes {
                    detector.scan(LumaImage(base: $0.baseAddress!, width: 360, height: 160, stride: 360)).codes
                }
                XCTAssertEqual(Set(codes.map(\.text)).subtracting(["FUSED-128"]), [], "no other reading")
                return codes.map(\.quality).max() ?? 0
            }
        }
        let alone = try confirmations(fuse: 0, threads: 1)
        XCTAssertTrue(alone.allSatisfy { $0 < 2 }, "no frame alone confirms it: \(alone)")
        let fused = try confirmations(fuse: 4, threads: 1)
        XCTAssertTrue(fused.contains { $0 >= 2 }, "fused strips confirm it: \(fused)")
        XCTAssertEqual(try confirmations(fuse: 4, threads: 2), fused)
    }

    func testAnEarlierProfileIsAlignedByItsShiftAlongTheAxis() throws {
        let base = (0..<200).map { ($0 * 7919) % 13 < 6 ? 40 : 220 }
        let shifted = Array(repeating: 220, count: 9) + base.dropLast(9)
        let a = try XCTUnwrap(StripFusion.alignment(of: shifted, to: base))
        XCTAssertEqual(a.offset, 9)
        XCTAssertEqual(a.correlation, 1, accuracy: 1e-9)
    }

    func testAStripThatDoesNotMatchIsNotFused() {
        var fusion = StripFusion()
        let rows = 2, width = 100
        let bars = (0..<(rows * width)).map { UInt8(($0 % width) / 5 % 2 == 0 ? 30 : 220) }
        let other = (0..<(rows * width)).map { UInt8(($0 % width) * 2 + 20) }  // a ramp: no bars
        let quad = Quad(topLeft: Point(x: 0, y: 0), topRight: Point(x: 100, y: 0), bottomRight: Point(x: 100, y: 20),
                        bottomLeft: Point(x: 0, y: 20))
        XCTAssertNil(fusion.add(other, width: width, rows: rows, quad: quad, scale: 1, call: 1, keep: 4), "first: nothing to fuse")
        XCTAssertNil(fusion.add(bars, width: width, rows: rows, quad: quad, scale: 1, call: 2, keep: 4), "unlike strips are not fused")
        XCTAssertEqual(fusion.add(bars, width: width, rows: rows, quad: quad, scale: 1, call: 3, keep: 4), bars, "like ones are")
        // A region unseen for more than `maxAge` calls starts again.
        XCTAssertNil(fusion.add(bars, width: width, rows: rows, quad: quad, scale: 1, call: 3 + StripFusion.maxAge + 1, keep: 4))
    }
}

final class AxisAlignedResampleTests: XCTestCase {
    /// The separable resampling (rows' sums across kept while the rows below use them) gives, pixel
    /// for pixel, what taking each tap's four pixels in turn gives, shrinking and enlarging, with
    /// taps reaching past the image's edges.
    func testTheSeparableSumsEqualTheTapByTapOnes() {
        let w = 97, h = 61
        // Hashed grey levels: every pixel unlike its neighbours.
        let source = (0..<(w * h)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 11) }
        source.withUnsafeBytes { raw in
            let image = LumaImage(base: raw.baseAddress!, width: w, height: h, stride: w)
            for (scale, tx, ty) in [(0.4, 3.3, -2.1), (0.65, -4.7, 5.2), (1.0, 0.5, 0.25), (1.37, 10.1, 7.9), (2.6, -3.0, 1.4), (3.2, 0.0, 0.0)] {
                let map = AffineMap(a: scale, b: 0, tx: tx, c: 0, d: scale, ty: ty)
                let width = Int(Double(w) / scale) + 3, height = Int(Double(h) / scale) + 3
                var plane = LumaPlane(width: 1, height: 1)
                plane.resample(image, map: map, width: width, height: height)
                // Tap by tap, as zbar's pass images were first made.
                let taps = max(1, Int(scale.rounded()))
                func axis(_ k: Int, _ t: Int, _ offset: Double, _ limit: Int) -> (Int, Int, Int) {
                    let f = min(max(scale * (Double(k) + (Double(t) + 0.5) / Double(taps)) + offset - 0.5, 0), Double(limit - 1))
                    let i0 = Int(f)
                    return (i0, min(i0 + 1, limit - 1), Int(((f - Double(i0)) * 256).rounded()))
                }
                let n = taps * taps
                for y in 0..<height {
                    for x in 0..<width {
                        var sum = 0
                        for j in 0..<taps {
                            let (y0, y1, wy) = axis(y, j, ty, h)
                            for i in 0..<taps {
                                let (x0, x1, wx) = axis(x, i, tx, w)
                                let top = Int(source[y0 * w + x0]) * (256 - wx) + Int(source[y0 * w + x1]) * wx
                                let bottom = Int(source[y1 * w + x0]) * (256 - wx) + Int(source[y1 * w + x1]) * wx
                                sum += top * (256 - wy) + bottom * wy
                            }
                        }
                        let expected = UInt8(min(255, (sum + n * 65536 / 2) / (n * 65536)))
                        if plane[x, y] != expected { return XCTFail("scale \(scale): (\(x), \(y)) \(plane[x, y]) ≠ \(expected)") }
                    }
                }
            }
        }
    }
}
