import ARCodeGen
import ARCore
import ARGst
import XCTest

/// The detector inside the elements: thread count, the async worker, located regions, photos without codes.
final class DetectorElementTests: XCTestCase {
    private let frameNs: UInt64 = 33_333_333

    func testSyncOutputIsTheSameWithOneAndFourThreads() throws {
        try assertSameOutputWithOneAndFourThreads(frames: 20, source: "", track: "")
    }

    /// QR codes alone: zbar's QR reader draws from a random generator that lives as long as its
    /// scanner, so which decoder thread read a code before would change the corners.
    func testSyncOutputOfQRCodesIsTheSameWithOneAndFourThreads() throws {
        try assertSameOutputWithOneAndFourThreads(frames: 30, source: "kinds=qrcode", track: "symbologies=qrcode redecode-interval=1")
    }

    private func assertSameOutputWithOneAndFourThreads(frames: Int, source: String, track: String, file: StaticString = #filePath,
                                                        line: UInt = #line) throws {
        var runs: [String] = []
        for threads in [1, 4] {
            let path = temporaryPath("threads-\(threads).jsonl")
            XCTAssertNil(runPipeline("arcodesrc num-buffers=\(frames) seed=5 codes=6 \(source) ! video/x-raw,format=GRAY8,width=640,height=480 "
                                     + "! arbarcodetrack detect-mode=sync threads=\(threads) \(track) ! arexport location=\(path) ! fakesink"),
                         file: file, line: line)
            runs.append(try String(contentsOfFile: path, encoding: .utf8))
        }
        XCTAssertEqual(runs[0], runs[1], file: file, line: line)
        let records = try runs[0].split(separator: "\n").map { try FrameRecord(jsonLine: String($0)) }
        XCTAssertEqual(records.count, frames, file: file, line: line)
        XCTAssertGreaterThanOrEqual(Set(records.flatMap { $0.objects.map(\.id) }).count, 3, "codes are tracked", file: file, line: line)
    }

    /// `arbarcodedetect ! artrack` tracks the outlines `arbarcodetrack` tracks: 1D outlines fitted
    /// edge by edge in both, partial ones marked (`outline-complete`) so the tracker does not shrink to them.
    /// The clip's pair of twins (one EAN-13 payload on two codes) is left out: `arbarcodetrack`'s
    /// re-decodes of the second twin fit outlines that drift off it (up to 23 px at frame 12, alike
    /// in stop 49's build; a known defect, see Identity in the README), where `artrack` now keeps
    /// to the code (a partial reading no longer moves a followed track).
    func testDetectThenTrackGivesTheOutlinesOfArbarcodetrack() throws {
        func run(_ middle: String) throws -> [FrameRecord] {
            let path = temporaryPath("outlines-\(UUID().uuidString).jsonl")
            XCTAssertNil(runPipeline("arcodesrc num-buffers=60 seed=5 codes=4 kinds=ean13,code128 ! video/x-raw,format=GRAY8,width=640,height=480 "
                                     + "! \(middle) ! arexport location=\(path) ! fakesink"))
            return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { try FrameRecord(jsonLine: String($0)) }
        }
        let split = try run("arbarcodedetect locate=regions ! artrack"), together = try run("arbarcodetrack detect-mode=sync")
        XCTAssertEqual(split.count, 60)
        var distances: [Double] = []
        for (a, b) in zip(split, together) {
            let twins = Set(b.objects.map(\.payload).filter { p in b.objects.filter { $0.payload == p }.count > 1 })
            for oa in a.objects where oa.state == .detected && !twins.contains(oa.payload) {
                // The same code read on the same frame by both (twins: the one at the same place).
                for ob in b.objects where ob.state == .detected && ob.payload == oa.payload
                    && ob.quad.center.distance(to: oa.quad.center) < 20 {
                    distances.append(oa.quad.maxCornerDistance(to: ob.quad))
                }
            }
        }
        XCTAssertGreaterThanOrEqual(distances.count, 20, "codes read by both on the same frames")
        XCTAssertLessThanOrEqual(distances.max() ?? .infinity, 1.5, "\(distances.sorted())")
    }

