import ARWeb
import XCTest

final class WebRTCCodecTests: XCTestCase {
    func testTheCodecsAPageListsAreReadFromItsQuery() {
        XCTAssertEqual(WebRTCCodec.listed(inQuery: "?video=webrtc&codecs=VP8,rtx,VP9,AV1"), [.vp8])
        XCTAssertEqual(WebRTCCodec.listed(inQuery: "video=webrtc&codecs=h264,VP8"), [.h264, .vp8])
        XCTAssertEqual(WebRTCCodec.listed(inQuery: "codecs=AV1"), [])
        XCTAssertNil(WebRTCCodec.listed(inQuery: "video=webrtc"))
    }

    func testH264WhenBothSidesHaveItElseVP8ElseNone() {
        XCTAssertEqual(WebRTCCodec.choose(browser: [.vp8, .h264], h264: true, vp8: true), .h264)
        XCTAssertEqual(WebRTCCodec.choose(browser: [.vp8], h264: true, vp8: true), .vp8, "Firefox without OpenH264")
        XCTAssertEqual(WebRTCCodec.choose(browser: [.h264, .vp8], h264: false, vp8: true), .vp8)
        XCTAssertEqual(WebRTCCodec.choose(browser: nil, h264: true, vp8: true), .h264, "a page that does not say")
        XCTAssertNil(WebRTCCodec.choose(browser: [.vp8], h264: true, vp8: false))
        XCTAssertNil(WebRTCCodec.choose(browser: [], h264: true, vp8: true))
    }

    func testTheVideoModeIsReadBesideTheCodecs() {
        XCTAssertEqual(BrowserVideo(query: "codecs=VP8&video=webrtc"), .webrtc)
        XCTAssertEqual(BrowserVideo(query: "?video=jpeg&codecs=VP8"), .jpeg)
        XCTAssertEqual(BrowserVideo(query: "video=mpeg"), .jpeg)
    }
}
