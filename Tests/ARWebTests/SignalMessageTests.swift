import ARCore
import ARWeb
import XCTest

final class SignalMessageTests: XCTestCase {
    func testEachSignallingMessageReadsBackFromItsJSON() {
        let messages: [SignalMessage] = [.offer(sdp: "v=0\r\no=- 1 0 IN IP4 0.0.0.0\r\n"), .answer(sdp: "v=0\r\n"),
                                         .candidate("candidate:1 1 UDP 2015363327 192.0.2.1 50000 typ host", mLineIndex: 0)]
        for message in messages { XCTAssertEqual(SignalMessage(json: message.json), message, message.json) }
        XCTAssertEqual(SignalMessage.candidate("candidate:x", mLineIndex: 0).json, #"{"candidate":"candidate:x","sdpMLineIndex":0}"#)
    }

    func testAClickOrGarbageIsNotASignallingMessage() {
        XCTAssertNil(SignalMessage(json: #"{"x":1,"y":2,"width":3,"height":4}"#))
        XCTAssertNil(SignalMessage(json: #"{"candidate":"candidate:x"}"#), "no media line")
        XCTAssertNil(SignalMessage(json: #"{"candidate":"candidate:x","sdpMLineIndex":-1}"#))
        XCTAssertNil(SignalMessage(json: "offer"))
        // ... and the click reads as a click.
        XCTAssertNotNil(DisplayedClick(json: #"{"x":1,"y":2,"width":3,"height":4}"#))
    }

    func testMDNSHostCandidatesAreToldFromAddressedOnes() {
        XCTAssertTrue(SignalMessage.isMDNSCandidate("candidate:1 1 udp 2113937151 0b5c4f3a-2d1e-4c5b-9a7e-1f2e3d4c5b6a.local 54400 typ host"))
        XCTAssertFalse(SignalMessage.isMDNSCandidate("candidate:1 1 UDP 2015363327 192.0.2.2 54940 typ host"))
        XCTAssertFalse(SignalMessage.isMDNSCandidate("candidate:2 1 udp 1 fd00::2 9 typ host"))
        XCTAssertFalse(SignalMessage.isMDNSCandidate("candidate:x.local"))
    }

    func testTheSocketsQueryChoosesTheVideoTransportJPEGByDefault() {
        XCTAssertEqual(BrowserVideo(query: "video=webrtc"), .webrtc)
        XCTAssertEqual(BrowserVideo(query: "?a=1&video=webrtc"), .webrtc)
        XCTAssertEqual(BrowserVideo(query: "video=jpeg"), .jpeg)
        XCTAssertEqual(BrowserVideo(query: ""), .jpeg)
        XCTAssertEqual(BrowserVideo(query: "video=vp9"), .jpeg)
    }

    func testAVideoRecordCarriesTheRTPTimestampAndReadsBack() throws {
        let record = FrameRecord(frame: 7, ptsNanoseconds: 233_333_333, width: 640, height: 360, objects: [
            ObjectRecord(id: 2, symbology: "QR-Code", payload: Array("BIN-4".utf8), quad: Quad(Rect(x: 1, y: 2, width: 3, height: 3)),
                         state: .tracked),
        ])
        let message = VideoRecord(record: record, receivedMilliseconds: 1_763_912_345_678.1, rtpTimestamp: 4_000_000_000)
        XCTAssertEqual(message.json, #"{"record":"# + record.jsonLine() + #","receivedMs":1763912345678.1,"rtp":4000000000}"#)
        XCTAssertEqual(VideoRecord(json: message.json), message)
        XCTAssertNil(VideoRecord(json: #"{"record":{},"receivedMs":1,"rtp":-1}"#))
    }
}
