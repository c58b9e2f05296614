import ARCore
import ARGst
import XCTest

final class BarcodeDetectTests: XCTestCase {
    func testQRCodeAtKnownPositionYieldsItsTextAndCorners() throws {
        var f = TestFrame(width: 320, height: 240)
        f.addQR("HELLO ARBARCODE", x: 150, y: 110, module: 4)
        let h = Harness("arbarcodedetect", caps: f.i420Caps)
        let out = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0))
        let regions = out.regions
        XCTAssertEqual(regions.count, 1)
        let r = try XCTUnwrap(regions.first)
        XCTAssertEqual(r.text, "HELLO ARBARCODE")
        XCTAssertEqual(r.symbology, "QR-Code")
        XCTAssertEqual(r.state, .detected)
        XCTAssertNil(r.trackID)
        assertQuad(r.quad, f.truth[0].quad, within: 2)
    }

    func testRotatedQRCodeReportsCornersFromItsOwnTopLeft() throws {
        for rotation in [90.0, 180.0, 270.0, 30.0] {
            var f = TestFrame(width: 320, height: 320)
            f.addQR("ROTATED", x: 160, y: 160, module: 5, rotation: rotation)
            let h = Harness("arbarcodedetect", caps: f.i420Caps)
            let r = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0)?.regions.first, "rotation \(rotation)")
            XCTAssertEqual(r.text, "ROTATED")
            assertQuad(r.quad, f.truth[0].quad, within: 2)
        }
    }

    func testDetectionIsAStandardRegionOfInterestMeta() throws {
        var f = TestFrame(width: 320, height: 240)
        f.addQR("ROI", x: 100, y: 100, module: 4)
        let h = Harness("arbarcodedetect", caps: f.i420Caps)
        let out = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0))
        let metas = out.roiMetas
        XCTAssertEqual(metas.count, 1)
        let box = f.truth[0].quad.boundingBox
        XCTAssertEqual(metas[0].type, "QR-Code")
        XCTAssertEqual(metas[0].id, -1)
        XCTAssertEqual(Double(metas[0].x), box.minX, accuracy: 2)
        XCTAssertEqual(Double(metas[0].y), box.minY, accuracy: 2)
        XCTAssertEqual(Double(metas[0].w), box.width, accuracy: 3)
        XCTAssertEqual(Double(metas[0].h), box.height, accuracy: 3)
    }

    func testBlankFrameHasNoDetections() throws {
        let f = TestFrame(width: 160, height: 120)
        let h = Harness("arbarcodedetect", caps: f.i420Caps)
        let out = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0))
        XCTAssertEqual(out.regions.count, 0)
        XCTAssertEqual(out.bytes, f.i420, "detection must not touch the pixels")
    }

    func testRestrictingSymbologiesSkipsOthers() throws {
        var f = TestFrame(width: 240, height: 240)
        f.addQR("ONLY QR", x: 120, y: 120, module: 4)
        let h = Harness("arbarcodedetect symbologies=ean13,code128", caps: f.i420Caps)
        XCTAssertEqual(try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0)).regions.count, 0)
        let h2 = Harness("arbarcodedetect symbologies=qrcode", caps: f.i420Caps)
        XCTAssertEqual(try XCTUnwrap(h2.process(f.i420, ptsNanoseconds: 0)).regions.map(\.text), ["ONLY QR"])
    }
}