    func testAsyncModeReportsACodePresentFromTheFirstFrame() throws {
        let h = Harness("arbarcodetrack detect-mode=async", caps: TestFrame(width: 320, height: 240).i420Caps)
        var f = TestFrame(width: 320, height: 240)
        f.addQR("FROM FRAME 0", x: 160, y: 120, module: 4)
        var reportedAt: Int?
        // The worker runs on its own thread: frames keep coming until its result is carried onto one.
        // The bound only stops a worker that never delivers (about 10 s), it measures nothing.
        for i in 0..<500 {
            let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: UInt64(i) * frameNs)).regions
            if regions.contains(where: { $0.text == "FROM FRAME 0" && $0.trackID == 1 }) { reportedAt = i; break }
            usleep(20_000)
        }
        XCTAssertNotNil(reportedAt, "the worker's full scan never reached a frame")
    }

    /// An EAN-13 whose middle bars are damaged top to bottom: a code is there, no pass reads it.
    private func damagedCodeFrame() throws -> TestFrame {
        let good = try CodeMatrix.ean13("4006381333931")
        var modules: [Bool] = []
        for x in 0..<good.width { modules.append((40...52).contains(x) ? x % 3 == 0 : good.isDark(x: x, y: 0)) }
        let damaged = try CodeMatrix(width: good.width, height: 1, modules: modules, quietZoneModules: 10, symbology: "EAN-13")
        var f = TestFrame(width: 400, height: 300)
        f.truth.append(("", try CodeRenderer().render(damaged, placement: CodePlacement(center: Point(x: 200, y: 150), moduleSize: 2,
                                                                                         rotationDegrees: 15, barHeight: 60),
                                                       into: &f.image)))
        return f
    }

    func testLocatedRegionsReachTheMetaAndJSONLines() throws {
        let f = try damagedCodeFrame()
        let path = temporaryPath("located.jsonl")
        let h = Harness("arbarcodetrack detect-mode=sync ! arexport location=\(path)", caps: f.i420Caps)
        let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0)).regions
        XCTAssertEqual(regions.map(\.state), [.located])
        XCTAssertEqual(regions.map(\.symbology), ["1D"])
        XCTAssertNil(regions.first?.trackID)
        XCTAssertTrue(regions.first?.quad.contains(f.truth[0].quad.center) ?? false)
        _ = h.process(f.i420, ptsNanoseconds: frameNs)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        guard let line = lines.first else { return XCTFail("no JSON line") }
        let first = try FrameRecord(jsonLine: String(line))
        XCTAssertEqual(first.objects.map(\.state), [.located])
        XCTAssertTrue(line.contains("\"symbology\":\"1D\""), String(line))
        XCTAssertFalse(line.contains("\"data\""), String(line))
    }

    func testArbarcodedetectReportsLocatedRegionsToo() throws {
        let f = try damagedCodeFrame()
        let h = Harness("arbarcodedetect", caps: f.i420Caps)
        let regions = try XCTUnwrap(h.process(f.i420, ptsNanoseconds: 0)).regions
        XCTAssertEqual(regions.map(\.state), [.located])
    }

    func testPhotosWithoutCodesGiveNoCodeAndNoLocatedRegion() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("../shared/corpus/zxing-cpp-samples/falsepositives-1").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix(".txt") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, 10, "the corpus's photos without codes, beside the repository as in CI")
        var reported: [String] = []
        for name in files {
            let path = temporaryPath("fp-\(name).jsonl")
            XCTAssertNil(runPipeline("filesrc location=\"\(folder.appendingPathComponent(name).path)\" ! decodebin ! videoconvert "
                                     + "! video/x-raw,format=I420 ! arbarcodedetect ! arexport location=\(path) ! fakesink"), name)
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if text.contains("\"state\"") { reported.append(name) }
        }
        XCTAssertEqual(reported, [], "codes or located regions on photos without codes")
    }
}
