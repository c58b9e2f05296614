import ARCore
import ARStyle
import Foundation
import XCTest

/// A temporary folder with the files a style refers to.
final class StyleFolder {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "arstyle-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path + "/img", withIntermediateDirectories: true)
        write("products.csv", "sku,name,price\n123,Green tea,\"4,50 €\"\n456,抹茶,3.20\n")
        write("products.json", #"{"123": {"name": "Green tea", "price": 4.5}}"#)
        write("img/123.png", "not really a png, but it exists")
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ name: String, _ text: String) {
        _ = FileManager.default.createFile(atPath: path + "/" + name, contents: Data(text.utf8))
    }

    /// Parses `json` as a style file named `style.json` in this folder.
    func parse(_ json: String) throws -> Style {
        write("style.json", json)
        return try Style.load(path: path + "/style.json")
    }

    /// The error parsing `json` gives, or a failure.
    func error(_ json: String, file: StaticString = #filePath, line: UInt = #line) -> StyleError? {
        do {
            _ = try parse(json)
            XCTFail("style was accepted: \(json)", file: file, line: line)
            return nil
        } catch let e as StyleError {
            return e
        } catch {
            XCTFail("not a StyleError: \(error)", file: file, line: line)
            return nil
        }
    }
}

let issueExample = #"""
{"expiry": 1.0, "fade": 0.2, "hint": "Point the camera at a code",
 "lookup": {"products": {"file": "products.csv", "key": "sku"}},
 "rules": [{"match": {"symbology": "QR-Code", "data": "^https://shop\\.example/p/(?<sku>[0-9]+)$"},
            "overlays": [{"type": "outline", "color": "#00ff00", "width": 3},
                         {"type": "label", "text": "{products.name} {products.price}", "anchor": "top-center",
                          "offset": {"y": [-0.5, "self"]}, "color": "#ffffff", "background": "#000000b0", "font": "Sans Bold 18"},
                         {"type": "image", "file": "img/{sku}.png", "warp": true}]}]}
