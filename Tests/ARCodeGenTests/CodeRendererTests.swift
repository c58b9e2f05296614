import ARCodeGen
import ARCore
import XCTest

final class CodeRendererTests: XCTestCase {
    private let hello = try! CodeMatrix.qr(text: "HELLO")

    private func assertQuad(_ q: Quad, _ expected: [(Double, Double)], accuracy: Double = 1e-9,
                            file: StaticString = #filePath, line: UInt = #line) {
        for (c, e) in zip(q.corners, expected) {
            XCTAssertEqual(c.x, e.0, accuracy: accuracy, file: file, line: line)
            XCTAssertEqual(c.y, e.1, accuracy: accuracy, file: file, line: line)
        }
    }

    func testAxisAlignedQRReturnsExactQuadAndPaintsModules() throws {
        var image = try LumaPlane(validatingWidth: 200, height: 200, fill: 128)
        let placement = CodePlacement(center: Point(x: 100, y: 100), moduleSize: 4)
        let quad = try CodeRenderer().render(hello, placement: placement, into: &image)
        // 21 modules × 4 px = 84 px, centred on 100.
        assertQuad(quad, [(58, 58), (142, 58), (142, 142), (58, 142)], accuracy: 0)
        XCTAssertLessThanOrEqual(image[59, 59], 30, "outer ring of the top-left finder is dark")
        XCTAssertLessThanOrEqual(image[71, 71], 30, "core of the top-left finder is dark")
        XCTAssertEqual(image[63, 63], 255, "light ring of the finder is white")
        XCTAssertEqual(image[45, 100], 255, "quiet zone is white")
        XCTAssertEqual(image[100, 154], 255, "quiet zone is white")
        XCTAssertEqual(image[30, 30], 128, "outside the quiet zone is untouched")
        XCTAssertEqual(image[41, 100], 128, "just outside the quiet zone is untouched")
        for my in 0..<21 {
            for mx in 0..<21 {
                let v = image[58 + 4 * mx + 2, 58 + 4 * my + 2]
                XCTAssertEqual(v, hello.isDark(x: mx, y: my) ? 20 : 255, "module (\(mx), \(my))")
            }
        }
    }

    func testRotating90DegreesPutsTheCodesTopLeftAtTheScreensTopRight() throws {
        var image = try LumaPlane(validatingWidth: 200, height: 200, fill: 128)
        let placement = CodePlacement(center: Point(x: 100, y: 100), moduleSize: 4, rotationDegrees: 90)
        let quad = try CodeRenderer().render(hello, placement: placement, into: &image)
        assertQuad(quad, [(142, 58), (142, 142), (58, 142), (58, 58)])
        XCTAssertGreaterThan(quad.signedArea, 0, "clockwise on screen")
        XCTAssertLessThanOrEqual(image[140, 59], 30, "code's top-left finder is now at the screen's top-right")
        // Module (mx, my) lands at screen module column 20 − my, row mx.
        for sy in 0..<21 {
            for sx in 0..<21 {
                let dark = image[58 + 4 * sx + 2, 58 + 4 * sy + 2] < 128
                XCTAssertEqual(dark, hello.isDark(x: sy, y: 20 - sx), "screen module (\(sx), \(sy))")
            }
        }
    }

    func testRendering90DegreesEqualsTheUprightRenderingRotated() throws {
        var upright = try LumaPlane(validatingWidth: 200, height: 200, fill: 128)
        var rotated = upright
        try CodeRenderer().render(hello, placement: CodePlacement(center: Point(x: 100, y: 100), moduleSize: 3.3),
                                  into: &upright)
        try CodeRenderer().render(hello, placement: CodePlacement(center: Point(x: 100, y: 100), moduleSize: 3.3,
                                                                  rotationDegrees: 90), into: &rotated)
        // Rotating pixel (x, y) clockwise by 90° about (100, 100) lands on pixel (199 − y, x).
        var mismatches = 0
        for y in 0..<200 { for x in 0..<200 where rotated[199 - y, x] != upright[x, y] { mismatches += 1 } }
        XCTAssertEqual(mismatches, 0)
    }

    func testEdgesAreAntiAliased() throws {
        var image = try LumaPlane(validatingWidth: 200, height: 200, fill: 128)
        // Module edges at half pixels: x = 100 − 10.5 × 3 = 68.5.
        try CodeRenderer().render(hello, placement: CodePlacement(center: Point(x: 100, y: 100), moduleSize: 3),
                                  into: &image)
        let v = Int(image[68, 80])
        XCTAssertTrue((120...150).contains(v), "half-covered edge pixel is mid-gray, got \(v)")
    }

    func testLinearCodeQuadSpansFirstToLastBarTimesBarHeight() throws {
        var image = try LumaPlane(validatingWidth: 300, height: 120, fill: 128)
        let ean = try CodeMatrix.ean13("4006381333931")
        let quad = try CodeRenderer().render(ean, placement: CodePlacement(center: Point(x: 150, y: 60), moduleSize: 2,
                                                                           barHeight: 50), into: &image)
        assertQuad(quad, [(55, 35), (245, 35), (245, 85), (55, 85)], accuracy: 0)
        XCTAssertLessThanOrEqual(image[55, 60], 30, "first bar starts at the quad's left edge")
        XCTAssertEqual(image[54, 60], 255, "quiet zone left of the first bar")
        XCTAssertEqual(image[150, 30], 255, "quiet zone above the bars")
    }

