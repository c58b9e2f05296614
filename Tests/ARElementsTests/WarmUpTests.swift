import ARCore
import ARDetect
@testable import ARElements
import XCTest

/// The frame the decoding elements scan when they start (`CodeDetectorStage.warmUp`).
final class WarmUpTests: XCTestCase {
    /// Its codes are read: the warm-up runs the locator and the 2D and 1D decoders through.
    func testTheWarmUpFramesCodesAreRead() throws {
        let detector = try BarcodeDetector(symbologies: Symbology.parseList("all"), options: DetectorOptions(locate: .regions, threads: 1))
        let codes = CodeDetectorStage.warmUpFrame().withImage { detector.detect($0) }
        XCTAssertEqual(Set(codes.map(\.text)), ["WARM-UP", "5901234123457"])
    }
}
