import ARCore
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
        XCTAssertTrue(error?.message.contains("unknown kind 'nope'") ?? false, "\(String(describing: error))")
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

    func testPrerenderWithoutNumBuffersIsAClearError() {
        let error = runPipeline("arcodesrc prerender=true ! video/x-raw,width=320,height=240 ! fakesink")
        XCTAssertTrue(error?.message.contains("'prerender' needs 'num-buffers'") ?? false, "\(String(describing: error))")
    }
}
