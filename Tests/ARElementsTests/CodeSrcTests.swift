import ARCodeGen
import ARCore
import CGStreamer
import Foundation
import XCTest

final class CodeSrcTests: XCTestCase {
    func testCodeSourceWritesTheSameClipAndTruthForTheSameSeed() throws {
        var truths: [String] = []
        for k in 0..<2 {
            let truth = temporaryPath("truth-\(k).jsonl")
            XCTAssertNil(runPipeline("arcodesrc num-buffers=5 seed=9 codes=3 truth-location=\(truth) "
                                     + "! video/x-raw,format=I420,width=320,height=240 ! fakesink"))
            truths.append(try String(contentsOfFile: truth, encoding: .utf8))
        }
        XCTAssertEqual(truths[0], truths[1])
        let records = try truths[0].split(separator: "\n").map { try FrameRecord(jsonLine: String($0)) }
        XCTAssertEqual(records.map(\.frame), [0, 1, 2, 3, 4])
        XCTAssertEqual(records.first?.width, 320)
        XCTAssertTrue(records.allSatisfy { r in r.objects.allSatisfy { (1...3).contains($0.id) } })
    }

    func testCodeSourceCodesAreDecodedWhereTheTruthSaysTheyAre() throws {
        let truth = temporaryPath("truth-decoded.jsonl"), out = temporaryPath("decoded.jsonl")
        XCTAssertNil(runPipeline("arcodesrc num-buffers=1 seed=2 codes=2 kinds=qr code-size=0.3 perspective=0 enter-leave=false twins=false truth-location=\(truth) "
                                 + "! video/x-raw,format=GRAY8,width=640,height=480 ! arbarcodedetect ! arexport location=\(out) ! fakesink"))
        let expected = try FrameRecord(jsonLine: String(try String(contentsOfFile: truth, encoding: .utf8).split(separator: "\n")[0]))
        let found = try FrameRecord(jsonLine: String(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")[0]))
        XCTAssertEqual(Set(found.objects.map(\.payload)), Set(expected.objects.filter { $0.state == .detected }.map(\.payload)))
        for o in found.objects {
            let t = try XCTUnwrap(expected.objects.first { $0.payload == o.payload })
            assertQuad(o.quad, t.quad, within: 3)
        }
    }

    func testUnknownKindIsAClearError() {
        let error = runPipeline("arcodesrc num-buffers=1 kinds=qr,nope ! fakesink")
        XCTAssertTrue(error?.message.contains("unknown kind 'nope' (known: qrcode, ean13, code128)") ?? false, "\(String(describing: error))")
    }

    func testCapsAdvertiseTheSizesItCanMakeSoA9193WideFilterFailsNegotiation() throws {
        TestGst.setUp()
        let factory = try XCTUnwrap(gst_element_factory_find("arcodesrc"))
        defer { gst_object_unref(UnsafeMutableRawPointer(factory)) }
        let templates = gst_element_factory_get_static_pad_templates(factory)
        let template = try XCTUnwrap(templates?.pointee.data).assumingMemoryBound(to: GstStaticPadTemplate.self)
        let caps = try XCTUnwrap(gst_static_caps_get(&template.pointee.static_caps))
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self)) }
        let text = String(cString: gst_caps_to_string(caps))
        XCTAssertTrue(text.contains("width=(int)[ 16, 8192 ]") && text.contains("height=(int)[ 16, 8192 ]"), text)
        // Beyond the range: refused when linking (or negotiating), not by a late error of the clip renderer.
        for filter in ["width=8193,height=240", "width=320,height=15"] {
            let error = runPipeline("arcodesrc num-buffers=1 ! video/x-raw,\(filter) ! fakesink")
            XCTAssertTrue(error.map { $0.message.contains("can't handle caps") || $0.debug.contains("not-negotiated") } ?? false,
                          "\(filter): \(String(describing: error))")
            XCTAssertFalse(error?.message.contains("outside") ?? true, "\(filter): \(String(describing: error))")
        }
        XCTAssertNil(runPipeline("arcodesrc num-buffers=1 ! video/x-raw,width=8192,height=16 ! fakesink"))
    }

    func testKindsTakeTheDetectorsSymbologyNames() throws {
        // The same list works for arcodesrc kinds= and the detectors' symbologies=.
        let truth = temporaryPath("kinds-truth.jsonl")
        XCTAssertNil(runPipeline("arcodesrc num-buffers=1 seed=2 codes=3 kinds=qrcode,ean13,code128 enter-leave=false twins=false "
                                 + "truth-location=\(truth) ! arbarcodedetect symbologies=qrcode,ean13,code128 ! fakesink"))
        let record = try FrameRecord(jsonLine: try String(contentsOfFile: truth, encoding: .utf8).split(separator: "\n")[0].description)
        XCTAssertEqual(Set(record.objects.map(\.symbology)), ["QR-Code", "EAN-13", "CODE-128"])
    }

    func testPrerenderedClipReplaysTheSameFramesAndTruth() throws {
        var truths: [String] = [], frames: [String] = []
        for prerender in [false, true] {
            let truth = temporaryPath("truth-pre-\(prerender).jsonl"), out = temporaryPath("tracked-pre-\(prerender).jsonl")
            XCTAssertNil(runPipeline("arcodesrc num-buffers=4 seed=3 codes=3 prerender=\(prerender) truth-location=\(truth) "
                                     + "! video/x-raw,format=GRAY8,width=320,height=240 ! arbarcodetrack detect-mode=sync "
                                     + "! arexport location=\(out) ! fakesink"))
            truths.append(try String(contentsOfFile: truth, encoding: .utf8))
            frames.append(try String(contentsOfFile: out, encoding: .utf8))
        }
        XCTAssertEqual(truths[0], truths[1])
        XCTAssertEqual(frames[0], frames[1])
        XCTAssertEqual(truths[1].split(separator: "\n").count, 4)
    }

    func testPrerenderedClipWithCameraConditionsIsTheSameClip() throws {
        var truths: [String] = [], frames: [Data] = []
        for prerender in [false, true] {
            let truth = temporaryPath("truth-camera-\(prerender).jsonl"), raw = temporaryPath("frames-camera-\(prerender).raw")
            XCTAssertNil(runPipeline("arcodesrc num-buffers=4 seed=3 codes=3 shake=5 pan=40 exposure=0.02 background=texture "
                                     + "prerender=\(prerender) truth-location=\(truth) "
                                     + "! video/x-raw,format=GRAY8,width=320,height=240 ! filesink location=\(raw)"))
            truths.append(try String(contentsOfFile: truth, encoding: .utf8))
            frames.append(try Data(contentsOf: URL(fileURLWithPath: raw)))
        }
        XCTAssertEqual(truths[0], truths[1])
        XCTAssertEqual(frames[0].count, 4 * 320 * 240)
        XCTAssertTrue(frames[0] == frames[1], "prerendered frames differ")
    }

    func testPrerenderWithoutNumBuffersIsAClearError() {
        let error = runPipeline("arcodesrc prerender=true ! video/x-raw,width=320,height=240 ! fakesink")
        XCTAssertTrue(error?.message.contains("'prerender' needs 'num-buffers'") ?? false, "\(String(describing: error))")
    }

    // MARK: Photo cards

    /// Writes `image` as a PNG file (PGM through GStreamer's pnmdec and pngenc).
    private func writePNG(_ image: LumaPlane, to path: String) throws {
        let pgm = path + ".pgm"
        try Data(image.pgmFile()).write(to: URL(fileURLWithPath: pgm))
        XCTAssertNil(runPipeline("filesrc location=\(pgm) ! pnmdec ! videoconvert ! pngenc ! filesink location=\(path)"))
        try FileManager.default.removeItem(atPath: pgm)
    }

    /// A folder of its own: two QR photos with a .txt (CRLF) and a .bin beside them, one image in a
    /// `falsepositives` folder and one with no text file (both photos without codes).
    private func makePhotoFolder() throws -> String {
        let root = temporaryPath("photos-\(UUID().uuidString)")
        for folder in ["qrcode-1", "falsepositives-1", "misc"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        for (name, text) in [("a", "HELLO\r\nPHOTO"), ("b", "BINARY ONE")] {
            var image = try LumaPlane(validatingWidth: 90, height: 90, fill: 230)
            try CodeRenderer().render(try CodeMatrix.qr(text: text), placement: CodePlacement(center: Point(x: 45, y: 45), moduleSize: 3),
                                      into: &image)
            try writePNG(image, to: "\(root)/qrcode-1/\(name).png")
        }
        try Data("HELLO\r\nPHOTO".utf8).write(to: URL(fileURLWithPath: "\(root)/qrcode-1/a.txt"))
        try Data("BINARY ONE".utf8).write(to: URL(fileURLWithPath: "\(root)/qrcode-1/b.bin"))
        var stripes = try LumaPlane(validatingWidth: 80, height: 60, fill: 220)
        for y in 0..<60 { for x in 0..<80 where (x / 5) % 2 == 0 { stripes[x, y] = 25 } }
        try writePNG(stripes, to: "\(root)/falsepositives-1/c.png")
        try Data("NOT A CODE".utf8).write(to: URL(fileURLWithPath: "\(root)/falsepositives-1/c.txt"))
        try writePNG(try LumaPlane(validatingWidth: 50, height: 70, fill: 90), to: "\(root)/misc/d.png")
        return root
    }

    /// Each truth object of a JSON line as a dictionary (to see keys `FrameRecord` does not keep).
    private func objects(_ line: Substring) throws -> [[String: Any]] {
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try XCTUnwrap(root["objects"] as? [[String: Any]])
    }

    func testPhotoCardsCarryTheirTextAndACardOutlineAndDistractorsNoTruth() throws {
        let folder = try makePhotoFolder(), truth = temporaryPath("truth-photos.jsonl")
        XCTAssertNil(runPipeline("arcodesrc num-buffers=4 seed=5 codes=1 enter-leave=false photos=\(folder) photo-count=2 "
                                 + "distractors=2 truth-location=\(truth) ! video/x-raw,format=GRAY8,width=480,height=360 ! fakesink"))
        let lines = try String(contentsOfFile: truth, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 4)
        var cards: [String: String] = [:]
        for line in lines {
            _ = try FrameRecord(jsonLine: String(line))  // still the arexport schema
            for o in try objects(line) {
                let id = try XCTUnwrap(o["id"] as? Int)
                XCTAssertLessThanOrEqual(id, 3, "ids 4 and 5 would be the photos without codes: \(line)")
                if id == 1 {
                    XCTAssertNil(o["outline"], "generated codes keep their exact outline")
                } else {
                    XCTAssertEqual(o["outline"] as? String, "card")
                    XCTAssertEqual(o["symbology"] as? String, "QR-Code")
                    cards[String(id)] = o["data"] as? String
                }
            }
        }
        XCTAssertEqual(Set(cards.values), ["HELLO\nPHOTO", "BINARY ONE"])
    }

    func testMissingPhotoFolderFailsStartNamingThePath() {
        let missing = temporaryPath("no-such-photos")
        let error = runPipeline("arcodesrc num-buffers=1 photos=\(missing) photo-count=1 ! fakesink")
        XCTAssertTrue(error?.message.contains("'\(missing)'") ?? false, "\(String(describing: error))")
    }

    func testUnreadableImageFailsStartNamingIt() throws {
        let folder = temporaryPath("photos-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: folder + "/x.png"))
        try Data("X".utf8).write(to: URL(fileURLWithPath: folder + "/x.txt"))
        let error = runPipeline("arcodesrc num-buffers=1 photos=\(folder) photo-count=1 ! fakesink")
        XCTAssertTrue(error?.message.contains("'\(folder)/x.png'") ?? false, "\(String(describing: error))")
    }

    func testPhotoCountWithoutAFolderIsAClearError() {
        let error = runPipeline("arcodesrc num-buffers=1 distractors=1 ! fakesink")
        XCTAssertTrue(error?.message.contains("need 'photos'") ?? false, "\(String(describing: error))")
    }

    /// The one test on the shared corpus (../shared beside the repository, as in CI): real QR photos, .webp and .png.
    func testCorpusPhotoCardsCarryTheirFilesText() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("../shared/corpus/zxing-cpp-samples/qrcode-1").standardized.path
        XCTAssertTrue(FileManager.default.fileExists(atPath: root), "no corpus at \(root): the test command runs beside ../shared")
        let truth = temporaryPath("truth-corpus.jsonl")
        XCTAssertNil(runPipeline("arcodesrc num-buffers=2 seed=2 codes=0 enter-leave=false photos=\(root) photo-count=3 "
                                 + "truth-location=\(truth) ! video/x-raw,format=GRAY8,width=640,height=480 ! fakesink"))
        let texts = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasSuffix(".txt") && !$0.contains(".result.") }
            .map { try String(contentsOfFile: root + "/" + $0, encoding: .utf8).replacingOccurrences(of: "\r\n", with: "\n") }
        let line = try XCTUnwrap(try String(contentsOfFile: truth, encoding: .utf8).split(separator: "\n").first)
        let cards = try objects(line)
        XCTAssertFalse(cards.isEmpty)
        for o in cards {
            XCTAssertEqual(o["outline"] as? String, "card")
            XCTAssertTrue(texts.contains(o["data"] as? String ?? "?"), "\(o)")
        }
    }
}
