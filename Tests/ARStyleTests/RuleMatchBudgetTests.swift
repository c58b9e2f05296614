import ARStyle
import Foundation
import XCTest

/// A rule's regular expression cannot hold the stream: catastrophic shapes are refused when the
/// style loads, the payload a rule sees is bounded, and a match has a budget of engine steps.
final class RuleMatchBudgetTests: XCTestCase {
    private func style(data pattern: String) throws -> Style {
        let json = """
            {"fade": 0,
             "rules": [
               {"match": {"data": "\(pattern)"}, "overlays": [{"type": "outline"}]}]}
            """
        return try Style.parse(json, file: "styles/probe.json", baseDirectory: "/tmp")
    }

    func testANestedQuantifierIsRefusedNamingFileLineAndKey() {
        XCTAssertThrowsError(try style(data: "(a+)+$")) { error in
            guard let e = error as? StyleError else { return XCTFail("\(error)") }
            XCTAssertEqual(e.file, "styles/probe.json")
            XCTAssertEqual(e.place, "rules[0].match.data (line 3)")
            XCTAssertTrue(e.reason.contains("'(a+)+$' refused: nested quantifiers"), e.reason)
            XCTAssertTrue(e.reason.contains("possessive"), e.reason)
        }
    }

    func testCatastrophicShapesAreFoundAndSafeOnesPass() {
        for refused in ["(a+)+", "(a*)*", "(a*b?)*c", "(?:x|y+){2,}", "([a-z]+\\.)+[a-z]+", "((ab)+c)*", "(a{2,5})+",
                        "(?<sku>[0-9]+)*", "^(\\d+)+$", "(a+){3}", "(?i:a+)+", "((a+)?)+"] {
            XCTAssertNotNil(RegexShape.catastrophicShape(in: refused), refused)
        }
        for accepted in ["^https://shop\\.example/p/(?<sku>[0-9]+)$", "(a++)+", "(a+)++", "(?>a+)+", "(ab)+", "a+b+c*",
                         "[(a+)+]", "\\(a+\\)+", "\\Q(a+)+\\E", "(a+){1}", "(a+)?", "(?#(a+)+)x", "(a|b)*", "x{3}(y{2})+",
                         "(?i)(abc)+", "^[0-9]{13}$"] {
            XCTAssertNil(RegexShape.catastrophicShape(in: accepted), accepted)
        }
    }

    func testAPathologicalButAcceptedPatternOnALongPayloadIsAbandonedWithinItsBudget() throws {
        // `(a|a)*` is not a nested quantifier but backtracks exponentially all the same: 2^n paths
        // on n letters followed by a mismatch. Without a budget this never returns (on much longer
        // text ICU's backtracking stack overflows first, and it answers no match after a second).
        let style = try style(data: "^(a|a)*$")
        let payload = CodeInfo(symbology: "QR-Code", text: String(repeating: "a", count: 60) + "!", trackID: 1)
        let outcome = LockedOutcome()
        XCTAssertTrue(finishes(within: 20) { outcome.set(style.overlaysAndAbandonedRules(for: payload)) },
                      "the match ran on past 20 s")
        XCTAssertEqual(outcome.value?.overlays.count, 0)
        XCTAssertEqual(outcome.value?.abandonedRules, [0])
        XCTAssertEqual(style.rules[0].evaluate(symbology: "QR-Code", text: payload.text), .abandoned)
    }

    func testAPlainPatternIsNotAbandonedOnTheLongestPayload() throws {
        let style = try style(data: "^[0-9]+x$")
        let text = String(repeating: "7", count: StyleLimits.matchedTextUTF16 - 1) + "x"
        XCTAssertEqual(style.rules[0].evaluate(symbology: "QR-Code", text: text), .matched([:]))
        XCTAssertEqual(style.rules[0].evaluate(symbology: "QR-Code", text: "y" + text.dropFirst()), .noMatch)
    }

    func testARuleSeesOnlyTheFirst8192UnitsOfAPayload() throws {
        let style = try style(data: "^a{8192}$")
        let long = CodeInfo(symbology: "QR-Code", text: String(repeating: "a", count: 20_000), trackID: 1)
        XCTAssertEqual(style.overlays(for: long).count, 1)
    }
}

/// An outcome set on another thread, read after it finished.
final class LockedOutcome: @unchecked Sendable {  // `value` is guarded by `lock`.
    private let lock = NSLock()
    private var stored: (overlays: [ResolvedOverlay], abandonedRules: [Int])?
    func set(_ v: (overlays: [ResolvedOverlay], abandonedRules: [Int])) { lock.withLock { stored = v } }
    var value: (overlays: [ResolvedOverlay], abandonedRules: [Int])? { lock.withLock { stored } }
}
