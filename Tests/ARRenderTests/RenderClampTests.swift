import ARCore
import ARRender
import XCTest

/// Whatever the geometry and fonts, tiles stay within the frame and fonts no taller than it.
final class RenderClampTests: XCTestCase {
    private let renderer = OverlayRenderer()
    private let white = Color(red: 1, green: 1, blue: 1)

    private func label(_ text: String = "HELLO", font: String = "Sans 20px") -> LabelContent {
        LabelContent(text: text, font: font, color: white, background: Color(red: 0, green: 0, blue: 0), padding: 4, radius: 0)
    }

    private func assertWithinFrame(_ op: DrawOp, file: StaticString = #filePath, line: UInt = #line) -> [RenderTile] {
        let tiles = renderer.tiles(for: op, opacity: 1, frameWidth: 320, frameHeight: 240)
        for t in tiles {
            XCTAssertLessThanOrEqual(t.width, 320, "\(op)", file: file, line: line)
            XCTAssertLessThanOrEqual(t.height, 240, "\(op)", file: file, line: line)
            XCTAssertGreaterThan(t.x + t.width, 0, file: file, line: line)
            XCTAssertLessThan(t.x, 320, file: file, line: line)
            // Drawing must not fault either.
            let stride = t.width * 4
            let pixels = UnsafeMutableRawPointer.allocate(byteCount: stride * t.height, alignment: 16)
            t.draw(pixels, stride)
            pixels.deallocate()
        }
        return tiles
    }

    func testALabelLargerThanTheFrameIsCroppedToItAndNotCached() {
        let huge = PlacedRect(center: Point(x: 160, y: 120), width: 16384, height: 16384)
        let tiles = assertWithinFrame(.label(label(), rect: huge))
        XCTAssertEqual(tiles.count, 1)
        XCTAssertEqual(tiles.first.map { [$0.x, $0.y, $0.width, $0.height] }, [0, 0, 320, 240])
        XCTAssertNil(tiles.first?.cacheKey)
        // A label that fits stays whole and cached, even partly outside the frame.
        let small = assertWithinFrame(.label(label(), rect: PlacedRect(center: Point(x: 0, y: 0), width: 100, height: 30)))
        XCTAssertNotNil(small.first?.cacheKey)
        XCTAssertEqual(small.first.map { [$0.x, $0.width] }, [-50, 100])
    }

    func testHugeAndNonFiniteGeometryDrawsNothingOrTheFrameWithoutTrapping() {
        for v in [1e308, -1e308, Double.infinity, Double.nan, 1e18] {
            let rect = PlacedRect(center: Point(x: v, y: 100), width: abs(v), height: 20)
            _ = assertWithinFrame(.label(label(), rect: rect))
            _ = assertWithinFrame(.box(rect: rect, color: white, radius: 4))
            _ = assertWithinFrame(.box(rect: PlacedRect(center: Point(x: 100, y: 100), width: abs(v), height: abs(v), angle: 0.3),
                                       color: white, radius: 0))
            let quad = Quad(topLeft: Point(x: -v, y: -v), topRight: Point(x: v, y: -v), bottomRight: Point(x: v, y: v),
                            bottomLeft: Point(x: -v, y: v))
            _ = assertWithinFrame(.outline(quad: quad, color: white, width: 3))
            _ = assertWithinFrame(.outline(quad: Quad(Rect(x: 10, y: 10, width: 50, height: 50)), color: white, width: abs(v)))
        }
    }

    func testFontsAreNoTallerThanTheFrame() {
        for font in ["Sans 100000", "Sans Bold 30000px", "Sans 1000"] {
            let sized = OverlayRenderer.sizedFont(font, frameHeight: 240)
            let size = FontDescription.size(sized)
            XCTAssertEqual(size?.pixelValue ?? 0, 240, accuracy: 0.5, "\(font) → \(sized)")
            let m = renderer.size(of: label("Hi", font: sized))
            XCTAssertLessThan(m.height, 2 * 240, "\(font) → \(sized)")
        }
        XCTAssertEqual(OverlayRenderer.sizedFont("Sans 18", frameHeight: 240), "Sans 18")
        XCTAssertEqual(FontDescription.size(OverlayRenderer.sizedFont("Sans Bold", frameHeight: 720))?.pixelValue, 20)
    }

    func testAPayloadStartingWithNULShowsItsVisibleText() {
        // pango reads a C string: text after a NUL was lost, so "\0ABC" drew an empty label.
        let visible = renderer.size(of: label("ABC")), withNUL = renderer.size(of: label("\u{0}ABC"))
        XCTAssertEqual(withNUL.width, visible.width)
        XCTAssertEqual(renderer.size(of: label("A\u{7}B\tC")).width, renderer.size(of: label("AB C")).width)
        XCTAssertGreaterThan(renderer.size(of: label("X\nY")).height, renderer.size(of: label("XY")).height, "line breaks kept")
    }
}