    func testRenderingOnlyTouchesPixelsInsideTheQuietZoneBoundingBox() throws {
        var image = try LumaPlane(validatingWidth: 300, height: 300, fill: 77)
        let placement = CodePlacement(center: Point(x: 150, y: 150), moduleSize: 3, rotationDegrees: 30, perspective: 0.2)
        try CodeRenderer().render(hello, placement: placement, into: &image)
        let box = try CodeRenderer.quietZoneQuad(of: hello, placement: placement).boundingBox
        var changedOutside = 0, changedInside = 0
        for y in 0..<300 {
            for x in 0..<300 where image[x, y] != 77 {
                let inside = Double(x) + 1 > box.minX && Double(x) < box.maxX && Double(y) + 1 > box.minY && Double(y) < box.maxY
                if inside { changedInside += 1 } else { changedOutside += 1 }
            }
        }
        XCTAssertEqual(changedOutside, 0)
        XCTAssertGreaterThan(changedInside, 1000)
    }

    func testKeystoneMakesTheTopEdgeLongerAndKeepsCornersClockwise() throws {
        let p = CodePlacement(center: Point(x: 100, y: 100), moduleSize: 4, perspective: 0.1)
        let q = try CodeRenderer.symbolQuad(of: hello, placement: p)
        let top = q.topLeft.distance(to: q.topRight), bottom = q.bottomLeft.distance(to: q.bottomRight)
        XCTAssertEqual(top / bottom, 1.1 / 0.9, accuracy: 1e-9)
        XCTAssertGreaterThan(q.signedArea, 0)
    }

    func testRotatedKeystonedModulesLandWhereTheProjectiveMapPutsThem() throws {
        var image = try LumaPlane(validatingWidth: 400, height: 400, fill: 128)
        let (ms, deg, p) = (8.0, 30.0, 0.2)
        let placement = CodePlacement(center: Point(x: 200, y: 200), moduleSize: ms, rotationDegrees: deg, perspective: p)
        let quad = try CodeRenderer().render(hello, placement: placement, into: &image)
        // Independent forward map: local (u, v) → (u, v) / (1 + k v) → rotate clockwise → + centre.
        let half = 10.5 * ms, k = p / half, t = deg * Double.pi / 180
        func screen(_ u: Double, _ v: Double) -> Point {
            let w = 1 + k * v, a = u / w, b = v / w
            return Point(x: 200 + a * cos(t) - b * sin(t), y: 200 + a * sin(t) + b * cos(t))
        }
        XCTAssertLessThan(quad.maxCornerDistance(to: Quad(topLeft: screen(-half, -half), topRight: screen(half, -half),
                                                         bottomRight: screen(half, half), bottomLeft: screen(-half, half))), 1e-9)
        for my in 0..<21 {
            for mx in 0..<21 {
                let c = screen((Double(mx) + 0.5) * ms - half, (Double(my) + 0.5) * ms - half)
                let v = image[Int(c.x), Int(c.y)]
                XCTAssertEqual(v, hello.isDark(x: mx, y: my) ? 20 : 255, "module (\(mx), \(my)) at \(c)")
            }
        }
    }

    func testBadPlacementsThrowAndLeaveTheImageUntouched() throws {
        var image = try LumaPlane(validatingWidth: 50, height: 50, fill: 9)
        let before = image
        let r = CodeRenderer()
        XCTAssertThrowsError(try r.render(hello, placement: CodePlacement(center: Point(x: 25, y: 25), moduleSize: 0), into: &image))
        XCTAssertThrowsError(try r.render(hello, placement: CodePlacement(center: Point(x: .nan, y: 25), moduleSize: 1), into: &image))
        XCTAssertThrowsError(try r.render(hello, placement: CodePlacement(center: Point(x: 25, y: 25), moduleSize: 1, perspective: 0.9),
                                          into: &image)) { error in
            XCTAssertEqual(error as? CodeGenError, .perspectiveTooStrong(0.9))
        }
        XCTAssertEqual(image, before)
    }

    func testCodesPartlyOutsideTheImageAreClipped() throws {
        var image = try LumaPlane(validatingWidth: 80, height: 80, fill: 128)
        let quad = try CodeRenderer().render(hello, placement: CodePlacement(center: Point(x: 0, y: 0), moduleSize: 4), into: &image)
        XCTAssertEqual(quad.topLeft, Point(x: -42, y: -42))
        XCTAssertEqual(quad.bottomRight, Point(x: 42, y: 42))
        XCTAssertEqual(image[41, 41], hello.isDark(x: 20, y: 20) ? 20 : 255, "code's bottom-right module is drawn")
        XCTAssertEqual(image[50, 50], 255, "quiet zone")
        XCTAssertEqual(image[70, 70], 128, "beyond the quiet zone")
    }
}
