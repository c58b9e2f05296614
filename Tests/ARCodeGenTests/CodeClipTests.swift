import ARCore
import XCTest
@testable import ARCodeGen

final class CodeClipTests: XCTestCase {
    private let small = CodeClipOptions(width: 320, height: 240, seed: 5, codeCount: 6)

    func testTheSameOptionsGiveTheSameFrames() throws {
        let a = try CodeClip(small).frame(at: 7), b = try CodeClip(small).frame(at: 7)
        XCTAssertEqual(a.image, b.image)
        XCTAssertEqual(a.truth, b.truth)
    }

    func testAnotherSeedGivesAnotherClip() throws {
        var other = small
        other.seed = 6
        XCTAssertNotEqual(try CodeClip(small).frame(at: 0).image, try CodeClip(other).frame(at: 0).image)
    }

    func testCodesUseEveryKindInTurnAndTheLastIsTheFirstsTwin() throws {
        let clip = try CodeClip(small)
        XCTAssertEqual(clip.codes.map(\.symbology), ["QR-Code", "EAN-13", "CODE-128", "QR-Code", "EAN-13", "QR-Code"])
        XCTAssertEqual(clip.codes.last?.payload, clip.codes.first?.payload)
    }

    func testOccludersHideCodesInTheTruth() throws {
        var o = small
        o.occluders = 4
        o.enterLeave = false
        let clip = try CodeClip(o)
        let partly = (0..<150).flatMap { clip.frame(at: $0 * 2).truth }.filter { $0.visibleFraction < 1 }
        XCTAssertFalse(partly.isEmpty)
    }

    func testCodesMoveBetweenFrames() throws {
        var o = small
        o.enterLeave = false
        let clip = try CodeClip(o)
        let a = clip.frame(at: 0).truth, b = clip.frame(at: 15).truth
        XCTAssertEqual(a.count, 6)
        for (x, y) in zip(a, b) { XCTAssertGreaterThan(x.quad.center.distance(to: y.quad.center), 1) }
    }

    func testOptionsOutOfRangeThrow() {
        var o = small
        o.perspective = 0.9
        XCTAssertThrowsError(try CodeClip(o))
    }
}
