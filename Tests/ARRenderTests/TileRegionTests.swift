import ARCore
@testable import ARRender
import CPangoCairo
import XCTest

final class TileRegionTests: XCTestCase {
    /// The pixels of `regions`, each counted as often as it is covered.
    private func coverage(_ regions: [TileRegion]) -> [Int: Int] {
        var count: [Int: Int] = [:]
        for r in regions { for y in r.y..<r.maxY { for x in r.x..<r.maxX { count[y * 10_000 + x, default: 0] += 1 } } }
        return count
    }

    func testTheDisjointCoverCoversEachPixelOfTheUnionExactlyOnce() {
        let regions = [TileRegion(x: 0, y: 0, width: 20, height: 4), TileRegion(x: 16, y: 0, width: 4, height: 20),
                       TileRegion(x: 0, y: 16, width: 20, height: 4), TileRegion(x: 0, y: 0, width: 4, height: 20),
                       TileRegion(x: 30, y: 2, width: 5, height: 7), TileRegion(x: 32, y: 5, width: 9, height: 9)]
        let cover = TileRegion.disjointCover(regions)
        XCTAssertEqual(Set(coverage(cover).keys), Set(coverage(regions).keys))
        XCTAssertTrue(coverage(cover).values.allSatisfy { $0 == 1 }, "disjoint")
    }

    func testASquareOutlinesEdgesBecomeFourParts() {
        let edges = [TileRegion(x: 0, y: 0, width: 20, height: 4), TileRegion(x: 16, y: 0, width: 4, height: 20),
                     TileRegion(x: 0, y: 16, width: 20, height: 4), TileRegion(x: 0, y: 0, width: 4, height: 20)]
        XCTAssertEqual(TileRegion.disjointCover(edges), [
            TileRegion(x: 0, y: 0, width: 20, height: 4), TileRegion(x: 0, y: 4, width: 4, height: 12),
            TileRegion(x: 16, y: 4, width: 4, height: 12), TileRegion(x: 0, y: 16, width: 20, height: 4),
        ])
    }
}

final class OutlineTileTests: XCTestCase {
    /// The tile's pixels, drawn over `fill`.
    private func draw(_ tile: RenderTile, over fill: UInt32 = 0) -> [UInt32] {
        var px = [UInt32](repeating: fill, count: tile.width * tile.height)
        px.withUnsafeMutableBytes { tile.draw($0.baseAddress!, tile.width * 4) }
        return px
    }

    func testAnUprightOutlineIsOneTileWhoseInkLiesInItsFourEdgeParts() throws {
        let quad = Quad(Rect(x: 100.3, y: 80.6, width: 140, height: 140))
        let tiles = OverlayRenderer().tiles(for: .outline(quad: quad, color: Color(red: 0, green: 1, blue: 0), width: 3),
                                            opacity: 1, frameWidth: 640, frameHeight: 480)
        XCTAssertEqual(tiles.count, 1)
        let tile = try XCTUnwrap(tiles.first)
        let parts = try XCTUnwrap(tile.parts)
        XCTAssertEqual(parts.count, 4)
        XCTAssertLessThan(parts.reduce(0) { $0 + $1.area }, tile.width * tile.height / 4)
        let px = draw(tile)
        // The same stroke drawn unclipped over the whole tile: its ink lies inside the parts, where
        // the tile has the same pixels.
        var reference = [UInt32](repeating: 0, count: tile.width * tile.height)
        reference.withUnsafeMutableBytes { buffer in
            OverlayRenderer.withContext(buffer.baseAddress!, stride: tile.width * 4, width: tile.width, height: tile.height) { cr in
                cairo_translate(cr, -Double(tile.x), -Double(tile.y))
                OverlayRenderer.path(cr, quad.corners)
                OverlayRenderer.set(cr, Color(red: 0, green: 1, blue: 0))
                cairo_set_line_width(cr, 3)
                cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
                cairo_stroke(cr)
            }
        }
        var inkOutside = 0, inkInside = 0
        for y in 0..<tile.height {
            for x in 0..<tile.width {
                let i = y * tile.width + x
                let inPart = parts.contains { tile.x + x >= $0.x && tile.x + x < $0.maxX && tile.y + y >= $0.y && tile.y + y < $0.maxY }
                if inPart {
                    XCTAssertEqual(px[i], reference[i], "(\(x), \(y))")
                    if reference[i] >> 24 != 0 { inkInside += 1 }
                } else if reference[i] >> 24 != 0 {
                    inkOutside += 1
                }
            }
        }
        XCTAssertEqual(inkOutside, 0, "all ink inside the parts")
        XCTAssertGreaterThan(inkInside, 4 * 140 * 3)
        // The parts are cleared before drawing: what was there does not show.
        let overGarbage = draw(tile, over: 0xdead_beef)
        for p in parts {
            for y in p.y..<p.maxY {
                for x in p.x..<p.maxX {
                    let i = (y - tile.y) * tile.width + x - tile.x
                    XCTAssertEqual(overGarbage[i], px[i], "(\(x), \(y))")
                }
            }
        }
    }

