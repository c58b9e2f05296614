import ARCodeGen
import ARCore
import ARDetect
import XCTest

/// `scan(_:skipping:expecting:kinds:)` decodes the located regions and the tracked ones in the
/// same batches; what it reads must be what the two calls it stands for read.
final class CombinedScanTests: XCTestCase {
    func testAScanWithExpectedRegionsReadsWhatAScanThenARegionDecodeRead() throws {
        let clip = try CodeClip(CodeClipOptions(width: 640, height: 360, seed: 1))
        for locate in [LocateMode.regions, .auto] {
            let options = DetectorOptions(locate: locate, threads: 2)
            let apart = try BarcodeDetector(options: options), together = try BarcodeDetector(options: options)
            var expectedRead = 0
            for index in stride(from: 0, to: 40, by: 4) {
                let (image, truth) = clip.frame(at: index)
                // Half the codes tracked: left to their region decodes, the rest found anew.
                let tracked = truth.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
                let quads = tracked.map(\.quad)
                let kinds = tracked.map { $0.symbology == "QR-Code" ? LocatedRegion.Kind.matrix : .linear }
                image.withImage { luma in
                    let scanned = apart.scan(luma, skipping: quads)
                    let read = apart.detect(luma, in: quads, kinds: kinds)
                    let both = together.scan(luma, skipping: quads.map { KnownCode(quad: $0) }, expecting: quads, kinds: kinds)
                    XCTAssertEqual(both.result.codes, scanned.codes, "\(locate) frame \(index)")
                    XCTAssertEqual(both.result.located, scanned.located, "\(locate) frame \(index)")
                    XCTAssertEqual(both.expected, read, "\(locate) frame \(index)")
                    expectedRead += read.count
                }
            }
            XCTAssertGreaterThan(expectedRead, 10, "\(locate): the tracked codes were read")
        }
    }
}
