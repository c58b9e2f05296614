import ARVision
import XCTest

final class LumaPlaneTests: XCTestCase {
    func testCopyingDropsRowPadding() {
        let rows: [UInt8] = [1, 2, 3, 99, 4, 5, 6, 99]
        let plane = rows.withUnsafeBytes { LumaPlane(copying: $0.baseAddress!, width: 3, height: 2, stride: 4) }
        XCTAssertEqual(plane.pixels, [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(plane[x: 2, y: 1], 6)
    }

    func testMismatchedPixelCountIsRejected() {
        XCTAssertNil(LumaPlane(width: 2, height: 2, pixels: [0, 0, 0]))
    }
}
