import ARStyle
import XCTest

final class StyleJSONTests: XCTestCase {
    func testValuesKeepTheirLineAndKeyOrder() throws {
        let v = try StyleJSON.parse("{\n \"b\": true,\n \"a\": [1.5, \"\\u00e9\\n\", null]\n}", file: "f")
        guard case .object(let members) = v.value else { return XCTFail("not an object") }
        XCTAssertEqual(members.map(\.key), ["b", "a"])
        XCTAssertEqual(members[0].value.value, .bool(true))
        XCTAssertEqual(members[1].value.line, 3)
        guard case .array(let items) = members[1].value.value else { return XCTFail("not an array") }
        XCTAssertEqual(items.map(\.value), [.number(1.5), .string("é\n"), .null])
    }

    func testDuplicateKeysAndTrailingTextAreErrors() {
        XCTAssertThrowsError(try StyleJSON.parse("{\"a\": 1, \"a\": 2}", file: "f")) { e in
            XCTAssertEqual((e as? StyleError)?.reason, "duplicate key 'a'")
        }
        XCTAssertThrowsError(try StyleJSON.parse("{} x", file: "f"))
    }
}
