import ARCodeGen
import ARCore
import XCTest

final class SyntheticSceneTests: XCTestCase {
    func testSceneIsDeterministic() {
        let a = SyntheticScene.demo(width: 320, height: 240).frame(at: 17, fps: 30)
        let b = SyntheticScene.demo(width: 320, height: 240).frame(at: 17, fps: 30)
        XCTAssertEqual(a.image, b.image)
        XCTAssertEqual(a.truth.map(\.quad), b.truth.map(\.quad))
        XCTAssertEqual(a.truth.map(\.payload), b.truth.map(\.payload))
    }

    func testCodesMoveBetweenFrames() {
        let scene = SyntheticScene.demo(width: 320, height: 240)
        let a = scene.frame(at: 0, fps: 30), b = scene.frame(at: 30, fps: 30)
        XCTAssertNotEqual(a.image, b.image)
        for (qa, qb) in zip(a.truth, b.truth) { XCTAssertGreaterThan(qa.quad.maxCornerDistance(to: qb.quad), 1) }
    }

    func testDemoHasFourCodesWithExpectedPayloads() {
        let truth = SyntheticScene.demo().frame(at: 0, fps: 30).truth
        XCTAssertEqual(truth.map(\.symbology), ["QR-Code", "QR-Code", "EAN-13", "CODE-128"])
        XCTAssertEqual(truth.map { String(decoding: $0.payload, as: UTF8.self) },
                       ["https://shop.example/p/1001", "HELLO ARBARCODE", "4006381333931", "ARB-128-DEMO"])
    }

    func testCodesStayInsideTheFrame() throws {
        for (w, h) in [(640, 480), (320, 240), (1280, 720)] {
            let scene = SyntheticScene.demo(width: w, height: h)
            // Long enough for several bounces at these speeds.
            for index in stride(from: 0, to: 30 * 120, by: 7) {
                for (code, p) in zip(scene.codes, scene.placements(atTime: Double(index) / 30)) {
                    let box = try CodeRenderer.quietZoneQuad(of: code.matrix, placement: p).boundingBox
                    XCTAssertTrue(box.minX >= 0 && box.minY >= 0 && box.maxX <= Double(w) && box.maxY <= Double(h),
                                  "\(w)x\(h) frame \(index): \(box)")
                }
            }
        }
    }

    func testQRModulesAreAtLeastFourPixelsAt640x480() {
        let scene = SyntheticScene.demo(width: 640, height: 480)
        for (code, p) in zip(scene.codes, scene.placements(atTime: 0)) where code.symbology == "QR-Code" {
            XCTAssertGreaterThanOrEqual(p.moduleSize, 4)
        }
    }

    func testCodeThatCannotFitThrows() throws {
        let big = try SceneCode.qr("HELLO", placement: CodePlacement(center: Point(x: 50, y: 50), moduleSize: 10))
        XCTAssertThrowsError(try SyntheticScene(width: 100, height: 100, codes: [big])) { error in
            XCTAssertEqual(error as? CodeGenError, .codeDoesNotFit(index: 0))
        }
    }

    func testBounceReflectsAtTheEnds() throws {
        let code = try SceneCode.qr("HELLO", placement: CodePlacement(center: Point(x: 100, y: 100), moduleSize: 2),
                                    velocity: Point(x: 100, y: 0))
        let scene = try SyntheticScene(width: 200, height: 200, codes: [code])
        // Quiet-zone half width 29 px + 0.5 slack: x travels in [29.5, 170.5].
        XCTAssertEqual(scene.placements(atTime: 0.5)[0].center.x, 150, accuracy: 1e-9)
        XCTAssertEqual(scene.placements(atTime: 1.0)[0].center.x, 141, accuracy: 1e-9)
        XCTAssertEqual(scene.placements(atTime: 1.0)[0].center.y, 100, accuracy: 1e-9)
    }
}