"""#

final class StyleParsingTests: XCTestCase {
    func testTheIssueExampleParsesAndResolvesProductContent() throws {
        let folder = StyleFolder()
        let style = try folder.parse(issueExample)
        XCTAssertEqual(style.expirySeconds, 1.0)
        XCTAssertEqual(style.fadeSeconds, 0.2)
        XCTAssertEqual(style.hint, "Point the camera at a code")
        let overlays = style.overlays(for: CodeInfo(symbology: "QR-Code", text: "https://shop.example/p/123", trackID: 7))
        XCTAssertEqual(overlays.map(\.spec.kind), [.outline, .label, .image])
        XCTAssertEqual(overlays[1].text, "Green tea 4,50 €")
        XCTAssertEqual(overlays[1].spec.placement.anchor, .topCenter)
        XCTAssertEqual(overlays[2].imagePath, folder.path + "/img/123.png")
        XCTAssertTrue(overlays[2].spec.warp)
    }

    func testRulesMatchInOrderAndARuleWithoutMatchTakesTheRest() throws {
        let style = try StyleFolder().parse(#"""
        {"rules": [{"match": {"symbology": "EAN-13"}, "overlays": [{"type": "box"}]},
                   {"overlays": [{"type": "label", "text": "{symbology}: {data} #{id}"}]}]}
        """#)
        XCTAssertEqual(style.overlays(for: CodeInfo(symbology: "ean-13", text: "1", trackID: 1)).map(\.spec.kind), [.box])
        let label = style.overlays(for: CodeInfo(symbology: "QR-Code", text: "hi", trackID: 4))
        XCTAssertEqual(label.map(\.text), ["QR-Code: hi #4"])
    }

    func testWhenExpandedSelectsRulesForTappedAndOtherCodes() throws {
        let style = try StyleFolder().parse(#"""
        {"rules": [{"when": {"expanded": true}, "overlays": [{"type": "box"}]},
                   {"when": {"expanded": false}, "overlays": [{"type": "outline"}]}]}
        """#)
        XCTAssertEqual(style.overlays(for: CodeInfo(symbology: "QR-Code", text: "a", trackID: 1, expanded: true)).map(\.spec.kind), [.box])
        XCTAssertEqual(style.overlays(for: CodeInfo(symbology: "QR-Code", text: "a", trackID: 1)).map(\.spec.kind), [.outline])
        XCTAssertThrowsError(try StyleFolder().parse(#"{"rules": [{"when": {"near": true}, "overlays": []}]}"#))
        XCTAssertThrowsError(try StyleFolder().parse(#"{"rules": [{"when": {"expanded": "yes"}, "overlays": []}]}"#))
    }

    func testColoursComeFromTheCodesValuesAndLookups() throws {
        // Red for what is out of stock: the colour is a column of the lookup table.
        let folder = StyleFolder()
        folder.write("stock.csv", "sku,state\n111,#ff0000\n222,#00ff00\n333,not a colour\n")
        let style = try folder.parse(#"""
        {"lookup": {"stock": {"file": "stock.csv", "key": "sku"}},
         "rules": [{"overlays": [{"type": "fill", "color": "{stock.state}"}]}]}
        """#)
        func colour(_ sku: String) -> Color? { style.overlays(for: CodeInfo(symbology: "EAN-13", text: sku, trackID: 1)).first?.color }
        XCTAssertEqual(colour("111"), Color(red: 1, green: 0, blue: 0))
        XCTAssertEqual(colour("222"), Color(red: 0, green: 1, blue: 0))
        XCTAssertEqual(colour("333"), OverlaySpec.defaultColor(.fill), "not a colour: the type's default")
        XCTAssertEqual(colour("999"), OverlaySpec.defaultColor(.fill), "no row: the default")
        XCTAssertThrowsError(try folder.parse(#"{"rules": [{"overlays": [{"type": "box", "color": "{nope}"}]}]}"#), "unknown field")
    }

    func testAListIsCheckedWhenTheStyleLoads() throws {
        let folder = StyleFolder()
        folder.write("pick.csv", "sku,qty\nA,2\nB,x\n")
        let style = try folder.parse(#"{"list": {"file": "pick.csv", "key": "sku", "quantity": "qty"}, "rules": []}"#)
        XCTAssertEqual(style.list?.expected, ["A": 2, "B": 1], "a quantity that is not a number counts one")
        XCTAssertThrowsError(try folder.parse(#"{"rules": [{"match": {"listed": true}, "overlays": []}]}"#), "listed without a list")
        XCTAssertThrowsError(try folder.parse(#"{"list": {"file": "pick.csv", "key": "sku", "quantity": "amount"}}"#), "no such column")
        XCTAssertThrowsError(try folder.parse(#"{"list": {"file": "pick.csv", "key": "sku"}, "progress": {"text": "{list.nope}"}}"#))
        XCTAssertThrowsError(try folder.parse(#"{"progress": {"text": "{list.found}"}}"#), "progress without a list")
    }

    func testRealUnitsBecomeMultiplesOfTheCodesPrintedSize() throws {
        // Codes printed 30 mm wide: a 6 cm box beside them is twice a code's size, 15 mm to the right half a code.
        let style = try StyleFolder().parse(#"""
        {"rules": [{"code-size": [30, "mm"], "overlays": [{"type": "box", "size": {"width": [6, "cm"], "height": [60, "mm"]},
                                                          "offset": {"x": [15, "mm"], "y": [0, "px"]}}]}]}
        """#)
        let p = try XCTUnwrap(style.rules.first?.overlays.first?.placement)
        XCTAssertEqual(p.width, Length(2, .code))
        XCTAssertEqual(p.height, Length(2, .code))
        XCTAssertEqual(p.offsetX, Length(0.5, .code))
        XCTAssertThrowsError(try StyleFolder().parse(#"{"rules": [{"overlays": [{"type": "box", "size": {"width": [6, "cm"]}}]}]}"#),
                             "mm without the codes' printed size")
        XCTAssertThrowsError(try StyleFolder().parse(#"{"rules": [{"code-size": [30, "px"], "overlays": []}]}"#))
    }

    func testCodesNoRuleMatchesGetNoOverlays() throws {
        let style = try StyleFolder().parse(#"{"rules": [{"match": {"data": "^x$"}, "overlays": [{"type": "box"}]}]}"#)
        XCTAssertTrue(style.overlays(for: CodeInfo(symbology: "QR-Code", text: "y", trackID: 1)).isEmpty)
    }

    func testJSONLookupTablesAndMissingRowsGiveEmptyFields() throws {
        let style = try StyleFolder().parse(#"""
        {"lookup": {"p": {"file": "products.json", "key": "sku"}},
         "rules": [{"match": {"data": "^(?<sku>[0-9]+)$"}, "overlays": [{"type": "label", "text": "[{p.name}|{p.price}]"}]}]}
        """#)
        XCTAssertEqual(style.overlays(for: CodeInfo(symbology: "QR-Code", text: "123", trackID: 1)).first?.text, "[Green tea|4.5]")
        XCTAssertEqual(style.overlays(for: CodeInfo(symbology: "QR-Code", text: "999", trackID: 1)).first?.text, "[|]")
    }

    func testLookupByPayloadWhenNoCaptureHasTheKeysName() throws {
        let style = try StyleFolder().parse(#"""
        {"lookup": {"p": {"file": "products.csv", "key": "sku"}}, "rules": [{"overlays": [{"type": "label", "text": "{p.name}"}]}]}
        """#)
        XCTAssertEqual(style.overlays(for: CodeInfo(symbology: "QR-Code", text: "456", trackID: 1)).first?.text, "抹茶")
    }

    func testTemplatesEscapeBracesAndLongLabelsAreCut() throws {
        let style = try StyleFolder().parse(#"{"rules": [{"overlays": [{"type": "label", "text": "{{{data}}}", "max-chars": 5}]}]}"#)
        XCTAssertEqual(style.overlays(for: CodeInfo(symbology: "Q", text: "ab", trackID: nil)).first?.text, "{ab}")
        XCTAssertEqual(style.overlays(for: CodeInfo(symbology: "Q", text: "abcdefgh", trackID: nil)).first?.text, "{abc…")
    }

    func testLocatedRegionsGetOnlyLocatedRulesElseTheThinGreyOutline() throws {
        let style = try StyleFolder().parse(#"""
        {"lookup": {"p": {"file": "products.csv", "key": "sku"}},
         "rules": [{"overlays": [{"type": "label", "text": "{data} {p.name}"}]},
                   {"match": {"state": "located", "symbology": "2D"}, "overlays": [{"type": "label", "text": "{symbology}?"}]}]}
        """#)
        let twoD = style.overlays(for: CodeInfo(symbology: "2D", text: "", trackID: nil, located: true))
        XCTAssertEqual(twoD.map(\.text), ["2D?"], "the located rule, not the rule without 'state'")
        let oneD = style.overlays(for: CodeInfo(symbology: "1D", text: "", trackID: nil, located: true))
        XCTAssertEqual(oneD.map(\.spec), Style.defaultLocatedOverlays, "no located rule matches: the default look")
        XCTAssertEqual(oneD.first?.spec.kind, .outline)
        XCTAssertEqual(oneD.first?.spec.lineWidth, 2)
        XCTAssertLessThan(try XCTUnwrap(oneD.first?.spec.color.alpha), 1)
        // A read code never takes a located rule.
        let read = style.overlays(for: CodeInfo(symbology: "2D", text: "123", trackID: 1))
        XCTAssertEqual(read.map(\.text), ["123 Green tea"])
    }

    func testALocatedRuleWithoutOverlaysHidesLocatedRegions() throws {
        let style = try StyleFolder().parse(#"{"rules": [{"match": {"state": "located"}, "overlays": []}]}"#)
        XCTAssertTrue(style.overlays(for: CodeInfo(symbology: "1D", text: "", trackID: nil, located: true)).isEmpty)
        XCTAssertTrue(style.overlays(for: CodeInfo(symbology: "QR-Code", text: "x", trackID: 1)).isEmpty)
    }

    func testTheBuiltInStyleDrawsLocatedRegionsAsTheDefaultOutlineWithoutLabel() {
        let overlays = Style.builtIn().overlays(for: CodeInfo(symbology: "2D", text: "", trackID: nil, located: true))
        XCTAssertEqual(overlays.map(\.spec), Style.defaultLocatedOverlays)
    }

    func testApplicationOverlaysParseLikeRuleOverlays() throws {
        let style = try StyleFolder().parse(#"{"rules": []}"#)
        let specs = try style.parseOverlays(##"[{"type": "box", "color": "#ff0000", "size": {"width": [10, "px"]}}]"##)
        XCTAssertEqual(specs.first?.color, Color(red: 1, green: 0, blue: 0))
        XCTAssertThrowsError(try style.parseOverlays(#"[{"type": "laser"}]"#))
    }
}

final class StyleErrorCaseTests: XCTestCase {
    let folder = StyleFolder()

    private func check(_ json: String, place: String, reason: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let e = folder.error(json, file: file, line: line) else { return }
        XCTAssertEqual(e.file, folder.path + "/style.json", file: file, line: line)
        XCTAssertTrue(e.place.contains(place), "place '\(e.place)' lacks '\(place)'", file: file, line: line)
        XCTAssertTrue(e.reason.contains(reason), "reason '\(e.reason)' lacks '\(reason)'", file: file, line: line)
    }

    func testSyntaxErrorsNameTheLineAndColumn() {
        check("{\n  \"rules\": [\n    {\"overlays\": [}]\n}", place: "line 3, column 19", reason: "invalid JSON")
    }

    func testUnknownTypeAnchorUnitAndColourAreNamedWithTheirKeyPath() {
        check(#"{"rules": [{"overlays": [{"type": "laser"}]}]}"#, place: "rules[0].overlays[0].type (line 1)", reason: "unknown overlay type 'laser'")
        check(#"{"rules": [{"overlays": [{"type": "box", "anchor": "middle"}]}]}"#, place: "rules[0].overlays[0].anchor", reason: "unknown anchor 'middle'")
        check(#"{"rules": [{"overlays": [{"type": "box", "offset": {"x": [1, "em"]}}]}]}"#, place: "rules[0].overlays[0].offset.x[1]", reason: "unknown unit 'em'")
        check(#"{"rules": [{"overlays": [{"type": "box", "size": {"width": [1, "self"]}}]}]}"#, place: "size.width[1]", reason: "unknown unit 'self'")
        check(#"{"rules": [{"overlays": [{"type": "box", "color": "green"}]}]}"#, place: "rules[0].overlays[0].color", reason: "invalid colour 'green'")
    }

    func testRatioOnBothAxesIsRefused() {
        check(#"{"rules": [{"overlays": [{"type": "box", "size": {"width": [1, "ratio"], "height": [2, "ratio"]}}]}]}"#,
              place: "rules[0].overlays[0].size", reason: "'ratio' on both")
    }

    func testMissingImageAndLookupFilesAreRefused() {
        check(#"{"rules": [{"overlays": [{"type": "image", "file": "img/none.png"}]}]}"#, place: "rules[0].overlays[0].file",
              reason: "image file '\(folder.path)/img/none.png' not found")
        check(#"{"lookup": {"t": {"file": "nope.csv", "key": "k"}}, "rules": []}"#, place: "lookup.t.file", reason: "lookup file")
    }

    func testBadRegularExpressionsAreRefused() {
        check(#"{"rules": [{"match": {"data": "^(unclosed"}, "overlays": []}]}"#, place: "rules[0].match.data",
              reason: "invalid regular expression")
    }

    func testLocatedRulesTakeOnlyTheLocatedStateAndTheSymbologyField() {
        check(#"{"rules": [{"match": {"state": "seen"}, "overlays": []}]}"#, place: "rules[0].match.state",
              reason: "unknown state 'seen' (known: located")
        check(#"{"rules": [{"match": {"state": "located", "data": "x"}, "overlays": []}]}"#, place: "rules[0].match.data",
              reason: "'data' does not apply to located regions")
        for field in ["data", "id", "p.name"] {
            check(#"{"lookup": {"p": {"file": "products.csv", "key": "sku"}}, "rules": [{"match": {"state": "located"}, "overlays": [{"type": "label", "text": "{"# + field + #"}"}]}]}"#,
                  place: "rules[0].overlays[0].text", reason: "unknown placeholder '{\(field)}' in a located rule")
        }
        check(#"{"rules": [{"match": {"state": "located"}, "overlays": [{"type": "image", "file": "img/{data}.png"}]}]}"#,
              place: "rules[0].overlays[0].file", reason: "in a located rule")
        check(#"{"rules": [{"match": {"state": "located"}, "overlays": [{"type": "label"}]}]}"#,
              place: "rules[0].overlays[0]", reason: "a label in a located rule needs a 'text'")
    }

    func testUnknownKeysAndPlaceholdersAreRefused() {
        check(#"{"rules": [], "colour": 1}"#, place: "colour", reason: "unknown key 'colour'")
        check(#"{"rules": [{"overlays": [{"type": "label", "text": "{sku}"}]}]}"#, place: "rules[0].overlays[0].text",
              reason: "unknown placeholder '{sku}'")
        check(#"{"lookup": {"p": {"file": "products.csv", "key": "sku"}}, "rules": [{"overlays": [{"type": "label", "text": "{p.colour}"}]}]}"#,
              place: "rules[0].overlays[0].text", reason: "no column 'colour'")
    }

    func testCSVLookupErrorsNameTheTableFileAndLine() {
        folder.write("bad.csv", "sku,name\n1,a,extra\n")
        guard let e = folder.error(#"{"lookup": {"p": {"file": "bad.csv", "key": "sku"}}, "rules": []}"#) else { return }
        XCTAssertEqual(e.file, folder.path + "/bad.csv")
        XCTAssertEqual(e.place, "line 2")
    }

    func testAMissingStyleFileIsReported() {
        XCTAssertThrowsError(try Style.load(path: "/nonexistent/style.json")) { e in
            XCTAssertEqual((e as? StyleError)?.file, "/nonexistent/style.json")
        }
    }
}
