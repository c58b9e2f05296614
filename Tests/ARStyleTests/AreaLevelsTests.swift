import ARCore
import ARStyle
import XCTest

final class AreaLevelsTests: XCTestCase {
    func testTheAreaRulesSeeMovesOnlyWhenTheCodesAreaChangedByAQuarter() {
        var levels = AreaLevels()
        XCTAssertEqual(levels.area(of: 1, fraction: 0.010), 0.010)
        XCTAssertEqual(levels.area(of: 1, fraction: 0.011), 0.010, "a 10 % change: held")
        XCTAssertEqual(levels.area(of: 1, fraction: 0.0085), 0.010, "down 15 %: held")
        XCTAssertEqual(levels.area(of: 1, fraction: 0.013), 0.013, "up 30 %: followed")
        XCTAssertEqual(levels.area(of: 2, fraction: 0.5), 0.5, "each track on its own")
        levels.keep([2])
        XCTAssertEqual(levels.area(of: 1, fraction: 0.011), 0.011, "a track gone starts afresh")
    }

    func testRulesSelectByAreaAndRefuseBadBounds() throws {
        let style = try StyleFolder().parse(#"""
        {"rules": [{"when": {"max-area": 0.01}, "overlays": [{"type": "outline"}]},
                   {"when": {"min-area": 0.01, "max-area": 0.2}, "overlays": [{"type": "label", "text": "{data}"}]},
                   {"when": {"min-area": 0.2}, "overlays": [{"type": "box"}]}]}
        """#)
        func kinds(_ area: Double) -> [OverlayKind] {
            style.overlays(for: CodeInfo(symbology: "QR-Code", text: "a", trackID: 1, area: area)).map(\.spec.kind)
        }
        XCTAssertEqual(kinds(0.002), [.outline], "far: an outline")
        XCTAssertEqual(kinds(0.05), [.label], "mid: a label")
        XCTAssertEqual(kinds(0.3), [.box], "close: the card")
        XCTAssertThrowsError(try StyleFolder().parse(#"{"rules": [{"when": {"min-area": 2}, "overlays": []}]}"#))
        XCTAssertThrowsError(try StyleFolder().parse(#"{"rules": [{"when": {"min-area": 0.3, "max-area": 0.1}, "overlays": []}]}"#))
    }
}
