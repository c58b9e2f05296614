import ARCore
import ARStyle
import XCTest

final class TargetKindRuleTests: XCTestCase {
    private let style = """
    {"rules": [
      {"match": {"kind": "rectangle"}, "overlays": [{"type": "image", "source": "target", "alter": "videobalance saturation=0"}]},
      {"overlays": [{"type": "outline"}]}
    ]}
    """

    func testARectangleRuleMatchesRectanglesOnlyAndCodeRulesCodesOnly() throws {
        let s = try Style.parse(style, file: "<test>", baseDirectory: "/")
        let rect = s.overlays(for: CodeInfo(symbology: "rectangle", text: "", trackID: 1, kind: .rectangle))
        XCTAssertEqual(rect.map(\.spec.kind), [.image])
        XCTAssertEqual(rect.first?.spec.fromTarget, true)
        XCTAssertEqual(rect.first?.spec.alter, "videobalance saturation=0")
        XCTAssertEqual(rect.first?.spec.warp, true)
        XCTAssertEqual(s.overlays(for: CodeInfo(symbology: "QR-Code", text: "x", trackID: 2)).map(\.spec.kind), [.outline])
    }

    func testTheBuiltInStyleOutlinesRectangles() {
        XCTAssertEqual(Style.builtIn().overlays(for: CodeInfo(symbology: "rectangle", text: "", trackID: 1, kind: .rectangle))
            .map(\.spec.kind), [.outline])
    }

    func testTargetImagesAreRefusedWhereTheyMeanNothing() {
        for (json, reason) in [
            (#"{"rules": [{"match": {"kind": "poster"}, "overlays": []}]}"#, "unknown target kind"),
            (#"{"rules": [{"match": {"kind": "rectangle", "data": "x"}, "overlays": []}]}"#, "applies to codes"),
            (#"{"rules": [{"overlays": [{"type": "image", "source": "target", "file": "a.png"}]}]}"#, "exclude each other"),
            (#"{"rules": [{"overlays": [{"type": "image", "source": "file"}]}]}"#, "only image 'source'"),
            (#"{"rules": [{"overlays": [{"type": "image", "source": "target", "alter": "! x"}]}]}"#, "filter chain"),
            (#"{"rules": [{"overlays": [{"type": "outline", "alter": "x"}]}]}"#, "does not apply"),
        ] {
            XCTAssertThrowsError(try Style.parse(json, file: "<test>", baseDirectory: "/"), json) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(error)")
            }
        }
    }
}
