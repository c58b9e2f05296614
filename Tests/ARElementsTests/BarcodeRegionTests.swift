import ARCore
import ARGst
import CGStreamer
import XCTest

/// A read code and a region seen but not read, as a producer attaches them side by side.
private let readCode = BarcodeRegion(trackID: 4, symbology: "QR-Code", payload: Array("READ".utf8),
                                     quad: Quad(Rect(x: 20, y: 30, width: 50, height: 50)), state: .tracked, quality: 3)
private let locatedRegion = BarcodeRegion(trackID: nil, symbology: "2D", payload: [],
                                          quad: Quad(topLeft: Point(x: 150, y: 60), topRight: Point(x: 210, y: 64),
                                                     bottomRight: Point(x: 206, y: 124), bottomLeft: Point(x: 146, y: 120)),
                                          state: .located, quality: 0)

final class BarcodeRegionTests: XCTestCase {
    private func bufferWithRegions() -> UnsafeMutablePointer<GstBuffer> {
        TestGst.setUp()
        let buffer = gst_buffer_new()!
        Buffer(buffer).setBarcodeRegions([readCode, locatedRegion], frameWidth: 320, frameHeight: 240)
        return buffer
    }

    private func unref(_ buffer: UnsafeMutablePointer<GstBuffer>) {
        gst_mini_object_unref(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self))
    }

    /// A partial 1D outline at the frame's edge keeps its marks through the metas (`outline-complete`
    /// false and `at-frame-edge` true, each written only then).
    func testAPartialOutlineRoundTripsThroughThePerFrameMeta() throws {
        TestGst.setUp()
        var partial = BarcodeRegion(trackID: nil, symbology: "EAN-13", payload: Array("4006381333931".utf8),
                                    quad: Quad(Rect(x: 0, y: 30, width: 90, height: 40)), state: .detected, quality: 4)
        partial.outlineComplete = false
        partial.atFrameEdge = true
        let buffer = gst_buffer_new()!
        defer { unref(buffer) }
        Buffer(buffer).setBarcodeRegions([partial, readCode], frameWidth: 320, frameHeight: 240)
        let back = Buffer(buffer).barcodeRegions(frameWidth: 320, frameHeight: 240)
        XCTAssertEqual(back.map(\.outlineComplete), [false, true])
        XCTAssertEqual(back.map(\.atFrameEdge), [true, false])
        let custom = try XCTUnwrap(gst_buffer_get_custom_meta(buffer, BarcodeRegion.metaName))
        let codes = StructureView(try XCTUnwrap(gst_custom_meta_get_structure(custom))).structures("codes")
        XCTAssertEqual(codes[0].bool("outline-complete"), false)
        XCTAssertEqual(codes[0].bool("at-frame-edge"), true)
        XCTAssertFalse(codes[1].has("outline-complete"), "a whole outline: no field")
        XCTAssertFalse(codes[1].has("at-frame-edge"), "clear of the edge: no field")
    }

    func testTheLocatedConvenienceInitialiserMatchesTheProducersForm() {
        XCTAssertEqual(BarcodeRegion(locatedClass: "2D", quad: locatedRegion.quad), locatedRegion)
    }

    func testALocatedRegionRoundTripsThroughThePerFrameMeta() throws {
        let buffer = bufferWithRegions()
        defer { unref(buffer) }
        XCTAssertEqual(Buffer(buffer).barcodeRegions(frameWidth: 320, frameHeight: 240), [readCode, locatedRegion])
        let custom = try XCTUnwrap(gst_buffer_get_custom_meta(buffer, BarcodeRegion.metaName))
        let codes = StructureView(try XCTUnwrap(gst_custom_meta_get_structure(custom))).structures("codes")
        XCTAssertEqual(codes.count, 2)
        XCTAssertEqual(codes[1].string("state"), "located")
        XCTAssertEqual(codes[1].string("symbology"), "2D")
        XCTAssertEqual(codes[1].doubles("quad"), [150, 60, 210, 64, 206, 124, 146, 120])
        XCTAssertFalse(codes[1].has("data"), "a located region has no data")
        XCTAssertFalse(codes[1].has("payload"), "a located region has no payload")
        XCTAssertFalse(codes[1].has("track-id"), "a located region has no track id")
        XCTAssertTrue(codes[0].has("data"), "read codes keep their fields")
        XCTAssertTrue(codes[0].has("payload"))
    }

    func testALocatedRegionRoundTripsThroughTheROIMeta() throws {
        let buffer = bufferWithRegions()
        defer { unref(buffer) }
        // Without the per-frame meta (e.g. a scaler in between), readers fall back on the ROI metas.
        let custom = try XCTUnwrap(gst_buffer_get_custom_meta(buffer, BarcodeRegion.metaName))
        _ = custom.withMemoryRebound(to: GstMeta.self, capacity: 1) { gst_buffer_remove_meta(buffer, $0) }
        XCTAssertEqual(Buffer(buffer).barcodeRegions(frameWidth: 320, frameHeight: 240), [readCode, locatedRegion])

        var rois: [(type: String, id: Int32, params: StructureView)] = []
        var state: gpointer? = nil
        while let m = gst_buffer_iterate_meta_filtered(buffer, &state, gst_video_region_of_interest_meta_api_get_type()) {
            let roi = UnsafeMutableRawPointer(m).assumingMemoryBound(to: GstVideoRegionOfInterestMeta.self)
            let params = try XCTUnwrap(gst_video_region_of_interest_meta_get_param(roi, BarcodeRegion.paramsName))
            rois.append((String(cString: g_quark_to_string(roi.pointee.roi_type)), roi.pointee.id, StructureView(params)))
            if roi.pointee.id == -1 {
                XCTAssertEqual([roi.pointee.x, roi.pointee.y, roi.pointee.w, roi.pointee.h], [146, 60, 64, 64], "bounding box")
            }
        }
        XCTAssertEqual(rois.map(\.type), ["QR-Code", "2D"])
        XCTAssertEqual(rois.map(\.id), [4, -1])
        let located = rois[1].params
        XCTAssertEqual(located.string("state"), "located")
        XCTAssertEqual(located.string("symbology"), "2D")
        XCTAssertEqual(located.doubles("quad")?.count, 8)
        XCTAssertFalse(located.has("data"))
        XCTAssertFalse(located.has("payload"))
    }
}
