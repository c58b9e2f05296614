import ARCore
import ARDetect
@testable import ARElements
import XCTest

/// The scan the decoding elements make when they start (`CodeDetectorStage.warmUp`).
final class WarmUpTests: XCTestCase {
    /// Its codes are read: the warm-up runs the locator and the 2D and 1D decoders through.
    func testTheWarmUpFramesCodesAreRead() throws {
        let detector = try BarcodeDetector(symbologies: Symbology.parseList("all"), options: DetectorOptions(locate: .regions, threads: 1))
        let codes = CodeDetectorStage.warmUpFrame().withImage { detector.detect($0) }
        XCTAssertEqual(Set(codes.map(\.text)), ["WARM-UP", "5901234123457"])
    }

    /// The warm-up leaves no memory behind: after it, a video's scans go as a new detector's
    /// (the blob's turns on calls 6 and 12, `BlobAroundTrackedCode`).
    func testAfterTheWarmUpScansGoAsANewDetectorsDo() throws {
        let fixture = try BlobAroundTrackedCode()
        let stage = try CodeDetectorStage(symbologies: nil, options: fixture.options)
        stage.warmUp()
        let reads = (1...12).map { _ in
            fixture.plane.withImage {
                stage.scan($0, skipping: [fixture.tracked], expecting: [], kinds: []).result.codes.map(\.text)
            }
        }
        XCTAssertEqual(reads, fixture.newDetectorsReads())
    }
}
