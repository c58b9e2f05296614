import ARRender
import XCTest

final class ColorTests: XCTestCase {
    func testHexColoursParseWithAndWithoutAlpha() {
        XCTAssertEqual(Color(hex: "#00ff00"), Color(red: 0, green: 1, blue: 0, alpha: 1))
        XCTAssertEqual(Color(hex: "#000000b0")?.alpha ?? 0, 176.0 / 255, accuracy: 1e-9)
    }

    func testMalformedColoursAreRejected() {
        XCTAssertNil(Color(hex: "00ff00"))
        XCTAssertNil(Color(hex: "#00ff0"))
        XCTAssertNil(Color(hex: "#gg0000"))
    }
}
