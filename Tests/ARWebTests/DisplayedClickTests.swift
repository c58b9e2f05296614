import ARWeb
import XCTest

final class DisplayedClickTests: XCTestCase {
    func testAClickOnAVideoShownSmallerLandsOnTheSameFramePixel() throws {
        // A 640×360 frame shown 320×180: everything halves.
        let point = try XCTUnwrap(DisplayedClick(x: 100, y: 45, width: 320, height: 180).framePoint(frameWidth: 640, frameHeight: 360))
        XCTAssertEqual(point.x, 200, accuracy: 1e-9)
        XCTAssertEqual(point.y, 90, accuracy: 1e-9)
    }

    func testLetterboxBarsAreOutsideThePicture() throws {
        // A 4:3 frame in a 16:9 box: 480×360 picture centred, 80 px bars left and right.
        let box = (width: 640.0, height: 360.0)
        XCTAssertNil(DisplayedClick(x: 40, y: 100, width: box.width, height: box.height).framePoint(frameWidth: 640, frameHeight: 480))
        let point = try XCTUnwrap(DisplayedClick(x: 80, y: 0, width: box.width, height: box.height).framePoint(frameWidth: 640, frameHeight: 480))
        XCTAssertEqual(point.x, 0, accuracy: 1e-9)
        XCTAssertEqual(point.y, 0, accuracy: 1e-9)
        let right = try XCTUnwrap(DisplayedClick(x: 559, y: 359, width: box.width, height: box.height).framePoint(frameWidth: 640, frameHeight: 480))
        XCTAssertEqual(right.x, 479 * 4 / 3, accuracy: 1e-9)
        XCTAssertEqual(right.y, 359 * 4 / 3, accuracy: 1e-9)
    }

    func testClicksOutsideOrWithoutASizeAreRefused() {
        XCTAssertNil(DisplayedClick(x: -1, y: 10, width: 320, height: 180).framePoint(frameWidth: 640, frameHeight: 360))
        XCTAssertNil(DisplayedClick(x: 320, y: 10, width: 320, height: 180).framePoint(frameWidth: 640, frameHeight: 360))
        XCTAssertNil(DisplayedClick(x: 10, y: 10, width: 0, height: 180).framePoint(frameWidth: 640, frameHeight: 360))
        XCTAssertNil(DisplayedClick(x: 10, y: 10, width: 320, height: 180).framePoint(frameWidth: 0, frameHeight: 360))
    }

    func testThePageMessageIsReadAndAnythingElseIsNot() {
        XCTAssertEqual(DisplayedClick(json: #"{"x":120.5,"y":80,"width":640,"height":360}"#),
                       DisplayedClick(x: 120.5, y: 80, width: 640, height: 360))
        XCTAssertNil(DisplayedClick(json: #"{"x":"1","y":80,"width":640,"height":360}"#))
        XCTAssertNil(DisplayedClick(json: #"{"x":1,"y":80}"#))
        XCTAssertNil(DisplayedClick(json: "click"))
    }
}
