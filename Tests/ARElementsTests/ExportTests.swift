import ARCore
import ARGst
import Foundation
import XCTest

final class ExportTests: XCTestCase {
    func testWritesOneParsableLinePerFrameWithEveryCode() throws {
        let path = temporaryPath("export.jsonl")
        var frames: [TestFrame] = []
        do {
            let h = Harness("arbarcodetrack ! arexport location=\(path)", caps: TestFrame(width: 320, height: 240).i420Caps)
            for i in 0..<4 {
                var f = TestFrame(width: 320, height: 240)
                f.addQR("https://shop.example/p/1001", x: 90 + Double(i) * 10, y: 120, module: 3)
                f.addQR("Grüße 日本", x: 240, y: 120, module: 3)
                frames.append(f)
                XCTAssertNotNil(h.process(f.i420, ptsNanoseconds: UInt64(i) * 40_000_000))
            }
            // Lines are flushed as written: readable before the element stops.
            let live = try String(contentsOfFile: path, encoding: .utf8)
            XCTAssertEqual(live.split(separator: "\n").count, 4)
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4)
        var ids: [String: UInt64] = [:]
        for (i, line) in lines.enumerated() {
            let record = try FrameRecord(jsonLine: line)
            XCTAssertEqual(record.frame, UInt64(i))
            XCTAssertEqual(record.ptsNanoseconds, UInt64(i) * 40_000_000)
            XCTAssertEqual(record.width, 320)
            XCTAssertEqual(record.height, 240)
            XCTAssertEqual(record.objects.count, 2)
            for o in record.objects {
                let text = String(decoding: o.payload, as: UTF8.self)
                let truth = try XCTUnwrap(frames[i].truth.first { $0.text == text }, "unexpected payload \(text)")
                assertQuad(o.quad, truth.quad, within: 2)
                XCTAssertEqual(o.symbology, "QR-Code")
                // Read on its turn (`redecode-interval`), followed by the image motion between.
                XCTAssertTrue([.detected, .tracked].contains(o.state), "\(o.state)")
                if let known = ids[text] { XCTAssertEqual(o.id, known) } else { ids[text] = o.id }
            }
            // Keys in the documented order.
            XCTAssertTrue(line.hasPrefix("{\"frame\":\(i),\"pts\":\(i * 40_000_000),\"width\":320,\"height\":240,\"objects\":[{\"id\":"))
        }
        XCTAssertEqual(Set(ids.keys), ["https://shop.example/p/1001", "Grüße 日本"])
    }

    func testALocatedRegionIsExportedWithItsClassQuadAndStateButNoData() throws {
        let path = temporaryPath("export-located.jsonl")
        do {
            let h = OverlayHarness("arexport location=\(path)")
            let read = code("hi", id: 2, quad: Quad(Rect(x: 10, y: 20, width: 40, height: 40)), state: .tracked)
            let located = BarcodeRegion(locatedClass: "1D", quad: Quad(Rect(x: 100, y: 50.5, width: 90, height: 30)))
            XCTAssertNotNil(h.push(h.black, codes: [read, located], seconds: 0.04))
        }
        let expected = #"{"frame":0,"pts":40000000,"width":320,"height":240,"objects":[{"id":2,"symbology":"QR-Code","data":"hi","quad":[[10,20],[50,20],[50,60],[10,60]],"state":"tracked","kind":"code"},{"id":0,"symbology":"1D","quad":[[100,50.5],[190,50.5],[190,80.5],[100,80.5]],"state":"located","kind":"code"}]}"#
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), expected + "\n")
    }

    func testMissingLocationFailsWithAClearError() {
        let error = runPipeline("videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! arexport ! fakesink")
        XCTAssertNotNil(error)
        XCTAssertTrue(error?.message.contains("location") ?? false, "\(String(describing: error))")
    }

    func testUnwritableLocationFailsNamingTheFile() {
        let error = runPipeline("videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! arexport location=/nonexistent-dir/x.jsonl ! fakesink")
        XCTAssertTrue(error?.message.contains("/nonexistent-dir/x.jsonl") ?? false, "\(String(describing: error))")
    }
}
