import ARLines
import XCTest

final class LineQueueTests: XCTestCase {
    private func line(_ text: String) -> [UInt8] { Array((text + "\n").utf8) }

    /// Sends everything left, `chunk` bytes at a time; returns what was sent.
    private func sendAll(_ q: inout LineQueue, chunk: Int = 3) -> String {
        var out: [UInt8] = []
        while let bytes = q.nextBytes() {
            let n = min(chunk, bytes.count)
            out += bytes.prefix(n)
            q.sent(n)
        }
        return String(decoding: out, as: UTF8.self)
    }

    func testLinesComeOutWholeAndInOrder() {
        var q = LineQueue(maxLines: 10)
        q.push(line("one"))
        q.push(line("two"))
        XCTAssertEqual(sendAll(&q), "one\ntwo\n")
        XCTAssertEqual(q.sentLines, 2)
        XCTAssertTrue(q.isEmpty)
    }

    func testAFullQueueDropsTheOldestWaitingLineAndCountsIt() {
        var q = LineQueue(maxLines: 2)
        XCTAssertEqual(q.push(line("1")), 0)
        XCTAssertEqual(q.push(line("2")), 0)
        XCTAssertEqual(q.push(line("3")), 1)
        XCTAssertEqual(q.push(line("4")), 1)
        XCTAssertEqual(q.droppedLines, 2)
        XCTAssertEqual(sendAll(&q), "3\n4\n")
    }

    func testALinePartlySentIsFinishedBeforeTheNextWhateverIsPushedMeanwhile() {
        var q = LineQueue(maxLines: 1)
        q.push(line("first line"))
        _ = q.nextBytes()
        q.sent(4)
        XCTAssertTrue(q.isMidLine)
        // The queue overflows while the first line is half sent: waiting lines are dropped, never it.
        for i in 0..<5 { q.push(line("next \(i)")) }
        XCTAssertEqual(q.droppedLines, 4)
        XCTAssertEqual(q.dropWaiting(), 1)
        XCTAssertEqual(q.unsentLines, 1)
        XCTAssertEqual(sendAll(&q), "t line\n")
        XCTAssertEqual(q.sentLines, 1)
    }

    func testTheByteBoundDropsOldLinesButTakesOneLongLine() {
        var q = LineQueue(maxLines: 100, maxBytes: 10)
        q.push(line("aaaa"))
        q.push(line("bbbb"))
        XCTAssertEqual(q.push(line("cccc")), 1)
        XCTAssertEqual(q.queuedBytes, 10)
        XCTAssertEqual(q.push(line(String(repeating: "x", count: 50))), 2)
        XCTAssertEqual(q.queuedLines, 1)
        XCTAssertEqual(sendAll(&q, chunk: 7), String(repeating: "x", count: 50) + "\n")
    }

    func testDroppingTheLineBeingSentCountsIt() {
        var q = LineQueue(maxLines: 4)
        q.push(line("cut"))
        _ = q.nextBytes()
        q.sent(1)
        XCTAssertTrue(q.dropCurrent())
        q.sent(2)  // a send that finished after the drop changes nothing
        XCTAssertEqual(q.droppedLines, 1)
        XCTAssertEqual(q.sentLines, 0)
        XCTAssertNil(q.nextBytes())
    }
}
