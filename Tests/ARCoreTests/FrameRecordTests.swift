import XCTest
@testable import ARCore

final class FrameRecordTests: XCTestCase {
    private let unitQuad = Quad(Rect(x: 0, y: 0, width: 1, height: 1))

    private var knownRecord: FrameRecord {
        let text = "say \"hi\"\\ back\n\ttab\u{01}é€"
        let quad = Quad(topLeft: Point(x: 10, y: 10.5), topRight: Point(x: 50.25, y: 10),
                        bottomRight: Point(x: 50, y: -3.1), bottomLeft: Point(x: 10.004, y: 49.996))
        return FrameRecord(frame: 3, ptsNanoseconds: 40_000_000, width: 640, height: 480, objects: [
            ObjectRecord(id: 1, symbology: "QR-Code", payload: Array(text.utf8), quad: quad, state: .detected),
            ObjectRecord(id: 2, symbology: "QR-Code", payload: [0x66, 0x6F, 0xFF, 0x00], quad: unitQuad, state: .lost),
        ])
    }

    func testKnownRecordSerialisesToTheExactLine() {
        let expected = #"{"frame":3,"pts":40000000,"width":640,"height":480,"objects":[{"id":1,"symbology":"QR-Code","data":"say \"hi\"\\ back\n\ttab\u0001é€","quad":[[10,10.5],[50.25,10],[50,-3.1],[10,50]],"state":"detected","kind":"code"},{"id":2,"symbology":"QR-Code","data":"foÿ\u0000","data_base64":"Zm//AA==","quad":[[0,0],[1,0],[1,1],[0,1]],"state":"lost","kind":"code"}]}"#
        XCTAssertEqual(knownRecord.jsonLine(), expected)
    }

