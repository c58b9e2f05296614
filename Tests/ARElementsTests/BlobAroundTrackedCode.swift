import ARCore
import ARDetect
import Foundation
import XCTest

/// A frame of a camera-like clip (`Tests/Fixtures/blob-around-tracked-code.pgm`, 700 × 720): a
/// blurred QR code half under a tracked Code 128 card, held by a blob of texture around both. With
/// `retryPassesEvery` 3 a detector decodes the blob on its turns only, counted in calls since the
/// detector was new or reset: calls 6 and 12 of 12 (`MergedRegionTests`). Tests of the detector's
/// memory use it.
struct BlobAroundTrackedCode {
    let plane: LumaPlane
    /// The card's outline, skipped as a tracked code.
    let tracked = KnownCode(quad: Quad(topLeft: Point(x: 203, y: 139), topRight: Point(x: 492, y: 190),
                                       bottomRight: Point(x: 493, y: 300), bottomLeft: Point(x: 164, y: 241)))
    let qr = "http://google.com/gwt/n?u=bluenile.com"
    /// Options that give the blob its turns.
    let options: DetectorOptions = {
        var video = DetectorOptions(locate: .regions, threads: 1)
        video.retryPassesEvery = 3
        return video
    }()

    init() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/blob-around-tracked-code.pgm")
        let pixels = Array(try Data(contentsOf: url).dropFirst("P5\n700 720\n255\n".utf8.count))
        XCTAssertEqual(pixels.count, 700 * 720)
        plane = LumaPlane(width: 700, height: 720, pixels: pixels)
    }

    /// What a new detector reads on each of its first `calls` calls.
    func newDetectorsReads(calls: Int = 12) -> [[String]] {
        (1...calls).map { $0 % 6 == 0 ? [qr] : [] }
    }
}
