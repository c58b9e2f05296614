import ARCore
@testable import ARDetect
import XCTest

final class MissLedgerTests: XCTestCase {
    private func region(_ x: Double, _ y: Double, size: Double = 100, kind: LocatedRegion.Kind = .linear, module: Double = 2) -> LocatedRegion {
        let h = size / 2
        let quad = Quad(topLeft: Point(x: x - h, y: y - h), topRight: Point(x: x + h, y: y - h),
                        bottomRight: Point(x: x + h, y: y + h), bottomLeft: Point(x: x - h, y: y + h))
        return LocatedRegion(kind: kind, quad: quad, axisDegrees: 0, moduleSize: module, score: 1, verified: false)
    }

    func testMissesCountAtTheSamePlaceAndEveryPassComesBackOnItsTurn() {
        var ledger = MissLedger()
        var allPasses: [Bool] = []
        for call in 0..<9 {
            // Shaken by up to 20 px: still the same place.
            let r = region(200 + Double(call % 3) * 10, 150 - Double(call % 2) * 10)
            allPasses.append(ledger.allPasses(r, every: 4))
            ledger.record([r], read: [false])
        }
        XCTAssertEqual(allPasses, [true, true, false, false, true, false, false, false, true])
        XCTAssertTrue(ledger.allPasses(region(200, 150), every: 0), "0: every pass on every call")
    }

    /// A tracked QR code's place missed on 6 calls in a row, and a blob's missed once, is decoded on
    /// one call in `every` only, with the first pass only; other places (a QR code not tracked yet,
    /// a tracked 1D code, a 1D region) always are, with every pass on one call in `every`.
    func testATrackedQRCodesPlaceMissedSixTimesAndABlobsMissedOnceRestButOnTheirTurn() {
        let none = [Bool](repeating: false, count: 12)
        let blob: ArraySlice<Bool> = [false, true, true, false, true, true, false, true, true, false, true, true]
        // Every pass: below 2 misses, then on one call in 3 (misses 3, 6, 9) where the place does not rest.
        let turns: [Bool] = [true, true, false, true, false, false, true, false, false, true, false, false]
        let untilRest = Array(turns.prefix(6)) + none.prefix(6), untilBlob = Array(turns.prefix(2)) + none.prefix(10)
        for (kind, expected, verified, rests, all) in [(LocatedRegion.Kind.matrix, true, true, none.prefix(7) + [true, true, false, true, true], untilRest),
                                                       (.matrix, false, true, none[...], turns), (.matrix, false, false, blob, untilBlob),
                                                       (.linear, true, true, none[...], turns), (.linear, false, false, none[...], turns)] {
            var ledger = MissLedger()
            var seen: [Bool] = [], passes: [Bool] = []
            for call in 0..<12 {
                var r = region(200 + Double(call % 3) * 10, 150, kind: kind)
                r.expected = expected
                r.verified = verified
                seen.append(ledger.rests(r, every: 3))
                passes.append(ledger.allPasses(r, every: 3))
                ledger.record([r], read: [false])
            }
            XCTAssertEqual(seen, Array(rests), "\(kind), tracked \(expected), verified \(verified)")
            XCTAssertEqual(passes, all, "every pass: \(kind), tracked \(expected), verified \(verified)")
            var r = region(200, 150, kind: kind)
            r.expected = expected
            XCTAssertFalse(ledger.rests(r, every: 0), "0: decoded on every call")
        }
    }

    /// A blob's place is scanned for 1D codes until a call leaves it unread, and again once a
    /// call reads it.
    func testABlobsPlaceIsScannedFor1DCodesUntilItIsMissed() {
        var ledger = MissLedger()
        let blob = region(200, 150, kind: .matrix)
        var seen: [Bool] = []
        for read in [false, false, true, false] {
            seen.append(ledger.blobScansLinear(blob, every: 3))
            ledger.record([blob], read: [read])
        }
        XCTAssertEqual(seen, [true, false, false, true])
        XCTAssertTrue(ledger.blobScansLinear(region(320, 150, kind: .matrix), every: 3), "another place")
        XCTAssertTrue(ledger.blobScansLinear(blob, every: 0), "0: every call")
    }

    func testAReadingAnotherPlaceOrACallWithoutItStartsAgain() {
        var ledger = MissLedger()
        let r = region(200, 150)
        ledger.record([r], read: [false])
        ledger.record([r], read: [false])
        XCTAssertEqual(ledger.misses(at: r), 2)
        XCTAssertEqual(ledger.misses(at: region(320, 150)), 0, "another place")
        XCTAssertEqual(ledger.misses(at: region(200, 150, kind: .matrix)), 0, "another kind")
        XCTAssertEqual(ledger.misses(at: region(200, 150, module: 4)), 0, "modules twice as wide: another code")
        ledger.record([r], read: [true])
        XCTAssertEqual(ledger.misses(at: r), 0, "read: every pass again")
        ledger.record([r], read: [false])
        ledger.record([], read: [])
        XCTAssertEqual(ledger.misses(at: r), 0, "not decoded on a call: forgotten")
    }

    /// A call that decoded tracked codes only (an async region job) keeps the places it did not decode.
    func testACallOnTrackedCodesOnlyKeepsTheOtherPlaces() {
        var ledger = MissLedger()
        let texture = region(200, 150), tracked = region(500, 150, kind: .matrix, module: 4)
        ledger.record([texture, tracked], read: [false, false])
        ledger.record([tracked], read: [false], forgettingOthers: false)
        XCTAssertEqual(ledger.misses(at: texture), 1, "kept")
        XCTAssertEqual(ledger.misses(at: tracked), 2)
        ledger.record([texture], read: [false])
        XCTAssertEqual(ledger.misses(at: texture), 2)
        XCTAssertEqual(ledger.misses(at: tracked), 0, "a whole-frame call forgets what it did not decode")
    }
}
