import ARCore
import XCTest

final class LumaPlaneTests: XCTestCase {
    func testCopyingDropsRowPadding() {
        let rows: [UInt8] = [1, 2, 3, 99, 4, 5, 6, 99]
        let plane = rows.withUnsafeBytes { LumaPlane(copying: $0.baseAddress!, width: 3, height: 2, stride: 4) }
        XCTAssertEqual(plane.pixels, [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(plane[2, 1], 6)
    }

    func testCopyingABorrowedImageKeepsOnlyItsPixels() {
        let rows: [UInt8] = [1, 2, 3, 99, 4, 5, 6, 99]
        let plane = rows.withUnsafeBytes { LumaPlane(copying: LumaImage(base: $0.baseAddress!, width: 3, height: 2, stride: 4)) }
        XCTAssertEqual(plane, LumaPlane(width: 3, height: 2, pixels: [1, 2, 3, 4, 5, 6]))
    }

    /// A line of samples stepped in fixed point has `sampleInside`'s values along its whole length
    /// (no drift over thousands of steps), added to what the buffer held, with a stride wider than the rows.
    func testALineOfSamplesMatchesSampleInsideAlongItsLength() {
        let width = 4100, height = 40, stride = 4103
        let rows = (0..<(stride * height)).map { UInt8(truncatingIfNeeded: ($0 % stride) * 37 + ($0 / stride) * 91 + ($0 % 7) * 13) }
        rows.withUnsafeBytes { bytes in
            let image = LumaImage(base: bytes.baseAddress!, width: width, height: height, stride: stride)
            for (x, y, dx, dy) in [(1.5, 2.25, 0.999_37, 0.007_3), (4090.1, 30.7, -0.9871, -0.005_1), (20.3, 1.6, 0.013, 0.008)] {
                let count = 4000
                XCTAssertTrue(image.holdsInside(x, y) && image.holdsInside(x + dx * Double(count - 1), y + dy * Double(count - 1)))
                var out = [Double](repeating: 10, count: count)
                out.withUnsafeMutableBufferPointer { image.addLineInside(x: x, y: y, dx: dx, dy: dy, count: count, into: $0.baseAddress!) }
                let worst = (0..<count).map { abs(out[$0] - 10 - image.sampleInside(x + dx * Double($0), y + dy * Double($0))) }.max()!
                XCTAssertLessThan(worst, 0.01, "line from (\(x), \(y)) by (\(dx), \(dy))")
            }
        }
    }

    func testSubscriptSetsOnePixel() {
        var plane = LumaPlane(width: 4, height: 3, fill: 7)
        plane[3, 2] = 200
        XCTAssertEqual(plane.pixels.last, 200)
        XCTAssertEqual(plane.pixels.filter { $0 == 7 }.count, 11)
    }

    func testSizesFromOutsideAreValidated() {
        XCTAssertThrowsError(try LumaPlane(validatingWidth: 0, height: 10)) {
            XCTAssertEqual($0 as? LumaPlane.SizeError, .invalidSize(width: 0, height: 10, pixelCount: 0))
        }
        XCTAssertThrowsError(try LumaPlane(validatingWidth: 1 << 21, height: 1))
        XCTAssertThrowsError(try LumaPlane(validatingWidth: 1 << 16, height: 1 << 16))
        XCTAssertThrowsError(try LumaPlane(validatingWidth: 2, height: 2, pixels: [0, 0, 0])) {
            XCTAssertEqual($0 as? LumaPlane.SizeError, .invalidSize(width: 2, height: 2, pixelCount: 3))
        }
        XCTAssertEqual(try LumaPlane(validatingWidth: 2, height: 1, pixels: [5, 6]).pixels, [5, 6])
        XCTAssertEqual(try LumaPlane(validatingWidth: 2, height: 2, fill: 9).pixels, [9, 9, 9, 9])
    }

    func testResizeKeepsStorageOfTheSameLength() {
        var plane = LumaPlane(width: 4, height: 2, fill: 3)
        plane.resize(width: 2, height: 4)
        XCTAssertEqual(plane.width, 2)
        XCTAssertEqual(plane.height, 4)
        XCTAssertEqual(plane.pixels, [UInt8](repeating: 3, count: 8), "same length: the storage is kept")
        plane.resize(width: 3, height: 3)
        XCTAssertEqual(plane.pixels.count, 9)
    }

    func testWithImageLendsAPackedView() {
        let plane = LumaPlane(width: 3, height: 2, pixels: [0, 10, 20, 30, 40, 50])
        let (stride, corner, centre) = plane.withImage { ($0.stride, $0.pixel(2, 1), $0.sample(1.5, 1.0)) }
        XCTAssertEqual(stride, 3)
        XCTAssertEqual(corner, 50)
        XCTAssertEqual(centre, 25, "halfway between rows 0 and 1 of column 1")
    }

    /// One reduction for every caller: each pixel the rounded mean of its 2×2 block, the size
    /// rounded down, the same from a packed plane and from a strided view of a wider buffer
    /// (a frame's plane), in the four-at-a-time middle and at the ends of odd rows alike.
    func testHalvingAveragesEach2x2BlockRoundedFromPackedAndStridedPixels() {
        let width = 13, height = 7, stride = 20
        var buffer = [UInt8](repeating: 255, count: stride * height)
        for y in 0..<height { for x in 0..<width { buffer[y * stride + x] = UInt8((x * 37 + y * 91 + x * y * 7) % 256) } }
        let packed = LumaPlane(copying: buffer, width: width, height: height, stride: stride)
        var expected: [UInt8] = []
        for y in 0..<height / 2 {
            for x in 0..<width / 2 {
                let sum = [(0, 0), (1, 0), (0, 1), (1, 1)].reduce(0) { $0 + Int(buffer[(2 * y + $1.1) * stride + 2 * x + $1.0]) }
                expected.append(UInt8((sum + 2) / 4))
            }
        }
        let halved = packed.halved()
        XCTAssertEqual([halved.width, halved.height], [6, 3])
        XCTAssertEqual(halved.pixels, expected)
        let strided = buffer.withUnsafeBytes { LumaPlane.halved(LumaImage(base: $0.baseAddress!, width: width, height: height, stride: stride)) }
        XCTAssertEqual(strided, halved)
        XCTAssertEqual([LumaPlane(width: 1, height: 1, fill: 9).halved().width], [1], "never empty")
    }
}
