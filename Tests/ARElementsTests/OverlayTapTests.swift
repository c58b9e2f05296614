import ARBridge
import ARCore
import ARGst
import CGStreamer
import CGstCheck
import XCTest

/// What the `tapped` handler saw.
private final class TapLog {
    var taps: [(id: UInt64, data: String, x: Double, y: Double)] = []
}

private let tappedHandler: @convention(c) (UnsafeMutableRawPointer?, guint64, UnsafePointer<gchar>?, gdouble, gdouble,
                                          UnsafeMutableRawPointer?) -> Void = { _, id, data, x, y, user in
    Unmanaged<TapLog>.fromOpaque(user!).takeUnretainedValue().taps.append((UInt64(id), data.map { String(cString: $0) } ?? "", x, y))
}

final class OverlayTapTests: XCTestCase {
    private let left = BarcodeRegion(trackID: 3, symbology: "QR-Code", payload: Array("LEFT".utf8),
                                     quad: Quad(Rect(x: 40, y: 80, width: 60, height: 60)), state: .tracked, quality: 0)
    private let right = BarcodeRegion(trackID: 4, symbology: "QR-Code", payload: Array("RIGHT".utf8),
                                      quad: Quad(Rect(x: 200, y: 80, width: 60, height: 60)), state: .tracked, quality: 0)

    /// Sends a left-button press at (x, y) upstream from the harness's sink, as a video sink does.
    private func click(_ h: OverlayHarness, _ x: Double, _ y: Double) {
        XCTAssertTrue(gst_harness_push_upstream_event(h.h, gst_navigation_event_new_mouse_button_press(1, x, y, GST_NAVIGATION_MODIFIER_NONE)) != 0)
    }

