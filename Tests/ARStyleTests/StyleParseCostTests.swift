@testable import ARStyle
import Foundation
import XCTest

/// Runs `body` on a thread of its own and answers whether it finished within `seconds`: a guard
/// against a hang (generous: it is far above the time the work takes, far below the time a
/// quadratic or exponential version would).
func finishes(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.stackSize = 16 << 20
    thread.start()
    return done.wait(timeout: .now() + seconds) == .success
}

/// A one-line style with `count` rules, each with its own `data` pattern and a label.
func oneLineStyle(rules count: Int) -> String {
    let rule = ##"{"match": {"symbology": "QR-Code", "data": "^item-%d$"}, "overlays": [{"type": "label", "text": "{data}", "color": "#ffffff"}]}"##
    return #"{"expiry": 1.0, "rules": ["# + (0..<count).map { String(format: rule, $0) }.joined(separator: ", ") + "]}"
}

/// Style parsing takes time linear in the style's size, whatever its layout, and its errors stay
/// short whatever the style holds.
final class StyleParseCostTests: XCTestCase {
    func testAOneLineStylesBookkeepingGrowsLinearlyWithItsSize() throws {
        // Columns used to be counted from the line's start for every value: quadratic on one line.
        let small = oneLineStyle(rules: 2_000), large = oneLineStyle(rules: 16_000)
        let s = try StyleJSON.parseCountingSteps(small, file: "<small>").steps
        let l = try StyleJSON.parseCountingSteps(large, file: "<large>").steps
        XCTAssertLessThanOrEqual(s, 2 * small.utf8.count)
        XCTAssertLessThanOrEqual(l, 2 * large.utf8.count)
        // Eight times the text, about eight times the steps (a quadratic count would be 64 times).
        XCTAssertLessThan(Double(l) / Double(s), 9)
    }

    func testATwentyThousandRuleOneLineStyleParsesWithoutStalling() {
        // 5.5 s in a release build when columns were counted from the line's start; well under
        // a second in a debug build now. The guard is far above both of the linear figures.
        let text = oneLineStyle(rules: 20_000)
        let rules = LockedCount()
        XCTAssertTrue(finishes(within: 20) {
            rules.set((try? Style.parse(text, file: "<inline>", baseDirectory: "/tmp"))?.rules.count ?? -1)
        }, "parsing 20000 rules on one line took over 20 s")
        XCTAssertEqual(rules.value, 20_000)
    }

    func testFiftyThousandKeysAreRefusedWithoutStalling() {
        // Duplicate keys used to be searched among the keys before: quadratic in an object's size.
        let text = "{" + (0..<50_000).map { #""k\#($0)": \#($0)"# }.joined(separator: ", ") + "}"
        let message = LockedText()
        XCTAssertTrue(finishes(within: 20) {
            do { _ = try Style.parse(text, file: "<inline>", baseDirectory: "/tmp") } catch { message.set("\(error)") }
        }, "refusing 50000 keys took over 20 s")
        XCTAssertTrue(message.value.contains("unknown key 'k0'"), message.value)
    }

    func testTheErrorForAHugeKeyIsShort() {
        let key = String(repeating: "x", count: 1_000_000)
        XCTAssertThrowsError(try Style.parse(#"{"rules": [], "\#(key)": 1}"#, file: "<inline>", baseDirectory: "/tmp")) { error in
            let text = "\(error)"
            XCTAssertLessThan(text.count, 400, String(text.prefix(400)))
            XCTAssertTrue(text.contains("unknown key '" + String(repeating: "x", count: 79) + "…'"), String(text.prefix(400)))
        }
    }

    func testTheErrorForAHugeDuplicateKeyOrValueIsShort() {
        let long = String(repeating: "y", count: 1_000_000)
        for json in [#"{"\#(long)": 1, "\#(long)": 2}"#,
                     #"{"rules": [{"overlays": [{"type": "\#(long)"}]}]}"#,
                     #"{"rules": [{"overlays": [{"type": "box", "color": "\#(long)"}]}]}"#,
                     #"{"rules": [{"overlays": [{"type": "label", "text": "{\#(long)"}]}]}"#] {
            XCTAssertThrowsError(try Style.parse(json, file: "<inline>", baseDirectory: "/tmp")) { error in
                XCTAssertLessThan("\(error)".count, 400, String("\(error)".prefix(400)))
            }
        }
    }
}

/// A value set on another thread, read after it finished.
final class LockedCount: @unchecked Sendable {  // `value` is guarded by `lock`.
    private let lock = NSLock()
    private var stored = 0
    func set(_ v: Int) { lock.withLock { stored = v } }
    var value: Int { lock.withLock { stored } }
}

/// Text set on another thread, read after it finished.
final class LockedText: @unchecked Sendable {  // `value` is guarded by `lock`.
    private let lock = NSLock()
    private var stored = ""
    func set(_ v: String) { lock.withLock { stored = v } }
    var value: String { lock.withLock { stored } }
}
