import ARCore
import ARGst
import XCTest

final class OverlayTests: XCTestCase {
    /// BGRx pixel at (x, y).
    private func pixel(_ bytes: [UInt8], width: Int, x: Int, y: Int) -> (r: Int, g: Int, b: Int) {
        let i = (y * width + x) * 4
        return (Int(bytes[i + 2]), Int(bytes[i + 1]), Int(bytes[i]))
    }

    func testOutlineAndLabelAreDrawnAroundTheCode() throws {
        var f = TestFrame(width: 320, height: 240)
        f.addQR("DRAW ME", x: 160, y: 140, module: 4)
        let h = Harness("arbarcodetrack ! videoconvert ! video/x-raw,format=BGRx ! aroverlay", caps: f.i420Caps)
        let out = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0))
        let bytes = out.bytes
        XCTAssertEqual(bytes.count, 320 * 240 * 4)
        let q = f.truth[0].quad
        // Middle of each edge of the quad: outline green.
        let c = q.corners
        for i in 0..<4 {
            let m = (c[i] + c[(i + 1) % 4]) * 0.5
            let p = pixel(bytes, width: 320, x: Int(m.x.rounded()), y: Int(m.y.rounded()))
            XCTAssertGreaterThan(p.g, 200, "edge \(i) at \(m)")
            XCTAssertLessThan(p.r, 80, "edge \(i)")
            XCTAssertLessThan(p.b, 80, "edge \(i)")
        }
        // Label background (dark) centred above the code.
        let box = q.boundingBox
        var dark = 0
        for x in stride(from: Int(box.center.x) - 20, to: Int(box.center.x) + 20, by: 2) {
            let p = pixel(bytes, width: 320, x: x, y: Int(box.minY) - 8)
            if p.r < 120 && p.g < 120 && p.b < 120 { dark += 1 }
        }
        XCTAssertGreaterThan(dark, 10, "label background above the code")
        // Far from the code: background untouched (grey 200 in I420 is 212 in full-range RGB).
        let far = pixel(bytes, width: 320, x: 5, y: 235)
        XCTAssertEqual(far.g, 212, accuracy: 2)
        XCTAssertEqual(far.r, far.b)
    }

    func testOverlayDrawsIntoI420Frames() throws {
        var f = TestFrame(width: 320, height: 240)
        f.addQR("YUV", x: 160, y: 140, module: 4)
        let h = Harness("arbarcodetrack ! aroverlay", caps: f.i420Caps)
        let bytes = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0)).bytes
        let q = f.truth[0].quad
        let m = (q.topLeft + q.bottomLeft) * 0.5  // left edge midpoint
        let x = Int(m.x.rounded()), y = Int(m.y.rounded())
        // Green in BT.601: Y high-ish, U and V well below 128.
        let u = Int(bytes[320 * 240 + (y / 2) * 160 + x / 2])
        let v = Int(bytes[320 * 240 + 160 * 120 + (y / 2) * 160 + x / 2])
        XCTAssertLessThan(u, 100)
        XCTAssertLessThan(v, 100)
        XCTAssertEqual(Int(bytes[320 * 240 + 5]), 128, "chroma far from the code untouched")
    }

    func testNoCodesLeavesTheFrameUntouched() throws {
        let f = TestFrame(width: 160, height: 120)
        let h = Harness("arbarcodetrack ! aroverlay", caps: f.i420Caps)
        XCTAssertEqual(try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0)).bytes, f.i420)
    }
}

final class ScaledVideoTests: XCTestCase {
    func testCodesFollowTheVideoThroughAScaler() throws {
        var f = TestFrame(width: 320, height: 240)
        f.addQR("SCALED", x: 120, y: 100, module: 4)
        let h = Harness("arbarcodetrack ! videoscale ! video/x-raw,width=640,height=360 ! arexport location=\(temporaryPath("scaled.jsonl"))",
                        caps: f.i420Caps)
        let out = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0))
        let r = try XCTUnwrap(Buffer(out.pointer).barcodeRegions(frameWidth: 640, frameHeight: 360).first)
        XCTAssertEqual(r.text, "SCALED")
        assertQuad(r.quad, f.truth[0].quad.scaled(sx: 2, sy: 1.5), within: 3)
        let line = try String(contentsOfFile: temporaryPath("scaled.jsonl"), encoding: .utf8)
        let record = try FrameRecord(jsonLine: String(line.split(separator: "\n")[0]))
        XCTAssertEqual(record.width, 640)
        assertQuad(try XCTUnwrap(record.objects.first).quad, f.truth[0].quad.scaled(sx: 2, sy: 1.5), within: 3)
    }
}
