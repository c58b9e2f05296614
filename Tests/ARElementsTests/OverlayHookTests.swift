import ARBridge
import ARCore
import ARGst
import CGStreamer
import CGstCheck
import CPangoCairo
import Foundation
import XCTest

private let codeQuad = Quad(Rect(x: 100, y: 80, width: 60, height: 40))
private let greenBoxes = ##"{"fade": 0, "rules": [{"overlays": [{"type": "box", "color": "#00ff00"}]}]}"##

/// Track ids and event names the overlay signals reported.
private final class HookLog {
    var events: [String] = []
}

private let created: @convention(c) (UnsafeMutableRawPointer?, guint64, UnsafeMutablePointer<GstStructure>?, UnsafeMutableRawPointer?) -> Void = {
    _, id, _, data in Unmanaged<HookLog>.fromOpaque(data!).takeUnretainedValue().events.append("created \(id)")
}

private let removed: @convention(c) (UnsafeMutableRawPointer?, guint64, UnsafeMutablePointer<GstStructure>?, UnsafeMutableRawPointer?) -> Void = {
    _, id, _, data in Unmanaged<HookLog>.fromOpaque(data!).takeUnretainedValue().events.append("removed \(id)")
}

/// A `draw` handler: fills a 10 × 10 blue square at the code's first corner.
private let drawSquare: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<GstStructure>?, UnsafeMutableRawPointer?) -> Void = {
    _, cr, track, _ in
    let view = StructureView(track!)
    let q = view.doubles("quad")!
    let cairo = OpaquePointer(cr!)
    cairo_set_source_rgb(cairo, 0, 0, 1)
    cairo_rectangle(cairo, q[0], q[1], 10, 10)
    cairo_fill(cairo)
}

private func connect<F>(_ element: UnsafeMutablePointer<GstElement>, _ signal: String, _ handler: F, _ data: UnsafeMutableRawPointer?) {
    _ = g_signal_connect_data(UnsafeMutableRawPointer(element), signal, unsafeBitCast(handler, to: GCallback.self), data, nil,
                              GConnectFlags(rawValue: 0))
}

/// Emits an action signal with a uint64 and optionally a string; returns its boolean result.
private func emitAction(_ element: UnsafeMutablePointer<GstElement>, _ name: String, _ id: UInt64, _ json: String? = nil) -> Bool {
    let type = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee.g_type
    var args = [GValue(), GValue()]
    g_value_init(&args[0], gst_element_get_type())
    g_value_set_object(&args[0], UnsafeMutableRawPointer(element))
    g_value_init(&args[1], ar_value_gtype(AR_VALUE_UINT64))
    g_value_set_uint64(&args[1], guint64(id))
    if let json {
        args.append(GValue())
        g_value_init(&args[2], ar_value_gtype(AR_VALUE_STRING))
        g_value_set_string(&args[2], json)
    }
    var result = GValue()
    g_value_init(&result, ar_value_gtype(AR_VALUE_BOOLEAN))
    g_signal_emitv(&args, g_signal_lookup(name, type), 0, &result)
    for i in args.indices { g_value_unset(&args[i]) }
    return g_value_get_boolean(&result) != 0
}