    func testAnOutlineTurnedByFortyFiveDegreesIsOneWholeTile() throws {
        let c = Point(x: 200, y: 200), r = 100.0
        let quad = Quad(topLeft: Point(x: c.x, y: c.y - r), topRight: Point(x: c.x + r, y: c.y),
                        bottomRight: Point(x: c.x, y: c.y + r), bottomLeft: Point(x: c.x - r, y: c.y))
        let tiles = OverlayRenderer().tiles(for: .outline(quad: quad, color: Color(red: 0, green: 1, blue: 0), width: 3),
                                            opacity: 1, frameWidth: 640, frameHeight: 480)
        XCTAssertEqual(tiles.count, 1)
        XCTAssertNil(tiles.first?.parts)
    }

    func testAnOutlineCutByTheFrameEdgeKeepsItsPartsInsideTheTile() throws {
        let quad = Quad(Rect(x: -30, y: 10, width: 100, height: 100))
        let tile = try XCTUnwrap(OverlayRenderer().tiles(for: .outline(quad: quad, color: Color(red: 0, green: 1, blue: 0), width: 3),
                                                         opacity: 1, frameWidth: 320, frameHeight: 240).first)
        XCTAssertGreaterThanOrEqual(tile.x, 0)
        for p in try XCTUnwrap(tile.parts) {
            XCTAssertEqual(p.intersection(tile.bounds), p)
        }
    }
}

/// An outline's ink as one colour and an alpha mask (`RenderTile.solid`) is its drawn pixels, unpremultiplied.
final class SolidInkTests: XCTestCase {
    /// Every pixel of `tile`'s regions: the alpha of `draw` and of `solid.drawAlpha`.
    private func alphas(_ tile: RenderTile) throws -> [(drawn: UInt32, mask: UInt32)] {
        let solid = try XCTUnwrap(tile.solid)
        var argb = [UInt32](repeating: 0xdead_beef, count: tile.width * tile.height)
        let maskStride = (tile.width + 3) & ~3
        var mask = [UInt8](repeating: 0x5a, count: maskStride * tile.height)
        argb.withUnsafeMutableBytes { tile.draw($0.baseAddress!, tile.width * 4) }
        mask.withUnsafeMutableBytes { solid.drawAlpha($0.baseAddress!, maskStride) }
        var result: [(UInt32, UInt32)] = []
        for r in tile.regions {
            for y in r.y..<r.maxY {
                for x in r.x..<r.maxX {
                    result.append((argb[(y - tile.y) * tile.width + x - tile.x] >> 24, UInt32(mask[(y - tile.y) * maskStride + x - tile.x])))
                }
            }
        }
        return result
    }

    func testAnOutlinesAlphaMaskEqualsTheAlphaOfItsDrawnPixels() throws {
        let color = Color(red: 1, green: 0.5, blue: 0, alpha: 0.6)
        let upright = Quad(Rect(x: 100.3, y: 80.6, width: 140, height: 140))
        let turned = Quad(topLeft: Point(x: 200, y: 100), topRight: Point(x: 300, y: 200),
                          bottomRight: Point(x: 200, y: 300), bottomLeft: Point(x: 100, y: 200))
        for quad in [upright, turned] {
            let tile = try XCTUnwrap(OverlayRenderer().tiles(for: .outline(quad: quad, color: color, width: 3), opacity: 1,
                                                             frameWidth: 640, frameHeight: 480).first)
            XCTAssertEqual(tile.solid?.color, color)
            let px = try alphas(tile)
            XCTAssertGreaterThan(px.filter { $0.mask > 0 }.count, 4 * 100 * 2)
            for (i, p) in px.enumerated() where p.drawn != p.mask {
                XCTFail("pixel \(i): drawn alpha \(p.drawn), mask \(p.mask)")
                break
            }
        }
    }

    func testOnlyOneColourTilesHaveSolidInk() throws {
        let renderer = OverlayRenderer()
        let label = LabelContent(text: "x", font: "Sans 12px", color: Color(red: 1, green: 1, blue: 1), background: nil,
                                 padding: 2, radius: 0)
        let tile = try XCTUnwrap(renderer.tiles(for: .label(label, rect: PlacedRect(center: Point(x: 50, y: 50), width: 20, height: 20)),
                                                opacity: 1, frameWidth: 640, frameHeight: 480).first)
        XCTAssertNil(tile.solid)
    }
}
