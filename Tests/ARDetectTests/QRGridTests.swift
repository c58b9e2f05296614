import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

final class QRGridTests: XCTestCase {
    private func withLuma<T>(_ scene: DetectScene, _ body: (LumaImage) throws -> T) rethrows -> T {
        try scene.image.pixels.withUnsafeBytes {
            try body(LumaImage(base: $0.baseAddress!, width: scene.image.width, height: scene.image.height, stride: scene.image.width))
        }
    }

    /// The grid of a code seen from the front, from its finder patterns as the localizer finds them.
    private func grid(_ scene: DetectScene, _ what: String = "") throws -> QRGrid {
        try withLuma(scene) { luma in
            let finders = FinderPattern.find(in: luma, box: Rect(x: 0, y: 0, width: Double(luma.width), height: Double(luma.height)))
            let codes = FinderPattern.qrCodes(finders, in: luma)
            XCTAssertEqual(codes.count, 1, what)
            let f = try XCTUnwrap(codes.first, what).finders
            return try XCTUnwrap(QRGrid.measure(f, in: luma), "\(what): \(f) \(f.map { $0.squares(in: luma)?.squares.map { $0 == nil } })")
        }
    }

    func testTheGridHasTheCodesSizeAndItsCornersToAFractionOfAPixel() throws {
        for text in ["GRID", "A GRID OF 29 MODULES ACROSS", String(repeating: "A LARGER GRID ", count: 6)] {
            for rotation in [0.0, 17, 45, 130, 250] {
                let matrix = try CodeMatrix.qr(text: text)
                var scene = try DetectScene(width: 480, height: 480)
                try scene.add(matrix, x: 240, y: 240, module: 5.3, rotation: rotation)
                let what = "\(matrix.width) modules at \(rotation)°"
                let g = try grid(scene, what)
                XCTAssertEqual(g.size, matrix.width, what)
                // The code's own top-left corner first, each corner within a tenth of a module.
                assertCorners(g.quad, scene.truth[0], within: 0.5, what)
            }
        }
    }

    /// A "design" QR code: round finder patterns (a dot in a ring) and a dot for each dark module,
    /// `module` px per module, turned `degrees` about (`cx`, `cy`), on a white card.
    private func designQR(_ text: String, module: Double, degrees: Double, width: Int, height: Int) throws -> (DetectScene, Int) {
        let matrix = try CodeMatrix.qr(text: text)
        let n = matrix.width
        var scene = try DetectScene(width: width, height: height, background: 120)
        let a = degrees * .pi / 180, c = Point(x: Double(width) / 2, y: Double(height) / 2)
        let half = Double(n) / 2
        for y in 0..<height {
            for x in 0..<width {
                // Module coordinates of the pixel's centre.
                let dx = Double(x) + 0.5 - c.x, dy = Double(y) + 0.5 - c.y
                let u = (dx * cos(a) + dy * sin(a)) / module + half, v = (-dx * sin(a) + dy * cos(a)) / module + half
                guard u > -4, v > -4, u < Double(n) + 4, v < Double(n) + 4 else { continue }
                var dark = false
                if let f = [(3.5, 3.5), (Double(n) - 3.5, 3.5), (3.5, Double(n) - 3.5)].first(where: { abs(u - $0.0) < 4 && abs(v - $0.1) < 4 }) {
                    let r = ((u - f.0) * (u - f.0) + (v - f.1) * (v - f.1)).squareRoot()
                    dark = r < 1.6 || (r >= 2.5 && r < 3.5)
                } else if u >= 0, v >= 0, u < Double(n), v < Double(n), matrix.isDark(x: Int(u), y: Int(v)) {
                    let du = u - Double(Int(u)) - 0.5, dv = v - Double(Int(v)) - 0.5
                    dark = du * du + dv * dv < 0.35 * 0.35
                }
                scene.image[x, y] = dark ? 20 : 235
            }
        }
        return (scene, n)
    }

    func testADesignQRCodeWithRoundFinderPatternsAndDotsIsReadFromItsSampledModules() throws {
        let text = "HTTPS://EXAMPLE.COM/DOTS"
        let (scene, n) = try designQR(text, module: 9, degrees: 12, width: 420, height: 420)
        try withLuma(scene) { luma in
            let finders = FinderPattern.find(in: luma, box: Rect(x: 0, y: 0, width: 420, height: 420))
            let f = try XCTUnwrap(FinderPattern.qrCodes(finders, in: luma).first).finders
            // The round patterns' squares do not fit; their centres give the grid.
            XCTAssertNil(QRGrid.measure(f, in: luma))
            let grid = try XCTUnwrap(QRGrid.measure(centres: f, in: luma))
            XCTAssertEqual(grid.size, n)
            let detector = try BarcodeDetector(options: DetectorOptions(locate: .regions, threads: 1))
            let codes = detector.scan(luma).codes
            XCTAssertEqual(codes.map(\.text), [text])
            // The outline: the grid's, the code's own corners within a module of where they were drawn.
            let a = 12 * Double.pi / 180, h = Double(n) * 9 / 2
            let corner = Point(x: 210 + (-h) * cos(a) - (-h) * sin(a), y: 210 + (-h) * sin(a) + (-h) * cos(a))
            XCTAssertLessThanOrEqual(try XCTUnwrap(codes.first).quad.topLeft.distance(to: corner), 9)
        }
    }

