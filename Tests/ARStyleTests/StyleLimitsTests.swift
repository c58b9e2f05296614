import ARStyle
import XCTest

/// Sizes, offsets, fonts and texts a style may give, refused at load time outside their ranges.
final class StyleLimitsTests: XCTestCase {
    let folder = StyleFolder()

    /// The style with one overlay of `type` having `members` (JSON), on line 2.
    private func style(_ type: String, _ members: String) -> String {
        "{\"rules\": [{\"overlays\": [\n{\"type\": \"\(type)\", \(members)}]}]}"
    }

    private func check(_ json: String, place: String, reason: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let e = folder.error(json, file: file, line: line) else { return }
        XCTAssertEqual(e.file, folder.path + "/style.json", file: file, line: line)
        XCTAssertEqual(e.place, place, file: file, line: line)
        XCTAssertTrue(e.reason.contains(reason), "reason '\(e.reason)' lacks '\(reason)'", file: file, line: line)
    }

    func testHugeSizesAreRefusedNamingFileLineKeyAndRange() {
        check(style("label", #""size": {"width": [1e308, "px"]}"#), place: "rules[0].overlays[0].size.width (line 2)",
              reason: "1e+308 px is out of range 0…16384 px")
        check(style("box", #""size": {"width": [10, "px"], "height": [100000, "px"]}"#),
              place: "rules[0].overlays[0].size.height (line 2)", reason: "100000 px is out of range 0…16384 px")
        check(style("image", #""file": "img/123.png", "size": {"width": [500, "code"]}"#),
              place: "rules[0].overlays[0].size.width (line 2)", reason: "500 code is out of range 0…100 code")
        check(style("box", #""size": {"width": [-1, "px"]}"#), place: "rules[0].overlays[0].size.width (line 2)",
              reason: "-1 px is out of range 0…16384 px")
        check(style("box", #""size": {"width": [2, "px"], "height": [101, "ratio"]}"#),
              place: "rules[0].overlays[0].size.height (line 2)", reason: "101 ratio is out of range 0…100 ratio")
    }

    func testHugeOffsetsAreRefused() {
        check(style("label", #""offset": {"x": [1e9, "px"]}"#), place: "rules[0].overlays[0].offset.x (line 2)",
              reason: "1000000000 px is out of range -16384…16384 px")
        check(style("label", #""offset": {"y": [-200, "self"]}"#), place: "rules[0].overlays[0].offset.y (line 2)",
              reason: "-200 self is out of range -100…100 self")
    }

    func testSizesWithinRangeAreAccepted() throws {
        let s = try folder.parse(style("box", #""size": {"width": [16384, "px"], "height": [100, "code"]}, "offset": {"x": [-100, "code"]}"#))
        XCTAssertEqual(s.rules[0].overlays[0].placement.width, Length(16384, .px))
    }

    func testFontSizesOutOfRangeAreRefused() {
        check(style("label", #""font": "Sans 100000""#), place: "rules[0].overlays[0].font (line 2)",
              reason: "font size 100000 points is out of range 1…1000")
        check(style("label", #""font": "Sans Bold 30000px""#), place: "rules[0].overlays[0].font (line 2)",
              reason: "font size 30000 px is out of range 1…1000")
        check(style("label", #""font": "Sans 0""#), place: "rules[0].overlays[0].font (line 2)", reason: "out of range")
    }

    func testMaxCharsAboveTheLabelLimitIsRefused() {
        check(style("label", #""max-chars": 5000"#), place: "rules[0].overlays[0].max-chars (line 2)", reason: "out of range 1…1000")
    }

    func testALabelFromALongPayloadIsCutToTheLimit() throws {
        let s = try folder.parse(style("label", #""text": "{data}""#))
        let text = s.overlays(for: CodeInfo(symbology: "QR-Code", text: String(repeating: "x", count: 7000), trackID: 1))[0].text
        XCTAssertEqual(text.count, StyleLimits.labelCharacters)
        XCTAssertTrue(text.hasSuffix("x…"))
    }

    func testBoundedLabelsKeepShortTextAndCutLongTextToItsLimit() {
        XCTAssertEqual(StyleLimits.boundedLabel("abc", maxCharacters: 3), "abc")
        XCTAssertEqual(StyleLimits.boundedLabel("abcd", maxCharacters: 3), "ab…")
        XCTAssertEqual(StyleLimits.boundedLabel("abcd", maxCharacters: 1), "…")
        XCTAssertEqual(StyleLimits.boundedLabel("日本語テキスト", maxCharacters: 4), "日本語…")
    }

    func testACharacterWithThousandsOfCombiningMarksIsBoundedToo() {
        let heavy = "a" + String(repeating: "\u{301}", count: 10_000)
        let text = StyleLimits.boundedLabel(heavy + "b")
        XCTAssertLessThanOrEqual(text.unicodeScalars.count, StyleLimits.labelScalars)
        XCTAssertEqual(text, "…")
    }
}

final class FontDescriptionTests: XCTestCase {
    func testTheSizeIsTheLastWordInPointsOrPixels() {
        XCTAssertEqual(FontDescription.size("Sans Bold 18"), FontDescription.Size(value: 18, pixels: false))
        XCTAssertEqual(FontDescription.size("Sans 24px"), FontDescription.Size(value: 24, pixels: true))
        XCTAssertEqual(FontDescription.size("DejaVu Sans, Bold 12 @wght=600"), FontDescription.Size(value: 12, pixels: false))
        XCTAssertNil(FontDescription.size("Sans Bold"))
        XCTAssertEqual(FontDescription.size("Sans 18")?.pixelValue, 24)
    }

    func testOnlySizesOutsideTheRangeHaveAProblem() {
        XCTAssertNil(FontDescription.sizeProblem("Sans Bold"))
        XCTAssertNil(FontDescription.sizeProblem("Sans 1000"))
        XCTAssertNotNil(FontDescription.sizeProblem("Sans 1001"))
        XCTAssertNotNil(FontDescription.sizeProblem("Sans 1e308px"))
    }
}
