import ARCore
import XCTest

final class TrackChangesTests: XCTestCase {
    private func object(_ id: UInt64, _ state: TrackState = .tracked, x: Double = 0) -> ObjectRecord {
        ObjectRecord(id: id, symbology: "QR-Code", payload: Array("p\(id)".utf8), quad: Quad(Rect(x: x, y: 0, width: 10, height: 10)),
                     state: state)
    }

    func testATrackIsAddedOnItsFirstFrameAndRemovedWithItsLastRecordOnTheFirstFrameWithoutIt() {
        var changes = TrackChanges()
        var step = changes.next([object(1), object(2)])
        XCTAssertEqual(step.added.map(\.id), [1, 2])
        XCTAssertEqual(step.removed, [])
        step = changes.next([object(2, x: 5), object(1, .lost, x: 7)])
        XCTAssertEqual(step.added, [])
        XCTAssertEqual(step.removed, [])
        step = changes.next([object(3)])
        XCTAssertEqual(step.added.map(\.id), [3])
        XCTAssertEqual(step.removed, [object(1, .lost, x: 7), object(2, x: 5)], "by id, as last seen")
        step = changes.next([object(3)])
        XCTAssertEqual(step.added, [])
        XCTAssertEqual(step.removed, [], "removed once")
        XCTAssertEqual(changes.next([object(1)]).added.map(\.id), [1], "an id seen again is added again")
    }

    func testUntrackedAndLocatedRegionsAreNeverAnnounced() {
        var changes = TrackChanges()
        let step = changes.next([object(0, .located), object(0, .detected)])
        XCTAssertEqual(step.added, [])
        XCTAssertEqual(changes.next([]).removed, [])
    }

    func testAnEventLineIsTheFrameSchemaWithTheEventAfterHeight() throws {
        let record = FrameRecord(frame: 4, ptsNanoseconds: nil, width: 64, height: 48, objects: [object(1)])
        let line = record.jsonLine(event: .removed)
        XCTAssertTrue(line.hasPrefix("{\"frame\":4,\"pts\":null,\"width\":64,\"height\":48,\"event\":\"removed\",\"objects\":[{\"id\":1,"), line)
        XCTAssertEqual(try FrameRecord(jsonLine: line), record)
    }
}