final class OverlayHookTests: XCTestCase {
    func testSetOverlayReplacesTheStyleForThatTrackUntilCleared() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", greenBoxes)
        let codes = [code("A", id: 5, quad: codeQuad), code("B", id: 6, quad: codeQuad.translated(dx: 120, dy: 0))]
        XCTAssertTrue(emitAction(h.element(), "set-overlay", 5, ##"[{"type": "box", "color": "#ff0000"}]"##))
        var image = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: codes, seconds: 0)).bytes, width: 320)
        XCTAssertTrue(image.isRed(130, 100), "track 5: the application's overlay")
        XCTAssertEqual(image.rgb(250, 100).g, 255, "track 6: the style's")
        XCTAssertTrue(emitAction(h.element(), "clear-overlay", 5))
        XCTAssertFalse(emitAction(h.element(), "clear-overlay", 5), "nothing left to clear")
        image = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: codes, seconds: 0.04)).bytes, width: 320)
        XCTAssertEqual(image.rgb(130, 100).g, 255, "back to the style")
    }

    func testSetOverlayRefusesTracksThatAreGoneOrNeverCame() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", #"{"expiry": 0.5, "fade": 0, "rules": []}"#)
        // A track announced upstream before its first frame reaches the overlay is taken.
        XCTAssertTrue(emitAction(h.element(), "set-overlay", 5, "[]"))
        _ = try XCTUnwrap(h.push(h.black, codes: [code("A", id: 5, quad: codeQuad), code("B", id: 7, quad: codeQuad)], seconds: 0))
        XCTAssertTrue(emitAction(h.element(), "set-overlay", 7, "[]"), "on screen")
        XCTAssertFalse(emitAction(h.element(), "set-overlay", 6, "[]"), "below the highest id seen and never on screen")
        XCTAssertTrue(emitAction(h.element(), "set-overlay", 8, "[]"), "may still arrive")
        // Track 5 expires: gone, and its overlay with it.
        _ = try XCTUnwrap(h.push(h.black, codes: [code("B", id: 7, quad: codeQuad)], seconds: 1))
        XCTAssertFalse(emitAction(h.element(), "set-overlay", 5, "[]"), "gone")
        XCTAssertFalse(emitAction(h.element(), "clear-overlay", 5), "its overlay went with it")
        XCTAssertTrue(emitAction(h.element(), "clear-overlay", 7))
    }

    func testSetOverlayRefusesInvalidOverlays() {
        let h = OverlayHarness("aroverlay")
        XCTAssertFalse(emitAction(h.element(), "set-overlay", 1, ##"[{"type": "box", "anchor": "nowhere"}]"##))
    }

    func testDrawSignalPaintsOverTheCode() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", #"{"fade": 0, "rules": []}"#)
        connect(h.element(), "draw", drawSquare, nil)
        let image = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [code("A", quad: codeQuad)], seconds: 0)).bytes, width: 320)
        XCTAssertEqual(image.rgb(105, 85).b, 255)
        XCTAssertEqual(image.rgb(115, 95).b, 0, "only what the handler drew")
    }

    func testCreatedAndRemovedSignalsFollowTheOverlaysLife() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", #"{"expiry": 0.5, "fade": 0, "rules": []}"#)
        let log = HookLog()
        let data = Unmanaged.passUnretained(log).toOpaque()
        connect(h.element(), "overlay-created", created, data)
        connect(h.element(), "overlay-removed", removed, data)
        _ = h.push(h.black, codes: [code("A", id: 3, quad: codeQuad)], seconds: 0)
        _ = h.push(h.black, codes: [code("A", id: 3, quad: codeQuad)], seconds: 0.04)
        _ = h.push(h.black, codes: [], seconds: 0.5)
        XCTAssertEqual(log.events, ["created 3"])
        _ = h.push(h.black, codes: [], seconds: 0.6)
        XCTAssertEqual(log.events, ["created 3", "removed 3"])
    }

    /// A code its tracker keeps in view unread past the style's expiry (a followed track, see
    /// `follow-limit`) keeps its overlay, created once; lost, it is removed on that frame (no fade).
    func testATrackedCodeKeepsItsOverlayPastExpiryUntilItsTrackIsLost() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", ##"{"expiry": 0.5, "fade": 0, "rules": [{"overlays": [{"type": "box", "color": "#00ff00"}]}]}"##)
        let log = HookLog()
        let data = Unmanaged.passUnretained(log).toOpaque()
        connect(h.element(), "overlay-created", created, data)
        connect(h.element(), "overlay-removed", removed, data)
        _ = h.push(h.black, codes: [code("A", id: 3, quad: codeQuad)], seconds: 0)
        for i in 1...10 {
            let out = try XCTUnwrap(h.push(h.black, codes: [code("A", id: 3, quad: codeQuad, state: .tracked)], seconds: 0.1 * Double(i)))
            XCTAssertEqual(BGRxImage(bytes: out.bytes, width: 320).rgb(130, 100).g, 255, "\(0.1 * Double(i)) s: drawn")
        }
        XCTAssertEqual(log.events, ["created 3"])
        let lost = try XCTUnwrap(h.push(h.black, codes: [code("A", id: 3, quad: codeQuad, state: .lost)], seconds: 1.04))
        XCTAssertEqual(BGRxImage(bytes: lost.bytes, width: 320).rgb(130, 100).g, 0, "lost: not drawn")
        XCTAssertEqual(log.events, ["created 3", "removed 3"])
    }

    func testTheHintShowsOnlyWhileNoCodeIsTracked() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", #"{"fade": 0, "hint": "Point the camera at a code", "rules": []}"#)
        func lit(_ out: OutputBuffer?) -> Int {
            let image = BGRxImage(bytes: out!.bytes, width: 320)
            var n = 0
            for y in 180..<240 { for x in 0..<320 where image.rgb(x, y).g > 128 { n += 1 } }
            return n
        }
        XCTAssertGreaterThan(lit(h.push(h.black, codes: [], seconds: 0)), 100, "hint text near the bottom")
        XCTAssertEqual(lit(h.push(h.black, codes: [code("A", quad: codeQuad)], seconds: 0.04)), 0, "hidden once a code is tracked")
    }

    func testChangingTheStyleWhilePlayingTakesEffectOnTheNextFrame() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", greenBoxes)
        let c = [code("A", quad: codeQuad)]
        XCTAssertEqual(BGRxImage(bytes: h.push(h.black, codes: c, seconds: 0)!.bytes, width: 320).rgb(130, 100).g, 255)
        h.set("style", ##"{"fade": 0, "rules": [{"overlays": [{"type": "box", "color": "#ff0000"}]}]}"##)
        XCTAssertTrue(BGRxImage(bytes: h.push(h.black, codes: c, seconds: 0.04)!.bytes, width: 320).isRed(130, 100))
    }
}
