import ARRender
import Foundation
import XCTest

final class OverlayImageTests: XCTestCase {
    func testASmallPNGDecodesFromItsBytes() throws {
        let image = try OverlayImage(png: TestPNG.solid(width: 3, height: 2), path: "red.png")
        XCTAssertEqual(image.width, 3)
        XCTAssertEqual(image.height, 2)
    }

    func testAHugePNGIsRefusedFromItsHeaderWithItsSizeAndTheLimit() {
        // The header alone: nothing is decoded, so the refusal costs no memory.
        let png = TestPNG.header(width: 20000, height: 20000) + TestPNG.chunk("IDAT", [0x78, 0x01]) + TestPNG.chunk("IEND", [])
        XCTAssertThrowsError(try OverlayImage(png: png, path: "big.png")) { error in
            XCTAssertEqual("\(error)", "big.png: the PNG is 20000 × 20000 pixels; images up to 8192 pixels on a side and 16777216 "
                           + "pixels in all (4096 × 4096) are accepted: scale it down")
        }
        XCTAssertThrowsError(try OverlayImage(png: TestPNG.header(width: 8193, height: 1), path: "wide.png"))
        XCTAssertThrowsError(try OverlayImage(png: TestPNG.header(width: 4097, height: 4096), path: "many.png"))
    }

    func testAFileThatIsNotAPNGIsNamedSo() {
        XCTAssertThrowsError(try OverlayImage(png: Array("GIF89a, not a PNG at all".utf8), path: "x.png")) {
            XCTAssertEqual("\($0)", "x.png: not a PNG file")
        }
        let truncated = Array(TestPNG.solid(width: 4, height: 4).prefix(40))
        XCTAssertThrowsError(try OverlayImage(png: truncated, path: "cut.png")) {
            XCTAssertTrue("\($0)".hasPrefix("cut.png: not a readable PNG"), "\($0)")
        }
    }
}

/// Runs jobs only when the test says so.
final class ManualExecutor: ImageLoadExecutor, @unchecked Sendable {  // `jobs` is guarded by `lock`.
    private let lock = NSLock()
    private var jobs: [@Sendable () -> Void] = []

    func execute(_ job: @escaping @Sendable () -> Void) {
        lock.withLock { jobs.append(job) }
    }

    var pending: Int { lock.withLock { jobs.count } }

    /// Runs the jobs queued so far, in order, on this thread.
    func runPending() {
        let run = lock.withLock { () -> [@Sendable () -> Void] in
            defer { jobs.removeAll() }
            return jobs
        }
        for job in run { job() }
    }
}

final class ImageLoaderTests: XCTestCase {
    private let folder = NSTemporaryDirectory() + "arrender-images-\(UUID().uuidString)"

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/red.png", contents: Data(TestPNG.solid(width: 4, height: 2)))
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func testAnImageIsPendingUntilItsLoadRunsThenReady() {
        let executor = ManualExecutor()
        let loader = ImageLoader(executor: executor)
        let file = ImageFile(path: folder + "/red.png", confinedTo: folder)
        guard case .pending = loader.image(file) else { return XCTFail("not pending") }
        guard case .pending = loader.image(file) else { return XCTFail("not pending") }
        XCTAssertEqual(executor.pending, 1, "one load per file")
        executor.runPending()
        guard case .ready(let image) = loader.image(file) else { return XCTFail("not ready") }
        XCTAssertEqual(image.width, 4)
        XCTAssertEqual(executor.pending, 0)
    }

    func testAFailureIsKeptAndNotRetried() {
        let executor = ManualExecutor()
        let loader = ImageLoader(executor: executor)
        XCTAssertEqual(mkfifo(folder + "/fifo.png", 0o644), 0)
        let file = ImageFile(path: folder + "/fifo.png", confinedTo: folder)
        _ = loader.image(file)
        executor.runPending()
        guard case .failed(let why) = loader.image(file) else { return XCTFail("not failed") }
        XCTAssertTrue(why.contains("not a regular file (a FIFO)"), why)
        XCTAssertEqual(executor.pending, 0)
    }

    func testALoadStartedBeforeForgetAllStoresNothing() {
        let executor = ManualExecutor()
        let loader = ImageLoader(executor: executor)
        let file = ImageFile(path: folder + "/red.png")
        _ = loader.image(file)
        loader.forgetAll()
        executor.runPending()
        XCTAssertEqual(loader.loadedCount, 0)
        guard case .pending = loader.image(file) else { return XCTFail("not pending") }
        XCTAssertEqual(executor.pending, 1, "asked again after forgetAll")
    }

    func testLoadNowReadsOnTheCallersThread() throws {
        let executor = ManualExecutor()
        let loader = ImageLoader(executor: executor)
        let file = ImageFile(path: folder + "/red.png")
        XCTAssertEqual(try loader.loadNow(file).height, 2)
        guard case .ready = loader.image(file) else { return XCTFail("not ready") }
        XCTAssertEqual(executor.pending, 0)
        XCTAssertThrowsError(try loader.loadNow(ImageFile(path: folder + "/missing.png")))
    }

    func testTheBackgroundExecutorFinishesWhatWaitForPendingLoadsWaitsFor() {
        let loader = ImageLoader()
        let file = ImageFile(path: folder + "/red.png")
        _ = loader.image(file)
        BackgroundImageLoads.waitForPendingLoads()
        guard case .ready = loader.image(file) else { return XCTFail("not ready") }
    }
}

final class SVGImageTests: XCTestCase {
    func testAnSVGIsRenderedAtItsAspectWithItsLongestSideAtTheRasterSize() throws {
        let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect width="100" height="50" fill="red"/></svg>"#.utf8)
        let image = try OverlayImage(svg: svg, path: "wide.svg")
        XCTAssertEqual(image.width, OverlayImage.svgRasterSide)
        XCTAssertEqual(image.height, OverlayImage.svgRasterSide / 2)
    }

    func testABrokenSVGIsNamedSo() {
        XCTAssertThrowsError(try OverlayImage(svg: Array("<svg><unclosed".utf8), path: "bad.svg")) {
            XCTAssertTrue("\($0)".hasPrefix("bad.svg: not a readable SVG"), "\($0)")
        }
    }
}
