import ARCore
import ARWeb
import XCTest

final class BrowserFrameTests: XCTestCase {
    func testAFrameMessageCarriesTheRecordTimeAndPictureAndReadsBack() throws {
        let record = FrameRecord(frame: 41, ptsNanoseconds: 1_366_666_666, width: 640, height: 360, objects: [
            ObjectRecord(id: 3, symbology: "QR-Code", payload: Array("SHELF-12".utf8),
                         quad: Quad(Rect(x: 10, y: 20, width: 30, height: 30)), state: .tracked),
        ])
        let frame = BrowserFrame(record: record, receivedMilliseconds: 1_763_912_345_678.1, jpeg: [0xFF, 0xD8, 0xFF, 0xD9])
        let bytes = frame.encoded()
        let length = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        XCTAssertEqual(String(decoding: bytes[4..<4 + length], as: UTF8.self),
                       #"{"record":"# + record.jsonLine() + #","receivedMs":1763912345678.1}"#)
        XCTAssertEqual(Array(bytes[(4 + length)...]), [0xFF, 0xD8, 0xFF, 0xD9])
        XCTAssertEqual(BrowserFrame(message: bytes), frame)
    }

    func testATruncatedMessageIsNotAFrame() {
        XCTAssertNil(BrowserFrame(message: [0, 0, 1]))
        XCTAssertNil(BrowserFrame(message: [0, 0, 0, 9, 0x7B]))
    }
}
