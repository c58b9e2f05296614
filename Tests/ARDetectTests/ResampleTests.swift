import ARCore
@testable import ARDetect
import XCTest

final class ResampleTests: XCTestCase {
    /// Every pixel of a homography's resampling, four at a time inside the source or one by one
    /// near and past its edges, is the mean of its taps' bilinear samples, to the last bit.
    func testEveryPixelIsTheMeanOfItsTapsBilinearSamples() throws {
        var state: UInt64 = 5
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        let source = LumaPlane(width: 97, height: 83, pixels: (0..<(97 * 83)).map { _ in UInt8(next() * 255) })
        for trial in 0..<40 {
            // A square of the output onto a jittered quad: inside the source, or reaching past its edges.
            let reach = trial % 2 == 0 ? 0.0 : 30.0
            let corners = [(10.0, 8.0), (80.0, 12.0), (84.0, 70.0), (6.0, 74.0)].map { c in
                Point(x: c.0 + (next() - 0.5) * 12 + (c.0 > 40 ? reach : -reach), y: c.1 + (next() - 0.5) * 12)
            }
            let width = 21 + trial % 7, taps = 1 + trial % 3
            let square = [Point(x: 0, y: 0), Point(x: Double(width), y: 0), Point(x: Double(width), y: Double(width)),
                          Point(x: 0, y: Double(width))]
            let map = try XCTUnwrap(Homography(from: square, to: corners))
            var out = LumaPlane(width: 1, height: 1)
            source.withImage { out.resample($0, map: map, width: width, height: width, taps: taps) }
            let m = map.matrix, step = 1.0 / Double(taps), weight = 1.0 / Double(taps * taps)
            let mapped: [Point] = square.map { map.apply($0) }
            let inside = mapped.allSatisfy { (p: Point) -> Bool in p.x >= 1 && p.y >= 1 && p.x < 95 && p.y < 81 }
            XCTAssertEqual(inside, reach == 0, "trial \(trial)")
            source.withImage { luma in
                for y in 0..<width {
                    for x in 0..<width {
                        var sum = 0.0
                        for j in 0..<taps {
                            let py = Double(y) + (Double(j) + 0.5) * step
                            for i in 0..<taps {
                                let px = Double(x) + (Double(i) + 0.5) * step
                                let w = 1 / (m[6] * px + m[7] * py + m[8])
                                let sx = (m[0] * px + m[1] * py + m[2]) * w, sy = (m[3] * px + m[4] * py + m[5]) * w
                                sum += inside ? luma.sampleInside(sx, sy) : luma.sample(sx, sy)
                            }
                        }
                        let want = UInt8(min(255, max(0, sum * weight + 0.5)))
                        if out.pixels[y * width + x] != want {
                            XCTFail("trial \(trial), pixel (\(x), \(y)): \(out.pixels[y * width + x]) against \(want)")
                            return
                        }
                    }
                }
            }
        }
    }
}
