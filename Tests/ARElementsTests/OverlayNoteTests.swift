import ARBridge
import ARCore
import ARGst
import CGStreamer
import CGstCheck
import Foundation
import XCTest

/// Notes placed by a click: pinned to the scene, carried in the metadata, removed by a drag down.
final class OverlayNoteTests: XCTestCase {
    /// A textured scene (random grey blocks) larger than the 320 × 240 frame.
    private static let scene: [UInt8] = {
        var rng = UInt64(777)
        func next() -> UInt64 { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return rng >> 33 }
        let blocks = (0..<(160 * 50)).map { _ in UInt8(40 + next() % 180) }
        var px = [UInt8](repeating: 0, count: 960 * 300)
        for y in 0..<300 { for x in 0..<960 { px[y * 960 + x] = blocks[(y / 6) * 160 + x / 6] } }
        return px
    }()

    /// The frame whose top-left corner is at `(ox, oy)` of the scene, as I420.
    private func frame(_ ox: Int, _ oy: Int) -> [UInt8] {
        var f = TestFrame(width: 320, height: 240)
        for y in 0..<240 { for x in 0..<320 { f.image[x, y] = Self.scene[(y + oy) * 960 + x + ox] } }
        return f.i420
    }

    private func press(_ h: OverlayHarness, _ x: Double, _ y: Double, release: Bool = false) {
        let e = release ? gst_navigation_event_new_mouse_button_release(1, x, y, GST_NAVIGATION_MODIFIER_NONE)
                        : gst_navigation_event_new_mouse_button_press(1, x, y, GST_NAVIGATION_MODIFIER_NONE)
        XCTAssertTrue(gst_harness_push_upstream_event(h.h, e) != 0)
    }

    func testAClickPinsANoteThatFollowsThePanAndADragDownRemovesIt() throws {
        let path = temporaryPath("notes-\(UUID().uuidString).jsonl")
        let h = OverlayHarness("aroverlay ! arexport location=\(path)", format: "I420")
        // A pan right by 5 px a frame, with a shake of ±2 px; the click lands on frame 1's picture.
        let offsets = (0..<20).map { (100 + 5 * $0, 30 + [0, 2, -1, 1, -2][$0 % 5]) }
        let scenePoint = Point(x: 100 + 160, y: 30 + 120)
        for (i, (ox, oy)) in offsets.enumerated() {
            if i == 1 { press(h, scenePoint.x - Double(ox), scenePoint.y - Double(oy)) }
            _ = try XCTUnwrap(h.push(frame(ox, oy), codes: [], seconds: Double(i) / 25))
        }
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { try FrameRecord(jsonLine: String($0)) }
        XCTAssertEqual(lines.count, 20)
        XCTAssertTrue(lines[0].objects.isEmpty, "no note before the click")
        var errors: [Double] = []
        for (i, record) in lines.enumerated().dropFirst() {
            let notes = record.objects.filter { $0.kind == .note }
            XCTAssertEqual(notes.count, 1, "frame \(i)")
            guard let note = notes.first else { continue }
            XCTAssertEqual(note.id, 1)
            XCTAssertEqual(String(decoding: note.payload, as: UTF8.self), "Note 1")
            let expected = Point(x: scenePoint.x - Double(offsets[i].0), y: scenePoint.y - Double(offsets[i].1))
            errors.append(note.quad.center.distance(to: expected))
        }
        errors.sort()
        XCTAssertLessThanOrEqual(errors[errors.count / 2], 3, "median error on the scene point: \(errors)")
        // The JSON line of a note: its text and point.
        let line = try XCTUnwrap(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").last)
        XCTAssertTrue(line.contains(#""kind":"note","text":"Note 1","point":["#), String(line))

        // A drag down from the note's dot removes it.
        let last = try XCTUnwrap(lines.last?.objects.first { $0.kind == .note }).quad.center
        let (ox, oy) = offsets.last!
        press(h, last.x, last.y)
        press(h, last.x, last.y + 50, release: true)
        _ = try XCTUnwrap(h.push(frame(ox, oy), codes: [], seconds: 20.0 / 25))
        lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { try FrameRecord(jsonLine: String($0)) }
        XCTAssertEqual(lines.count, 21)
        XCTAssertTrue(lines[20].objects.isEmpty, "dragged down: removed")
    }

    func testActionsAddEditAndRemoveNotesAndANoteIsDrawnAtItsPoint() throws {
        let h = OverlayHarness("aroverlay")
        let overlay = h.element()
        let gtype = UnsafeMutableRawPointer(overlay).assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee.g_type
        func emit(_ name: String, _ values: [(inout GValue) -> Void], returning type: ArValueType) -> GValue {
            var args = [GValue](repeating: GValue(), count: values.count + 1)
            g_value_init(&args[0], gst_element_get_type())
            g_value_set_object(&args[0], UnsafeMutableRawPointer(overlay))
            for (i, set) in values.enumerated() { set(&args[i + 1]) }
            var result = GValue()
            g_value_init(&result, ar_value_gtype(type))
            g_signal_emitv(&args, g_signal_lookup(name, gtype), 0, &result)
            for i in args.indices { g_value_unset(&args[i]) }
            return result
        }
        func double(_ v: Double) -> (inout GValue) -> Void { { g_value_init(&$0, ar_value_gtype(AR_VALUE_DOUBLE)); g_value_set_double(&$0, v) } }
        func string(_ v: String) -> (inout GValue) -> Void { { g_value_init(&$0, ar_value_gtype(AR_VALUE_STRING)); g_value_set_string(&$0, v) } }
        func uint64(_ v: UInt64) -> (inout GValue) -> Void { { g_value_init(&$0, ar_value_gtype(AR_VALUE_UINT64)); g_value_set_uint64(&$0, guint64(v)) } }
        var added = emit("add-note", [double(160), double(150), string("Pallet 7")], returning: AR_VALUE_UINT64)
        let id = UInt64(g_value_get_uint64(&added))
        g_value_unset(&added)
        XCTAssertEqual(id, 1)
        var refused = emit("add-note", [double(.nan), double(10), string("nowhere")], returning: AR_VALUE_UINT64)
        XCTAssertEqual(g_value_get_uint64(&refused), 0, "a point that is not finite is refused")
        g_value_unset(&refused)
        var image = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [], seconds: 0)).bytes, width: h.width)
        let dot = image.rgb(160, 150)
        XCTAssertTrue(dot.r > 200 && dot.g > 150 && dot.b < 60, "a yellow dot on the point: \(dot)")
        XCTAssertTrue((120..<140).contains { y in (130..<190).contains { x in image.rgb(x, y).r > 200 && image.rgb(x, y).b > 200 } },
                      "white label text above it")
        var edited = emit("edit-note", [uint64(id), string("Pallet 8")], returning: AR_VALUE_BOOLEAN)
        XCTAssertTrue(g_value_get_boolean(&edited) != 0)
        g_value_unset(&edited)
        var removed = emit("remove-note", [uint64(id)], returning: AR_VALUE_BOOLEAN)
        XCTAssertTrue(g_value_get_boolean(&removed) != 0)
        g_value_unset(&removed)
        var again = emit("remove-note", [uint64(id)], returning: AR_VALUE_BOOLEAN)
        XCTAssertFalse(g_value_get_boolean(&again) != 0, "no such note any more")
        g_value_unset(&again)
        image = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [], seconds: 0.04)).bytes, width: h.width)
        XCTAssertEqual(image.rgb(160, 150).r, 0, "removed: not drawn")
    }
}
