import ARBridge
import ARCodeGen
import ARCore
@testable import ARElements
import ARGst
import CGStreamer
import CGstCheck
import Foundation
import XCTest

final class DetectMessageTests: XCTestCase {
    /// Pushes `frame` through `arbarcodedetect <properties>` and returns the element messages posted.
    private func messages(_ frame: TestFrame, properties: String) throws -> [OwnedStructure] {
        let h = Harness("arbarcodedetect \(properties)", caps: frame.i420Caps)
        let bus = gst_bus_new()!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        gst_element_set_bus(h.h.pointee.element, bus)
        XCTAssertNotNil(h.process(frame.i420, ptsNanoseconds: 1_000_000_000))
        var out: [OwnedStructure] = []
        while let msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT) {
            if let s = gst_message_get_structure(msg) { out.append(OwnedStructure(copying: s)) }
            gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self))
        }
        return out
    }

    func testMessageCarriesTheStockZbarFieldsAndTheQuad() throws {
        var f = TestFrame(width: 320, height: 240)
        f.addQR("MESSAGE", x: 100, y: 120, module: 4)
        f.addQR("SECOND", x: 240, y: 120, module: 4)
        let posted = try messages(f, properties: "message=true")
        XCTAssertEqual(posted.count, 1, "one message per frame")
        let first = try XCTUnwrap(posted.first)
        let s = StructureView(first.borrowed)
        XCTAssertEqual(s.name, "barcode")
        XCTAssertEqual(s.string("type"), "QR-Code")
        XCTAssertTrue(["MESSAGE", "SECOND"].contains(s.string("symbol") ?? ""))
        XCTAssertNotNil(s.int("quality"))
        XCTAssertEqual(s.uint64("timestamp"), 1_000_000_000)
        XCTAssertEqual(s.uint64("stream-time"), 1_000_000_000)
        XCTAssertNotNil(s.uint64("running-time"))
        XCTAssertEqual(s.uint64("duration"), 33_333_333)
        XCTAssertEqual(s.doubles("quad")?.count, 8)
        XCTAssertEqual(s.int("count"), 2)
        let symbols = s.structures("symbols")
        XCTAssertEqual(Set(symbols.compactMap { $0.string("symbol") }), ["MESSAGE", "SECOND"])
        for code in symbols {
            let q = try XCTUnwrap(code.doubles("quad"))
            let truth = f.truth.first { $0.text == code.string("symbol") }!.quad
            assertQuad(Quad([Point(x: q[0], y: q[1]), Point(x: q[2], y: q[3]), Point(x: q[4], y: q[5]), Point(x: q[6], y: q[7])])!,
                       truth, within: 2)
        }
    }

    func testNoMessageUnlessAsked() throws {
        var f = TestFrame(width: 240, height: 240)
        f.addQR("QUIET", x: 120, y: 120, module: 4)
        XCTAssertEqual(try messages(f, properties: "").count, 0)
    }

    func testBinaryPayloadIsKeptExactlyAsBytesAndBase64() throws {
        let bytes: [UInt8] = [0xFF, 0x00, 0xC3, 0x28, 0x80, 0x41]
        var f = TestFrame(width: 240, height: 240)
        f.image = try { var image = f.image
            _ = try CodeRenderer().render(CodeMatrix.qr(bytes), placement: CodePlacement(center: Point(x: 120, y: 120), moduleSize: 4),
                                          into: &image)
            return image }()
        let message = try XCTUnwrap(try messages(f, properties: "message=true").first)
        let s = StructureView(message.borrowed)
        XCTAssertEqual(s.bytes("payload"), bytes)
        XCTAssertEqual(s.string("symbol-base64"), Data(bytes).base64EncodedString())
        let h = Harness("arbarcodedetect", caps: f.i420Caps)
        XCTAssertEqual(try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0)).regions.first?.payload, bytes)
    }

    func testFourKilobytePayloadTravelsIntact() throws {
        TestGst.setUp()
        let payload = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let quad = Quad(Rect(x: 10, y: 10, width: 100, height: 100))
        var segment = GstSegment()
        gst_segment_init(&segment, timeFormat)
        let buffer = gst_buffer_new()!
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self)) }
        let s = DetectMessage.structure([Detection(symbology: "QR-Code", payload: payload, quad: quad)], buffer: Buffer(buffer),
                                        segment: &segment)
        let view = StructureView(s.borrowed)
        XCTAssertEqual(view.bytes("payload"), payload)
        XCTAssertEqual(view.string("symbol-base64").flatMap { Data(base64Encoded: $0) }.map(Array.init), payload)
    }
}
