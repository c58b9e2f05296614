import ARCodeGen
import ARCore
import ARDetect
import Foundation
import XCTest

/// Codes read by the detector's threads, in the order handed over.
private final class HandedOver: @unchecked Sendable {  // `codes` is guarded by `lock`.
    private let lock = NSLock()
    private var codes: [Detection] = []
    /// At each `firstDecodesEnded` call: the codes handed over by then.
    private var ends: [Int] = []

    func add(_ new: [Detection]) {
        lock.withLock { codes += new }
    }

    func end() {
        lock.withLock { ends.append(codes.count) }
    }

    var endedAfter: [Int] { lock.withLock { ends } }

    var all: [Detection] { lock.withLock { codes } }
}

/// `scan(…, early:)` hands over each located region's codes as its first decode reads them, for a
/// frame that cannot wait for the whole scan: only codes the scan reports, none of a tracked code.
/// On these frames the scan's result is the same as without it (a region cut at once may add codes).
final class EarlyCodesTests: XCTestCase {
    func testCodesHandedOverEarlyAreCodesTheScanReportsAndNotTrackedOnes() throws {
        let clip = try CodeClip(CodeClipOptions(width: 640, height: 360, seed: 1))
        let options = DetectorOptions(locate: .regions, threads: 2)
        let plain = try BarcodeDetector(options: options), early = try BarcodeDetector(options: options)
        var handedOver = 0, symbologies = Set<String>()
        for index in stride(from: 0, to: 40, by: 4) {
            let (image, truth) = clip.frame(at: index)
            // One code in three tracked: left to its re-decode, never handed over (a code read elsewhere is).
            let tracked = truth.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
            let skipping = tracked.map { KnownCode(quad: $0.quad) }
            image.withImage { luma in
                let box = HandedOver()
                let expected = plain.scan(luma, skipping: skipping, expecting: [], kinds: []).result
                let scanned = early.scan(luma, skipping: skipping, expecting: [], kinds: [], early: EarlyHandOver { box.add($0) }).result
                XCTAssertEqual(scanned.codes, expected.codes, "frame \(index): the same result")
                for code in box.all {
                    XCTAssertTrue(scanned.codes.contains {
                        $0.symbology == code.symbology && $0.payload == code.payload && $0.quad.contains(code.quad.center)
                    }, "frame \(index): \(code.text) handed over, not reported there")
                    XCTAssertFalse(skipping.contains { $0.quad.contains(code.quad.center) }, "frame \(index): \(code.text) is tracked")
                    symbologies.insert(code.symbology)
                }
                handedOver += box.all.count
            }
        }
        XCTAssertGreaterThan(handedOver, 10)
        XCTAssertTrue(symbologies.contains("QR-Code"), "\(symbologies)")
        XCTAssertTrue(symbologies.contains { !Detection.isSelfChecking(symbology: $0) }, "\(symbologies)")
    }

    /// The caller is told once per scan that the first decodes have ended, after the last code
    /// they hand over (a live frame's wait is measured to then: `DecodeWait`).
    func testTheFirstDecodesEndOnceAfterEveryCodeHandedOver() throws {
        let clip = try CodeClip(CodeClipOptions(width: 640, height: 360, seed: 3))
        let detector = try BarcodeDetector(options: DetectorOptions(locate: .regions, threads: 2))
        var handedOver = 0
        for index in stride(from: 0, to: 24, by: 4) {
            let (image, _) = clip.frame(at: index)
            let box = HandedOver()
            let scanned = image.withImage { luma in
                detector.scan(luma, skipping: [], expecting: [], kinds: [], early: EarlyHandOver(codes: { box.add($0) }, firstDecodesEnded: box.end)).result
            }
            XCTAssertEqual(box.endedAfter, [box.all.count], "frame \(index): once, after the \(box.all.count) codes handed over")
            XCTAssertFalse(scanned.codes.isEmpty, "frame \(index)")
            handedOver += box.all.count
        }
        XCTAssertGreaterThan(handedOver, 5)
    }

    /// Camera frames' crops where a Code 128 card lies in a region of codes merged side by side
    /// (camera seeds 31 and 7), read only by the region's pieces: handed over as the region's own
    /// decode ends, not after every region's (refining's cut, which hands over nothing).
    func testAMergedRegionsPiecesAreReadAndHandedOverWithTheRegion() throws {
        for (name, width, height, card) in [("merged-1d-codes-read.pgm", 1110, 380, "C128-31-8"),
                                            ("merged-1d-codes-tall.pgm", 820, 500, "C128-31-8"),
                                            ("merged-1d-region.pgm", 624, 476, "C128-7-5")] {
            let pixels = try fixture(name, width: width, height: height)
            let options = DetectorOptions(locate: .regions, threads: 2)
            let plain = try BarcodeDetector(options: options), early = try BarcodeDetector(options: options)
            let box = HandedOver()
            let (expected, scanned) = pixels.withUnsafeBytes { p in
                let luma = LumaImage(base: p.baseAddress!, width: width, height: height, stride: width)
                return (plain.scan(luma, skipping: [], expecting: [], kinds: []).result,
                        early.scan(luma, skipping: [], expecting: [], kinds: [], early: EarlyHandOver { box.add($0) }).result)
            }
            XCTAssertTrue(expected.codes.contains { $0.text == card }, "\(name): \(expected.codes.map(\.text))")
            XCTAssertEqual(scanned.codes, expected.codes, "\(name): the same result")
            XCTAssertTrue(box.all.contains { $0.text == card && $0.quality >= 2 }, "\(name): \(box.all.map { "\($0.text) q\($0.quality)" }) handed over")
            // A 1D reading on one group of lines may be replaced by a confirmed reading of the same code elsewhere on it.
            for code in box.all {
                let confirmed = Detection.isSelfChecking(symbology: code.symbology) || code.quality >= 2
                XCTAssertTrue(scanned.codes.contains {
                    $0.symbology == code.symbology && $0.payload == code.payload && (!confirmed || $0.quad.contains(code.quad.center))
                }, "\(name): \(code.text) handed over, not reported there")
            }
        }
    }
}
