import ARDetect
import XCTest

final class SymbologyTests: XCTestCase {
    func testListParsesNamesCaseInsensitively() throws {
        XCTAssertEqual(try Symbology.parseList("QRCode, ean13").map(\.name), ["qrcode", "ean13"])
    }

    func testAllAndEmptySelectEverySymbology() throws {
        XCTAssertEqual(try Symbology.parseList("all"), Symbology.all)
        XCTAssertEqual(try Symbology.parseList(""), Symbology.all)
    }

    func testUnknownNameIsRejectedWithTheKnownOnes() {
        XCTAssertThrowsError(try Symbology.parseList("qrcode,bogus")) { error in
            XCTAssertEqual(error as? DetectorError, .unknownSymbology("bogus", known: Symbology.all.map(\.name)))
        }
    }
}
