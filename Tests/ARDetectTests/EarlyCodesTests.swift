import ARCodeGen
import ARCore
import ARDetect
import Foundation
import XCTest

/// Codes read by the detector's threads, in the order handed over.
private final class HandedOver: @unchecked Sendable {  // `codes` is guarded by `lock`.
    private let lock = NSLock()
    private var codes: [Detection] = []

    func add(_ new: [Detection]) {
        lock.withLock { codes += new }
    }

    var all: [Detection] { lock.withLock { codes } }
}

/// `scan(…, early:)` hands over each located region's codes as its first decode reads them, for a
/// frame that cannot wait for the whole scan: only codes the scan reports, none of a tracked code,
/// and the scan's result is the same as without it.
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
                let scanned = early.scan(luma, skipping: skipping, expecting: [], kinds: [], early: { box.add($0) }).result
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
}