    /// The `arbarcode-tapped` messages posted so far, as text.
    private func tappedMessages(_ bus: UnsafeMutablePointer<GstBus>) -> [String] {
        var out: [String] = []
        while let m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT) {
            if let s = gst_message_get_structure(m), String(cString: gst_structure_get_name(s)) == "arbarcode-tapped",
               let text = gst_structure_to_string(s) {
                out.append(String(cString: text))
                g_free(text)
            }
            gst_mini_object_unref(UnsafeMutableRawPointer(m).assumingMemoryBound(to: GstMiniObject.self))
        }
        return out
    }

    func testAClickOnACodeOrItsLabelTogglesItAndSaysWhichCode() throws {
        let h = OverlayHarness("aroverlay")
        let bus = gst_bus_new()!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        gst_element_set_bus(h.element(), bus)
        let log = TapLog()
        _ = g_signal_connect_data(UnsafeMutableRawPointer(h.element()), "tapped", unsafeBitCast(tappedHandler, to: GCallback.self),
                                  Unmanaged.passUnretained(log).toOpaque(), nil, GConnectFlags(rawValue: 0))
        _ = try XCTUnwrap(h.push(h.black, codes: [left, right], seconds: 0))
        // On the right code, then on nothing, then on the left code's label (drawn above it).
        click(h, 230, 110)
        click(h, 160, 200)
        click(h, 70, 70)
        XCTAssertEqual(log.taps.map(\.id), [4, 3])
        XCTAssertEqual(log.taps.map(\.data), ["RIGHT", "LEFT"])
        XCTAssertEqual(log.taps.first?.x, 230)
        let messages = tappedMessages(bus)
        XCTAssertEqual(messages.count, 2)
        XCTAssertTrue(messages[0].contains("track-id=(guint64)4") && messages[0].contains("expanded=(boolean)true"), messages[0])
        // Tapped again: collapsed.
        click(h, 230, 110)
        XCTAssertTrue(tappedMessages(bus).first?.contains("expanded=(boolean)false") ?? false)
    }

    func testTapOffIgnoresClicksAndSingleExpandedKeepsOneOpen() throws {
        let off = OverlayHarness("aroverlay tap=false")
        let offBus = gst_bus_new()!
        defer { gst_object_unref(UnsafeMutableRawPointer(offBus)) }
        gst_element_set_bus(off.element(), offBus)
        _ = try XCTUnwrap(off.push(off.black, codes: [left], seconds: 0))
        click(off, 70, 110)
        XCTAssertEqual(tappedMessages(offBus), [])

        let h = OverlayHarness("aroverlay single-expanded=true")
        let bus = gst_bus_new()!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        gst_element_set_bus(h.element(), bus)
        _ = try XCTUnwrap(h.push(h.black, codes: [left, right], seconds: 0))
        click(h, 70, 110)
        click(h, 230, 110)
        let messages = tappedMessages(bus)
        XCTAssertEqual(messages.count, 2)
        XCTAssertTrue(messages.allSatisfy { $0.contains("expanded=(boolean)true") })
        // The left one was collapsed by the second tap: tapping it opens it again.
        click(h, 70, 110)
        XCTAssertTrue(tappedMessages(bus).first?.contains("expanded=(boolean)true") ?? false)
    }

    func testATapSwitchesTheCodeToItsExpandedRulesOnTheNextFrame() throws {
        let h = OverlayHarness("aroverlay")
        // Collapsed: a green box; expanded: a red one (both over the code).
        h.set("style", ##"{"fade": 0, "rules": [{"when": {"expanded": false}, "overlays": [{"type": "box", "color": "#00ff00"}]},"##
              + ##"{"when": {"expanded": true}, "overlays": [{"type": "box", "color": "#ff0000"}]}]}"##)
        var image = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [left, right], seconds: 0)).bytes, width: h.width)
        XCTAssertEqual(image.rgb(70, 110).g, 255, "collapsed: green")
        click(h, 70, 110)
        image = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [left, right], seconds: 0.04)).bytes, width: h.width)
        XCTAssertTrue(image.isRed(70, 110), "the tapped code expanded: red")
        XCTAssertEqual(image.rgb(230, 110).g, 255, "the other one still collapsed")
        click(h, 70, 110)
        image = BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [left, right], seconds: 0.08)).bytes, width: h.width)
        XCTAssertEqual(image.rgb(70, 110).g, 255, "tapped again: collapsed")
    }

    /// With a `fade`, a change of level cross-fades: the far overlay fades out as the close one fades in.
    func testAChangeOfLevelCrossFades() throws {
        let h = OverlayHarness("aroverlay")
        h.set("style", ##"{"fade": 0.2, "rules": [{"when": {"max-area": 0.05}, "overlays": [{"type": "box", "color": "#00ff00"}]},"##
              + ##"{"when": {"min-area": 0.05}, "overlays": [{"type": "box", "color": "#ff0000"}]}]}"##)
        func centre(side: Double, at seconds: Double) throws -> (r: Int, g: Int, b: Int) {
            let code = BarcodeRegion(trackID: 9, symbology: "QR-Code", payload: Array("NEAR".utf8),
                                     quad: Quad(Rect(x: 160 - side / 2, y: 120 - side / 2, width: side, height: side)),
                                     state: .tracked, quality: 0)
            return BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [code], seconds: seconds)).bytes, width: h.width).rgb(160, 120)
        }
        // Far for 0.4 s (past the fade in), then close from 0.4 s on: 40 ms frames.
        for i in 0...10 { _ = try centre(side: 50, at: Double(i) * 0.04) }
        XCTAssertEqual(try centre(side: 50, at: 0.44).g, 255, "far: green")
        var reds: [Int] = [], greens: [Int] = []
        for i in 0...5 {
            let p = try centre(side: 64, at: 0.48 + Double(i) * 0.04)
            reds.append(p.r)
            greens.append(p.g)
        }
        // Green fades out and red in over 0.2 s, then red alone.
        XCTAssertEqual(greens.first, 255)
        XCTAssertEqual(reds.first, 0)
        XCTAssertTrue(reds[2] > 60 && reds[2] < 200 && greens[2] > 60 && greens[2] < 200, "half way: both, \(reds) \(greens)")
        XCTAssertEqual(reds, reds.sorted(), "red rises")
        XCTAssertEqual(greens, greens.sorted(by: >), "green falls")
        XCTAssertEqual(reds.last, 255)
        XCTAssertEqual(greens.last, 0)
    }

    func testOverlaysFollowTheCodesAreaWithoutFlickeringAtTheThreshold() throws {
        let h = OverlayHarness("aroverlay")
        // Far (under 5 % of the 320x240 frame): green; close: red.
        h.set("style", ##"{"fade": 0, "rules": [{"when": {"max-area": 0.05}, "overlays": [{"type": "box", "color": "#00ff00"}]},"##
              + ##"{"when": {"min-area": 0.05}, "overlays": [{"type": "box", "color": "#ff0000"}]}]}"##)
        func frame(side: Double, at seconds: Double) throws -> BGRxImage {
            let code = BarcodeRegion(trackID: 9, symbology: "QR-Code", payload: Array("NEAR".utf8),
                                     quad: Quad(Rect(x: 160 - side / 2, y: 120 - side / 2, width: side, height: side)),
                                     state: .tracked, quality: 0)
            return BGRxImage(bytes: try XCTUnwrap(h.push(h.black, codes: [code], seconds: seconds)).bytes, width: h.width)
        }
        XCTAssertEqual(try frame(side: 50, at: 0).rgb(160, 120).g, 255, "3.3 % of the frame: far")
        XCTAssertTrue(try frame(side: 64, at: 0.04).isRed(160, 120), "5.3 %: close")
        // 4.8 %: under the threshold, but within a quarter of the area the rules saw: still close.
        XCTAssertTrue(try frame(side: 61, at: 0.08).isRed(160, 120), "no flicker at the threshold")
        XCTAssertEqual(try frame(side: 50, at: 0.12).rgb(160, 120).g, 255, "far again")
    }
}
