import ARDetect
import XCTest

final class SymbologyTests: XCTestCase {
    func testListParsesNamesCaseInsensitively() throws {
        XCTAssertEqual(try Symbology.parseList("QRCode, ean13").map(\.name), ["qrcode", "ean13"])
    }

    func testAllAndEmptySelectEverySymbologyExceptTheOptInOnes() throws {
        XCTAssertEqual(try Symbology.parseList("all"), Symbology.allByDefault)
        XCTAssertEqual(try Symbology.parseList(""), Symbology.allByDefault)
        let names = Symbology.allByDefault.map(\.name)
        for optIn in ["isbn10", "isbn13", "ean2", "ean5"] { XCTAssertFalse(names.contains(optIn), optIn) }
        XCTAssertTrue(names.contains("upca"))
    }

    func testAllCombinesWithOptInNamesWithoutDuplicates() throws {
        let list = try Symbology.parseList("all,isbn13,qrcode")
        XCTAssertEqual(list.count, Symbology.allByDefault.count + 1)
        XCTAssertTrue(list.map(\.name).contains("isbn13"))
    }

    func testUnknownNameIsRejectedWithTheKnownOnes() {
        XCTAssertThrowsError(try Symbology.parseList("qrcode,bogus")) { error in
            XCTAssertEqual(error as? DetectorError, .unknownSymbology("bogus", known: Symbology.all.map(\.name)))
        }
    }
}
