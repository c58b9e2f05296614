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
