import ARBridge
import ARGst
import CGStreamer
import XCTest

/// A filter asked (accept-caps) about a format its sink template never takes says so in a WARNING
/// naming the refused caps and the accepted ones.
final class RefusedCapsTests: XCTestCase {
    func testMessageNamesTheElementTheRefusedCapsAndTheAcceptedCaps() {
        let error = ElementError.refusedCaps(element: "det", caps: "video/x-raw, format=(string)GRAY16_LE",
                                             accepted: "video/x-raw, format=(string){ I420, NV12 }")
        XCTAssertEqual(error.message, "det cannot handle this video format: video/x-raw, format=(string)GRAY16_LE")
        XCTAssertEqual(error.debug, "accepted caps: video/x-raw, format=(string){ I420, NV12 }")
        XCTAssertEqual(error.code, Int32(GST_CORE_ERROR_NEGOTIATION.rawValue))
    }

    func testFormatOutsideTheTemplatePostsOneWarningNamingIt() throws {
        let probe = AcceptCapsProbe()
        defer { probe.close() }
        XCTAssertFalse(probe.accepts("video/x-raw,format=GRAY16_LE,width=64,height=48,framerate=30/1"))
        let warnings = probe.warnings()
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        let (text, debug) = try XCTUnwrap(warnings.first)
        XCTAssertTrue(text.hasPrefix("det cannot handle this video format: video/x-raw"), text)
        XCTAssertTrue(text.contains("GRAY16_LE"), text)
        XCTAssertTrue(debug.contains("accepted caps: video/x-raw"), debug)
        XCTAssertTrue(debug.contains("I420") && debug.contains("BGRx"), "lists the accepted formats: \(debug)")
    }

    func testAcceptedFormatPostsNothing() {
        let probe = AcceptCapsProbe()
        defer { probe.close() }
        XCTAssertTrue(probe.accepts("video/x-raw,format=I420,width=64,height=48,framerate=30/1"))
        XCTAssertTrue(probe.accepts("video/x-raw,format=BGRx,width=1,height=1,framerate=0/1"))
        XCTAssertEqual(probe.warnings().count, 0)
    }
}

/// arbarcodedetect named `det` on its own bus.
private final class AcceptCapsProbe {
    let element: UnsafeMutablePointer<GstElement>
    let bus: UnsafeMutablePointer<GstBus>

    init() {
        TestGst.setUp()
        element = gst_object_ref_sink(UnsafeMutableRawPointer(gst_element_factory_make("arbarcodedetect", "det")!))!
            .assumingMemoryBound(to: GstElement.self)
        bus = gst_bus_new()
        gst_element_set_bus(element, bus)
    }

    /// The sink pad's answer to an accept-caps query for `caps`.
    func accepts(_ caps: String) -> Bool {
        let pad = gst_element_get_static_pad(element, "sink")!
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        let parsed = gst_caps_from_string(caps)!
        defer { gst_caps_unref(parsed) }
        return gst_pad_query_accept_caps(pad, parsed) != 0
    }

    /// The WARNING messages posted so far: text and debug.
    func warnings() -> [(String, String)] {
        var found: [(String, String)] = []
        while let message = gst_bus_pop_filtered(bus, GST_MESSAGE_WARNING) {
            var error: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            gst_message_parse_warning(message, &error, &debug)
            found.append((String(cString: error!.pointee.message), debug.map { String(cString: $0) } ?? ""))
            g_error_free(error)
            g_free(debug)
            gst_mini_object_unref(UnsafeMutableRawPointer(message).assumingMemoryBound(to: GstMiniObject.self))
        }
        return found
    }

    func close() {
        gst_element_set_bus(element, nil)
        gst_object_unref(UnsafeMutableRawPointer(bus))
        gst_object_unref(UnsafeMutableRawPointer(element))
    }
}
