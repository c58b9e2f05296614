import ARLines
import Foundation
import XCTest

final class DiskQueueTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("diskqueue-\(UUID().uuidString)").path
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Every waiting message's text, in the order `message(after:)` gives them.
    private func texts(_ q: DiskQueue) -> [String] {
        var out: [String] = []
        var last: UInt64?
        while let (sequence, body) = q.message(after: last) {
            out.append(String(decoding: body, as: UTF8.self))
            last = sequence
        }
        return out
    }

    func testMessagesComeBackInOrderAndLeaveWhenRemoved() throws {
        let q = try DiskQueue(directory: directory, maxBytes: 1000)
        let first = try XCTUnwrap(q.append(bytes("one")))
        let second = try XCTUnwrap(q.append(bytes("two")))
        try q.append(bytes("three"))
        XCTAssertEqual(second, first + 1)
        XCTAssertEqual(texts(q), ["one", "two", "three"])
        XCTAssertEqual(q.message(after: first)?.sequence, second)
        XCTAssertTrue(q.remove(first))
        XCTAssertFalse(q.remove(first), "already gone")
        XCTAssertEqual(texts(q), ["two", "three"])
        XCTAssertEqual(q.count, 2)
        XCTAssertEqual(q.queuedBytes, 8)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".msg") }.count, 2)
    }

    func testAMessageCanBeRemovedOutOfOrder() throws {
        let q = try DiskQueue(directory: directory, maxBytes: 1000)
        let sequences = try (0..<4).map { try XCTUnwrap(q.append(bytes("m\($0)"))) }
        XCTAssertTrue(q.remove(sequences[2]))
        XCTAssertEqual(texts(q), ["m0", "m1", "m3"])
        XCTAssertEqual(q.waiting.map(\.sequence), [sequences[0], sequences[1], sequences[3]])
    }

    func testPastTheSizeLimitNewMessagesAreRefusedAndCounted() throws {
        let q = try DiskQueue(directory: directory, maxBytes: 10)
        XCTAssertNotNil(try q.append(bytes("12345")))
        XCTAssertNotNil(try q.append(bytes("67890")))
        XCTAssertNil(try q.append(bytes("x")), "11 bytes would be past the limit")
        XCTAssertNil(try q.append(bytes("y")))
        XCTAssertEqual(q.refusedMessages, 2)
        XCTAssertEqual(texts(q), ["12345", "67890"], "the waiting messages keep their order")
        q.remove(q.waiting.first!.sequence)
        XCTAssertNotNil(try q.append(bytes("z")), "room again once one is delivered")
        XCTAssertEqual(texts(q), ["67890", "z"])
    }

    func testAMessageLargerThanTheLimitIsTakenWhenNothingElseWaits() throws {
        let q = try DiskQueue(directory: directory, maxBytes: 4)
        XCTAssertNotNil(try q.append(bytes("a long message")))
        XCTAssertNil(try q.append(bytes("b")))
    }

    func testAReopenedQueueResumesInOrderAfterTheLastSequence() throws {
        var last: UInt64 = 0
        do {
            let q = try DiskQueue(directory: directory, maxBytes: 1000)
            for i in 0..<12 { last = try XCTUnwrap(q.append(bytes("m\(i)"))) }
            q.remove(q.waiting.first!.sequence)
        }
        // A writer killed while writing leaves a temporary file: it is not a message.
        XCTAssertTrue(FileManager.default.createFile(atPath: directory + "/99.tmp", contents: Data("half".utf8)))
        let q = try DiskQueue(directory: directory, maxBytes: 1000)
        XCTAssertEqual(texts(q), (1..<12).map { "m\($0)" }, "sequence numbers sort numerically, not as text")
        XCTAssertEqual(q.queuedBytes, 9 * 2 + 2 * 3, "m1…m9 and m10, m11")
        XCTAssertEqual(try q.append(bytes("next")), last + 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/99.tmp"))
    }

    func testOneWriterAtATime() throws {
        let q = try DiskQueue(directory: directory, maxBytes: 1000)
        XCTAssertThrowsError(try DiskQueue(directory: directory, maxBytes: 1000)) {
            XCTAssertTrue("\($0)".contains("in use by another writer"), "\($0)")
        }
        q.close()
        XCTAssertNoThrow(try DiskQueue(directory: directory, maxBytes: 1000))
    }

    func testAMessageDeletedByHandIsSkippedAndCounted() throws {
        let q = try DiskQueue(directory: directory, maxBytes: 1000)
        let first = try XCTUnwrap(q.append(bytes("one")))
        try q.append(bytes("two"))
        let name = String(format: "%020llu.msg", first)
        XCTAssertEqual(unlink(directory + "/" + name), 0)
        XCTAssertEqual(texts(q), ["two"])
        XCTAssertEqual(q.unreadableMessages, 1)
        XCTAssertEqual(q.count, 1)
    }

    func testAnUnusableDirectoryIsNamedInTheError() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: directory, contents: Data()))
        XCTAssertThrowsError(try DiskQueue(directory: directory + "/q", maxBytes: 1000)) {
            XCTAssertTrue("\($0)".contains("Could not create the queue directory '\(directory)/q'"), "\($0)")
        }
    }
}
