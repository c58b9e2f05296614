import ARBridge
import ARCore
import ARGst
import CGStreamer
import CGstCheck
import Foundation
import XCTest

/// Emits a parameterless action signal of `element`; its result as a GValue of `type` (unset by the caller).
private func emit(_ element: UnsafeMutablePointer<GstElement>, _ name: String, returning type: ArValueType) -> GValue {
    let gtype = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee.g_type
    var args = [GValue()]
    g_value_init(&args[0], gst_element_get_type())
    g_value_set_object(&args[0], UnsafeMutableRawPointer(element))
    var result = GValue()
    g_value_init(&result, ar_value_gtype(type))
    g_signal_emitv(&args, g_signal_lookup(name, gtype), 0, &result)
    g_value_unset(&args[0])
    return result
}

/// A pick list: a style whose `list` names the items expected; listed codes green, others red,
/// progress in the top-right corner.
final class OverlayListTests: XCTestCase {
    private func style() throws -> String {
        let dir = temporaryPath("picklist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "sku,qty\nAPPLE,1\nPEAR,2\n".write(toFile: dir + "/picklist.csv", atomically: true, encoding: .utf8)
        let json = ##"{"fade": 0, "list": {"file": "picklist.csv", "key": "sku", "quantity": "qty"},"##
            + ##""progress": {"text": "{list.found}/{list.total} found", "corner": "top-right"},"##
            + ##""rules": [{"match": {"listed": true}, "overlays": [{"type": "box", "color": "#00ff00"}]},"##
            + ##"{"match": {"listed": false}, "overlays": [{"type": "box", "color": "#ff0000"}]}]}"##
        try json.write(toFile: dir + "/style.json", atomically: true, encoding: .utf8)
        return dir + "/style.json"
    }

    private func code(_ text: String, id: UInt64, x: Double) -> BarcodeRegion {
        BarcodeRegion(trackID: id, symbology: "CODE-128", payload: Array(text.utf8), quad: Quad(Rect(x: x, y: 120, width: 50, height: 50)),
                      state: .tracked, quality: 0)
    }

    private func summary(_ h: OverlayHarness) -> String? {
        var v = emit(h.element(), "count-summary", returning: AR_VALUE_STRING)
        defer { g_value_unset(&v) }
        return g_value_get_string(&v).map { String(cString: $0) }
    }

    func testListedCodesAreStyledCountedOnceAndSummarised() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", try style())
        let bus = gst_bus_new()!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        gst_element_set_bus(h.element(), bus)
        var image = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [code("APPLE", id: 1, x: 20), code("PLUM", id: 2, x: 120)],
                                                          seconds: 0)).bytes, width: h.width)
        XCTAssertEqual(image.rgb(45, 145).g, 255, "listed: green")
        XCTAssertTrue(image.isRed(145, 145), "not listed: red")
        XCTAssertTrue((0..<40).contains { y in (200..<312).contains { x in image.rgb(x, y).r > 128 } }, "progress in the top-right corner")
        // APPLE again, under another track id: the same payload, counted once.
        image = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [code("APPLE", id: 3, x: 20)], seconds: 0.04)).bytes, width: h.width)
        XCTAssertEqual(summary(h),
                       #"{"count-summary":{"found":{"APPLE":1},"missing":{"PEAR":2},"unexpected":{"PLUM":1},"total":3,"found-total":1}}"#)
        var reset = emit(h.element(), "reset-count", returning: AR_VALUE_BOOLEAN)
        XCTAssertTrue(g_value_get_boolean(&reset) != 0)
        g_value_unset(&reset)
        XCTAssertEqual(summary(h),
                       #"{"count-summary":{"found":{},"missing":{"APPLE":1,"PEAR":2},"unexpected":{},"total":3,"found-total":0}}"#)
        // At the end of the stream the count is posted.
        _ = try XCTUnwrap(h.push(h.black, codes: [code("PEAR", id: 4, x: 20)], seconds: 0.08))
        XCTAssertTrue(gst_harness_push_event(h.h, gst_event_new_eos()) != 0)
        var posted: [String] = []
        while let m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT) {
            if let s = gst_message_get_structure(m), String(cString: gst_structure_get_name(s)) == "arbarcode-count-summary" {
                posted.append(String(cString: gst_structure_get_string(s, "json")))
            }
            gst_mini_object_unref(UnsafeMutableRawPointer(m).assumingMemoryBound(to: GstMiniObject.self))
        }
        XCTAssertEqual(posted, [#"{"count-summary":{"found":{"PEAR":1},"missing":{"APPLE":1,"PEAR":1},"unexpected":{},"total":3,"found-total":1}}"#])
    }

    /// `exclude`: codes left out of the count by symbology or payload; the summary, asked for and at
    /// the end of the stream, reaches `arexport` as a JSON line of its own, in its place among the frames.
    func testExcludedCodesAreNotCountedAndTheSummaryReachesArexportAsALine() throws {
        let dir = temporaryPath("exclude-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "sku\nAPPLE\nTEST-1\n".write(toFile: dir + "/picklist.csv", atomically: true, encoding: .utf8)
        let json = ##"{"fade": 0, "list": {"file": "picklist.csv", "key": "sku", "##
            + ##""exclude": [{"symbology": "QR-Code"}, {"data": "^TEST-"}]}, "rules": []}"##
        try json.write(toFile: dir + "/style.json", atomically: true, encoding: .utf8)
        let lines = dir + "/out.jsonl"
        let h = OverlayHarness("aroverlay ! arexport location=\(lines)")
        h.set("style", dir + "/style.json")
        var qr = code("PLUM", id: 3, x: 220)
        qr.symbology = "QR-Code"
        _ = try XCTUnwrap(h.push(h.black, codes: [code("APPLE", id: 1, x: 20), code("TEST-1", id: 2, x: 120), qr], seconds: 0))
        let expected = #"{"count-summary":{"found":{"APPLE":1},"missing":{"TEST-1":1},"unexpected":{},"total":2,"found-total":1}}"#
        XCTAssertEqual(summary(h), expected, "TEST-1 (by its payload) and PLUM (a QR code) are not counted")
        _ = try XCTUnwrap(h.push(h.black, codes: [code("KIWI", id: 4, x: 20)], seconds: 0.04))
        XCTAssertTrue(gst_harness_push_event(h.h, gst_event_new_eos()) != 0)
        let written = try String(contentsOfFile: lines, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(written.count, 4, "\(written)")
        XCTAssertTrue(written[0].hasPrefix(#"{"frame":0,"#))
        XCTAssertEqual(written[1], expected, "asked for: sent with the next frame, before it")
        XCTAssertTrue(written[2].hasPrefix(#"{"frame":1,"#))
        XCTAssertEqual(written[3], #"{"count-summary":{"found":{"APPLE":1},"missing":{"TEST-1":1},"unexpected":{"KIWI":1},"total":2,"found-total":1}}"#)
    }

    func testWithoutAListThereIsNoCount() throws {
        let h = OverlayHarness("aroverlay")
        _ = try XCTUnwrap(h.push(h.black, codes: [code("APPLE", id: 1, x: 20)], seconds: 0))
        XCTAssertNil(summary(h))
        var reset = emit(h.element(), "reset-count", returning: AR_VALUE_BOOLEAN)
        XCTAssertFalse(g_value_get_boolean(&reset) != 0)
        g_value_unset(&reset)
    }
}
