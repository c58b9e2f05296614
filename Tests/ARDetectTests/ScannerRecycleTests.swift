import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

/// zbar's image scanner grows for as long as it lives, so `ZBarScanner` replaces it after a number
/// of scans; a replaced scanner reads exactly what the first one read.
final class ScannerRecycleTests: XCTestCase {
    private func scene() throws -> DetectScene {
        var scene = try DetectScene(width: 480, height: 200)
        try scene.add(try CodeMatrix.qr(text: "RECYCLE QR"), x: 90, y: 100, module: 4)
        try scene.add(try CodeMatrix.ean13("4006381333931"), x: 300, y: 60, module: 2)
        try scene.add(try CodeMatrix.code128("RECYCLE-128"), x: 300, y: 150, module: 2, barHeight: 40)
        return scene
    }

    private func scan(_ scanner: ZBarScanner, _ scene: DetectScene) -> [String] {
        scene.image.pixels.withUnsafeBytes { raw in
            let luma = LumaImage(base: raw.baseAddress!, width: scene.image.width, height: scene.image.height,
                                 stride: scene.image.width)
            return scanner.scan(luma).map { "\($0.type.rawValue) \($0.payload) \($0.points) \($0.quality)" }.sorted()
        }
    }

    func testScannerRecycledEveryThreeScansReadsEveryScanIdentically() throws {
        let scene = try scene()
        let scanner = try ZBarScanner(symbologies: try Symbology.parseList("qrcode,ean13,code128"), fresh: true,
                                      recycleScans: 3)
        let first = scan(scanner, scene)
        XCTAssertEqual(first.count, 3, "\(first)")
        for i in 2...10 {
            XCTAssertEqual(scan(scanner, scene), first, "scan \(i)")
        }
        // Fresh with an EAN decoder: a new scanner for every image.
        XCTAssertEqual(scanner.scannersMade, 10)

        let kept = try ZBarScanner(symbologies: try Symbology.parseList("qrcode,code128"), recycleScans: 3)
        let keptFirst = scan(kept, scene)
        XCTAssertEqual(keptFirst.count, 2, "\(keptFirst)")
        for i in 2...10 {
            XCTAssertEqual(scan(kept, scene), keptFirst, "scan \(i)")
        }
        // Scans 4, 7 and 10 start on a new scanner.
        XCTAssertEqual(kept.scannersMade, 3)
    }

    func testScannerIsRecycledByDefault() throws {
        let scanner = try ZBarScanner(symbologies: try Symbology.parseList("qrcode"))
        XCTAssertGreaterThan(scanner.recycleScans, 0)
        var tiny = try DetectScene(width: 16, height: 16)
        tiny.image.pixels[0] = 0
        for _ in 0...scanner.recycleScans { _ = scan(scanner, tiny) }
        XCTAssertEqual(scanner.scannersMade, 1)
        XCTAssertEqual(scanner.scansSinceRecycle, 1)
    }

    /// `renewScanner` (a detector's `reset`) starts zbar's scanner anew, its scans counted from 0:
    /// the next recycle comes as a new scanner's would.
    func testARenewedScannerCountsItsScansFromZero() throws {
        let scene = try scene()
        let scanner = try ZBarScanner(symbologies: try Symbology.parseList("qrcode,code128"), recycleScans: 3)
        let first = scan(scanner, scene)
        _ = scan(scanner, scene)
        scanner.renewScanner()
        XCTAssertEqual(scanner.scannersMade, 1)
        XCTAssertEqual(scanner.scansSinceRecycle, 0)
        for i in 1...3 { XCTAssertEqual(scan(scanner, scene), first, "scan \(i) after") }
        XCTAssertEqual(scanner.scannersMade, 1, "three scans on the renewed scanner")
        _ = scan(scanner, scene)
        XCTAssertEqual(scanner.scannersMade, 2)
    }
}
