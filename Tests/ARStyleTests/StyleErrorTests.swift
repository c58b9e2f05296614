import ARStyle
import XCTest

final class StyleErrorTests: XCTestCase {
    func testDescriptionNamesFilePlaceAndReason() {
        let e = StyleError(file: "styles/shop.json", place: "rules[0].overlays[1].anchor", reason: "unknown anchor 'middle'")
        XCTAssertEqual(e.description, "styles/shop.json: rules[0].overlays[1].anchor: unknown anchor 'middle'")
    }
}
