@testable import ARElements
import ARCore
import ARGst
import Foundation
import XCTest

private let codeQuad = Quad(Rect(x: 100, y: 80, width: 60, height: 40))
private let greenBoxes = ##"{"fade": 0, "rules": [{"overlays": [{"type": "box", "color": "#00ff00"}]}]}"##
private let redBoxes = ##"{"fade": 0, "rules": [{"overlays": [{"type": "box", "color": "#ff0000"}]}]}"##

/// Style parses queued until the test runs them: the test decides when a parse finishes.
final class ManualStyleLoads: StyleLoadExecutor, @unchecked Sendable {  // `jobs` is guarded by `lock`.
    private let lock = NSLock()
    private var jobs: [@Sendable () -> Void] = []

    func execute(_ job: @escaping @Sendable () -> Void) { lock.withLock { jobs.append(job) } }

    var queued: Int { lock.withLock { jobs.count } }

    /// Runs the jobs queued so far, in order.
    func runAll() {
        for job in lock.withLock({ defer { jobs = [] }; return jobs }) { job() }
    }
}

/// A style set while playing is parsed away from the streaming thread and swapped in whole when
/// it is ready; frames meanwhile are drawn with the old style, and no frame waits for the parse.
final class OverlayStyleSwapTests: XCTestCase {
    private var loads: ManualStyleLoads!

    override func setUp() {
        loads = ManualStyleLoads()
        let executor = loads!
        ArOverlay.styleLoads.update { $0 = executor }
    }

    override func tearDown() {
        ArOverlay.styleLoads.update { $0 = InlineStyleLoads() }
    }

    private func green(_ out: OutputBuffer?) -> Bool { out.map { BGRxImage(bytes: $0.bytes, width: 320).rgb(130, 100).g == 255 } ?? false }
    private func red(_ out: OutputBuffer?) -> Bool { out.map { BGRxImage(bytes: $0.bytes, width: 320).isRed(130, 100) } ?? false }

    func testAStyleSetWhilePlayingIsDrawnOnlyOnceItsParseHasFinished() throws {
        let h = OverlayHarness("aroverlay")
        // The harness plays from the start: every style set is parsed through the executor.
        h.set("style", greenBoxes)
        loads.runAll()
        let c = [code("A", quad: codeQuad)]
        XCTAssertTrue(green(h.push(h.black, codes: c, seconds: 0)))
        h.set("style", redBoxes)
        XCTAssertEqual(loads.queued, 1)
        // The parse has not run: the frames go through with the old style, not waiting for it.
        XCTAssertTrue(green(h.push(h.black, codes: c, seconds: 0.04)))
        XCTAssertTrue(green(h.push(h.black, codes: c, seconds: 0.08)))
        loads.runAll()
        XCTAssertTrue(red(h.push(h.black, codes: c, seconds: 0.12)), "swapped in on the first frame after the parse")
    }

    func testABadStyleSetWhilePlayingIsReportedAndTheOldOneKept() throws {
        let h = OverlayHarness("aroverlay")
        let bus = BusLog(h.element())
        h.set("style", greenBoxes)
        loads.runAll()
        let c = [code("A", quad: codeQuad)]
        XCTAssertTrue(green(h.push(h.black, codes: c, seconds: 0)))
        h.set("style", #"{"rules": [{"match": {"data": "(a+)+$"}, "overlays": []}]}"#)
        loads.runAll()
        XCTAssertTrue(green(h.push(h.black, codes: c, seconds: 0.04)))
        XCTAssertTrue(bus.warnings.contains { $0.contains("Invalid overlay style, keeping the previous one") && $0.contains("nested quantifiers") },
                      "\(bus.warnings)")
    }

    func testARuleOverItsMatchBudgetDrawsNothingAndIsWarnedOnce() throws {
        let h = OverlayHarness("aroverlay")
        let bus = BusLog(h.element())
        h.set("style", ##"{"fade": 0, "rules": [{"match": {"data": "^(a|a)*$"}, "overlays": [{"type": "box", "color": "#ff0000"}]}, {"overlays": [{"type": "box", "color": "#00ff00"}]}]}"##)
        loads.runAll()
        let payload = String(repeating: "a", count: 200) + "!"
        XCTAssertTrue(green(h.push(h.black, codes: [code(payload, id: 1, quad: codeQuad)], seconds: 0)), "the next rule gives its overlays")
        XCTAssertTrue(green(h.push(h.black, codes: [code(payload + "!", id: 2, quad: codeQuad)], seconds: 0.04)))
        XCTAssertEqual(bus.warnings.filter { $0.contains("went over its budget") }.count, 1, "\(bus.warnings)")
    }
}