    func testAShiftJISQRCodesDataIsItsTextAndItsBytesComeBack() throws {
        // "日本" in Shift JIS (a Japanese QR code without an ECI): not UTF-8.
        let sjis: [UInt8] = [0x93, 0xFA, 0x96, 0x7B]
        let record = FrameRecord(frame: 0, ptsNanoseconds: 0, width: 2, height: 2, objects: [
            ObjectRecord(id: 1, symbology: "QR-Code", payload: sjis, quad: unitQuad, state: .detected),
        ])
        let line = record.jsonLine()
        XCTAssertTrue(line.contains(#""data":"日本","data_base64":"k/qWew==""#), line)
        XCTAssertEqual(try FrameRecord(jsonLine: line).objects.first?.payload, sjis)
    }

    func testEmptyFrameWithoutPtsWritesNull() {
        let record = FrameRecord(frame: 0, ptsNanoseconds: nil, width: 320, height: 240, objects: [])
        XCTAssertEqual(record.jsonLine(), #"{"frame":0,"pts":null,"width":320,"height":240,"objects":[]}"#)
    }

    func testControlCharactersUseShortOrUnicodeEscapes() {
        XCTAssertEqual(FrameRecord.jsonString("\u{08}\u{0C}\r\n\t\u{1F}/"), #""\b\f\r\n\t\u001f/""#)
    }

    func testNumbersAreRoundedToTwoDecimalsWithoutTrailingZeros() {
        let values: [Double] = [10, 10.5, 10.25, -3.1, 0.004, -0.004, 1234.567, -0.5, 0.05, 1e6]
        XCTAssertEqual(values.map(FrameRecord.jsonNumber),
                       ["10", "10.5", "10.25", "-3.1", "0", "0", "1234.57", "-0.5", "0.05", "1000000"])
    }

    func testTrackStateNamesMatchTheSchema() {
        XCTAssertEqual([TrackState.detected, .tracked, .occluded, .lost, .located].map(\.rawValue),
                       ["detected", "tracked", "occluded", "lost", "located"])
    }

    /// A region seen but not read: id 0, its class, no `data`; a code beside it keeps every field.
    private var locatedRecord: FrameRecord {
        let quad = Quad(topLeft: Point(x: 12, y: 20.5), topRight: Point(x: 80, y: 20),
                        bottomRight: Point(x: 80.25, y: 44), bottomLeft: Point(x: 12, y: 44))
        return FrameRecord(frame: 5, ptsNanoseconds: 200_000_000, width: 320, height: 240, objects: [
            ObjectRecord(id: 3, symbology: "QR-Code", payload: Array("hi".utf8), quad: unitQuad, state: .tracked),
            ObjectRecord(id: 0, symbology: "1D", payload: [], quad: quad, state: .located),
        ])
    }

    func testALocatedObjectIsWrittenWithoutData() {
        let expected = #"{"frame":5,"pts":200000000,"width":320,"height":240,"objects":[{"id":3,"symbology":"QR-Code","data":"hi","quad":[[0,0],[1,0],[1,1],[0,1]],"state":"tracked","kind":"code"},{"id":0,"symbology":"1D","quad":[[12,20.5],[80,20],[80.25,44],[12,44]],"state":"located","kind":"code"}]}"#
        XCTAssertEqual(locatedRecord.jsonLine(), expected)
    }

    func testALocatedObjectRoundTrips() throws {
        XCTAssertEqual(try FrameRecord(jsonLine: locatedRecord.jsonLine()), locatedRecord)
    }

    func testOnlyLocatedObjectsMayLackData() {
        let line = #"{"frame":0,"pts":1,"width":2,"height":2,"objects":[{"id":1,"symbology":"QR-Code","quad":[[0,0],[1,0],[1,1],[0,1]],"state":"detected"}]}"#
        XCTAssertThrowsError(try FrameRecord(jsonLine: line)) { error in
            XCTAssertEqual(error as? FrameRecordError, .missingKey("data"))
        }
    }

    func testObjectRecordCopiesATrack() {
        let track = Track(id: 9, symbology: "EAN-13", payload: Array("4006381333931".utf8), quad: unitQuad,
                          state: .tracked, firstSeenNanoseconds: 1, lastDecodedNanoseconds: 2, quality: 3)
        XCTAssertEqual(ObjectRecord(track),
                       ObjectRecord(id: 9, symbology: "EAN-13", payload: Array("4006381333931".utf8), quad: unitQuad, state: .tracked))
    }

    func testTextPayloadRoundTrips() throws {
        let quad = Quad(topLeft: Point(x: 1.5, y: 2.25), topRight: Point(x: 100, y: 2),
                        bottomRight: Point(x: 99.75, y: 80), bottomLeft: Point(x: -0.5, y: 79))
        let record = FrameRecord(frame: 12, ptsNanoseconds: 9_223_372_036_854_775_000, width: 1920, height: 1080, objects: [
            ObjectRecord(id: 4, symbology: "QR-Code", payload: Array("https://example.com/ä?q=\"x\"\n".utf8), quad: quad,
                         state: .tracked),
        ])
        XCTAssertEqual(try FrameRecord(jsonLine: record.jsonLine()), record)
    }

    func testBinaryPayloadRoundTripsThroughBase64() throws {
        let parsed = try FrameRecord(jsonLine: knownRecord.jsonLine())
        XCTAssertEqual(parsed.objects.map(\.payload), [Array("say \"hi\"\\ back\n\ttab\u{01}é€".utf8), [0x66, 0x6F, 0xFF, 0x00]])
    }

    func testParsedKnownRecordKeepsHeaderAndRoundedQuad() throws {
        let parsed = try FrameRecord(jsonLine: knownRecord.jsonLine())
        XCTAssertEqual(parsed.frame, 3)
        XCTAssertEqual(parsed.ptsNanoseconds, 40_000_000)
        XCTAssertEqual(parsed.width, 640)
        XCTAssertEqual(parsed.height, 480)
        XCTAssertEqual(parsed.objects.map(\.state), [.detected, .lost])
        XCTAssertEqual(parsed.objects[0].quad.bottomLeft, Point(x: 10, y: 50))
    }

    func testNullPtsParsesAsNil() throws {
        let parsed = try FrameRecord(jsonLine: #"{"frame":0,"pts":null,"width":2,"height":2,"objects":[]}"#)
        XCTAssertNil(parsed.ptsNanoseconds)
        XCTAssertEqual(parsed.objects, [])
    }

    func testMalformedJSONThrowsInvalidJSON() {
        XCTAssertThrowsError(try FrameRecord(jsonLine: #"{"frame":0,"#)) { error in
            guard case FrameRecordError.invalidJSON = error else { return XCTFail("got \(error)") }
        }
    }

    func testMissingKeyIsNamed() {
        XCTAssertThrowsError(try FrameRecord(jsonLine: #"{"frame":0,"pts":null,"height":2,"objects":[]}"#)) { error in
            XCTAssertEqual(error as? FrameRecordError, .missingKey("width"))
        }
    }

    func testFractionalFrameIsAWrongType() {
        XCTAssertThrowsError(try FrameRecord(jsonLine: #"{"frame":1.5,"pts":null,"width":2,"height":2,"objects":[]}"#)) { error in
            XCTAssertEqual(error as? FrameRecordError, .wrongType("frame"))
        }
    }

    func testUnknownStateIsRejected() {
        let line = #"{"frame":0,"pts":1,"width":2,"height":2,"objects":[{"id":1,"symbology":"QR-Code","data":"x","quad":[[0,0],[1,0],[1,1],[0,1]],"state":"gone"}]}"#
        XCTAssertThrowsError(try FrameRecord(jsonLine: line)) { error in
            XCTAssertEqual(error as? FrameRecordError, .invalidState("gone"))
        }
    }

    func testQuadWithThreeCornersIsRejected() {
        let line = #"{"frame":0,"pts":1,"width":2,"height":2,"objects":[{"id":1,"symbology":"QR-Code","data":"x","quad":[[0,0],[1,0],[1,1]],"state":"lost"}]}"#
        XCTAssertThrowsError(try FrameRecord(jsonLine: line)) { error in
            XCTAssertEqual(error as? FrameRecordError, .invalidQuad)
        }
    }

    func testInvalidBase64IsRejected() {
        let line = #"{"frame":0,"pts":1,"width":2,"height":2,"objects":[{"id":1,"symbology":"QR-Code","data":"x","data_base64":"!!","quad":[[0,0],[1,0],[1,1],[0,1]],"state":"lost"}]}"#
        XCTAssertThrowsError(try FrameRecord(jsonLine: line)) { error in
            XCTAssertEqual(error as? FrameRecordError, .invalidBase64)
        }
    }

    func testTopLevelArrayIsNotAnObject() {
        XCTAssertThrowsError(try FrameRecord(jsonLine: "[1,2]")) { error in
            XCTAssertEqual(error as? FrameRecordError, .notAnObject("line"))
        }
    }
}

final class FrameRecordKindTests: XCTestCase {
    func testARectangleLineHasItsKindAspectAndConfidenceAndNoData() throws {
        let rect = ObjectRecord(id: 4, symbology: "rectangle", payload: [], quad: Quad(Rect(x: 1, y: 2, width: 40, height: 30)),
                                state: .tracked, kind: .rectangle, aspect: 0.75, confidence: 0.934)
        let record = FrameRecord(frame: 1, ptsNanoseconds: 5, width: 64, height: 48, objects: [rect])
        XCTAssertEqual(record.jsonLine(), #"{"frame":1,"pts":5,"width":64,"height":48,"objects":[{"id":4,"symbology":"rectangle","quad":[[1,2],[41,2],[41,32],[1,32]],"state":"tracked","kind":"rectangle","aspect":0.75,"confidence":0.93}]}"#)
        let back = try FrameRecord(jsonLine: record.jsonLine())
        XCTAssertEqual(back.objects.first?.kind, .rectangle)
        XCTAssertEqual(back.objects.first?.aspect, 0.75)
        XCTAssertEqual(back.objects.first?.confidence, 0.93)
    }

    func testALineWithoutKindsReadsAsCodes() throws {
        let line = #"{"frame":0,"pts":1,"width":2,"height":2,"objects":[{"id":1,"symbology":"QR-Code","data":"x","quad":[[0,0],[1,0],[1,1],[0,1]],"state":"lost"}]}"#
        XCTAssertEqual(try FrameRecord(jsonLine: line).objects.first?.kind, .code)
    }
}
