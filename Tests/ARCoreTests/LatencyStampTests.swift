import ARCore
import XCTest

final class LatencyStampTests: XCTestCase {
    /// Paints a stamp into a grey frame and returns a luma sampler.
    private func frame(_ stamp: LatencyStamp, microseconds: UInt64, width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 128, count: width * height)
        for row in 0..<2 {
            for column in 0..<LatencyStamp.bits {
                let level = stamp.level(microseconds: microseconds, row: row, column: column)
                for y in 0..<stamp.blockSize {
                    for x in 0..<stamp.blockSize {
                        pixels[(height - stamp.height + row * stamp.blockSize + y) * width + column * stamp.blockSize + x] = level
                    }
                }
            }
        }
        return pixels
    }

    func testAPaintedStampReadsBackItsLow32Bits() {
        let stamp = LatencyStamp(blockSize: 4)
        let t: UInt64 = 0x1_2345_6789
        let pixels = frame(stamp, microseconds: t, width: 160, height: 40)
        XCTAssertEqual(stamp.read(frameHeight: 40) { x, y in Int(pixels[y * 160 + x]) }, 0x2345_6789)
    }

    func testAFrameWithoutAStampReadsNothing() {
        let pixels = [UInt8](repeating: 128, count: 160 * 40)
        XCTAssertNil(LatencyStamp(blockSize: 4).read(frameHeight: 40) { x, y in Int(pixels[y * 160 + x]) })
    }

    func testACoveredBlockIsRejected() {
        let stamp = LatencyStamp(blockSize: 4)
        var pixels = frame(stamp, microseconds: 12345, width: 160, height: 40)
        for y in 32..<40 { for x in 40..<44 { pixels[y * 160 + x] = 255 } }  // both rows of column 10 white
        XCTAssertNil(stamp.read(frameHeight: 40) { x, y in Int(pixels[y * 160 + x]) })
    }

    func testElapsedHandlesWrapAround() {
        XCTAssertEqual(LatencyStamp.elapsed(stamp: UInt32.max - 9, nowMicroseconds: (1 << 32) + 10), 20)
        XCTAssertEqual(LatencyStamp.elapsed(stamp: 1000, nowMicroseconds: 51000), 50000)
    }
}