    func testAQRCodeInStrongPerspectiveIsReadWithItsCornersFromItsGrid() throws {
        // zbar alone reads keystones up to about 0.15 (`CodePlacement.perspective`).
        for (perspective, rotation) in [(0.3, 20.0), (-0.3, 200), (0.25, 95)] {
            var scene = try DetectScene(width: 640, height: 480)
            try scene.add(try CodeMatrix.qr(text: "SEEN FROM THE SIDE"), x: 320, y: 240, module: 7, rotation: rotation,
                          perspective: perspective)
            let what = "keystone \(perspective) at \(rotation)°"
            let found = scene.detect(try BarcodeDetector(options: DetectorOptions(locate: .regions, threads: 1)))
            let qr = try XCTUnwrap(found.first { $0.symbology == "QR-Code" }, what)
            XCTAssertEqual(String(decoding: qr.payload, as: UTF8.self), "SEEN FROM THE SIDE", what)
            assertCorners(qr.quad, scene.truth[0], within: 1, what)
        }
    }

    func testAFrontalQRCodeIsReadUprightWithItsGridsCorners() throws {
        var scene = try DetectScene(width: 480, height: 360)
        try scene.add(try CodeMatrix.qr(text: "UPRIGHT"), x: 230, y: 170, module: 9, rotation: 33)
        let region = try XCTUnwrap(withLuma(scene) { CodeLocator().regions(in: $0) }.first { $0.kind == .matrix })
        XCTAssertEqual(region.finders.count, 3)
        let g = try grid(scene)
        let decoder = try RegionDecoder(symbologies: try Symbology.parseList("qrcode"))
        let found = withLuma(scene) { decoder.decode(region, in: $0, options: DetectorOptions()) }
        XCTAssertEqual(found.map { String(decoding: $0.payload, as: UTF8.self) }, ["UPRIGHT"])
        // Read from the upright image: the corners are the grid's.
        XCTAssertEqual(found.first?.quad, g.quad)
    }

    func testLinesMeetWhereTheirPointsSay() throws {
        let a = try XCTUnwrap(Line.fit((0..<10).map { Point(x: Double($0), y: 2 + 0.5 * Double($0)) }, tolerance: 1))
        let b = try XCTUnwrap(Line.fit((0..<10).map { Point(x: 4, y: Double($0)) } + [Point(x: 9, y: 3)], tolerance: 1))
        let p = try XCTUnwrap(a.intersection(b))
        XCTAssertEqual(p.x, 4, accuracy: 1e-9)
        XCTAssertEqual(p.y, 4, accuracy: 1e-9)
        XCTAssertNil(a.intersection(a))
    }

    func testATrackedQRCodeWithoutFinderPatternsFoundGetsItsInvertedPass() throws {
        // Light on dark: the finder-pattern search (dark rings) finds none, so the region goes the
        // frame-aligned way with its reduced passes; the inverted one must remain.
        var scene = try DetectScene(width: 240, height: 240, background: 30)
        try scene.add(CodeMatrix.qr(text: "TRACKED, LIGHT ON DARK"), x: 120, y: 120, module: 4,
                      renderer: CodeRenderer(darkLevel: 235, lightLevel: 30))
        let region = withLuma(scene) { CodeLocator().region(around: scene.truth[0], kind: .matrix, in: $0) }
        XCTAssertTrue(region.finders.isEmpty)
        XCTAssertNil(region.grid)
        let detector = try BarcodeDetector(options: DetectorOptions(threads: 1))
        let found = withLuma(scene) { detector.detect($0, in: [scene.truth[0]], kinds: [.matrix]) }
        XCTAssertEqual(found.map(\.text), ["TRACKED, LIGHT ON DARK"])
    }

    func testPatternsFartherApartThanAnyQRCodeMakeNoGridAndNoTrap() throws {
        // Three ideal 1 px-module patterns 600 px apart: past version 40 (177 modules).
        func pattern(_ c: Point) -> FinderSquares {
            FinderSquares(centre: c, squares: FinderSquares.halves.map { h in
                Quad(topLeft: c + Point(x: -h, y: -h), topRight: c + Point(x: h, y: -h), bottomRight: c + Point(x: h, y: h),
                     bottomLeft: c + Point(x: -h, y: h))
            }, module: 1)
        }
        let scene = try DetectScene(width: 700, height: 700)
        let grid = withLuma(scene) { luma in
            QRGrid.measure(corner: pattern(Point(x: 20, y: 20)), pattern(Point(x: 620, y: 20)), pattern(Point(x: 20, y: 620)), in: luma)
        }
        XCTAssertNil(grid)
    }

    func testAHomographyPastTheHorizonSamplesNothing() throws {
        // The divisor 1 − x / 50.5 is 0 at the pixel centre x = 50.5, where the x numerator is 0 too.
        let map = try XCTUnwrap(Homography(matrix: [1, 0, -50.5, 0, 1, 0, -1 / 50.5, 0, 1]))
        let scene = try DetectScene(width: 120, height: 40, background: 90)
        var plane = LumaPlane(width: 1, height: 1)
        withLuma(scene) { plane.resample($0, map: map, width: 100, height: 10, taps: 1) }
        XCTAssertEqual(Set(plane.pixels), [255])
    }
}
