import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

final class LinearOutlineTests: XCTestCase {
    /// The running-sum correlation (its covariance four samples at a time) equals the direct one
    /// (window mean subtracted, both norms) at every shift, for windows of any length, and a flat
    /// window scores −1.
    func testCorrelationsFromRunningSumsEqualTheDirectOnes() {
        for length in [300, 301, 7, 2] {
            let a = (0..<length).map { (i: Int) -> Double in Double((i * 37 + (i / 5) * 11) % 97) }
            let mean = a.reduce(0, +) / Double(a.count)
            let a0 = a.map { $0 - mean }, aNorm = a0.reduce(0) { $0 + $1 * $1 }
            let texture = (0..<340).map { (i: Int) -> Double in Double((i * 53 + 7) % 89) + 100 }
            let b = texture + [Double](repeating: 42, count: length)
            let shifts = 341
            let fast = LinearOutline.normalisedCorrelations(a0, aNorm: aNorm, in: b, shifts: shifts)
            for start in 0..<shifts {
                let window = Array(b[start..<(start + a.count)])
                let bMean = window.reduce(0, +) / Double(window.count)
                var cov = 0.0, bNorm = 0.0
                for i in a.indices { cov += a0[i] * (window[i] - bMean); bNorm += (window[i] - bMean) * (window[i] - bMean) }
                let direct = bNorm > 0 ? cov / (aNorm * bNorm).squareRoot() : -1
                XCTAssertEqual(fast[start], direct, accuracy: 1e-9, "length \(length), shift \(start)")
            }
            XCTAssertEqual(fast[340], -1, "a flat window")
        }
        XCTAssertEqual(LinearOutline.normalisedCorrelations([], aNorm: 0, in: [1, 2, 3], shifts: 2), [-1, -1], "no samples")
    }

    /// The walk out to a code's ends: without a bound it takes every gap up to the limit on both
    /// sides (the quiet zone stops it); past the bound it keeps the bound's count of edges around
    /// the starting span whose gaps to what lies outside are widest, so a run of bars beside the
    /// code's end is not taken in, even where the code has a wider element than the gap between
    /// them; a walk within the slack is kept whole.
    func testTheWalkOutStopsAtTheSymbologysEdgeCount() {
        // 12 edges (a code; its element 32–37 wider than the rest), a 4 px gap, 8 edges 2 px apart
        // (bars laid against its end), all after a 30 px quiet zone.
        let code: [Double] = [30, 32, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55]
        let edges = [0.0] + code + (0..<8).map { 59 + 2 * Double($0) }
        let all = LinearOutline.walkOut(edges, first: 4, last: 8, limit: 6, maxEdges: nil, line: 0...90)
        XCTAssertEqual(all.first, 1, "the quiet zone stops the walk")
        XCTAssertEqual(all.last, edges.count - 1, "unbounded, the walk runs on over the bars beside")
        let bounded = LinearOutline.walkOut(edges, first: 4, last: 8, limit: 6, maxEdges: 12, line: 0...90)
        XCTAssertEqual(bounded.first, 1)
        XCTAssertEqual(bounded.last, 12, "the code's 12 edges, none of the bars beside")
        // Mirrored: the bars beside lie before the code.
        let mirrored = edges.reversed().map { 100 - $0 }
        let back = LinearOutline.walkOut(mirrored, first: 12, last: 16, limit: 6, maxEdges: 12, line: 10...100)
        XCTAssertEqual(back.first, 8)
        XCTAssertEqual(back.last, 19)
        XCTAssertEqual(LinearOutline.walkOut(edges, first: 1, last: 18, limit: 6, maxEdges: 12, line: 0...90).last, 20,
                       "a span that starts past the bound walks unbounded")
        XCTAssertEqual(LinearOutline.walkOut(edges, first: 4, last: 8, limit: 6, maxEdges: 16, line: 0...90).last, 20,
                       "a walk within the slack is kept whole")
        XCTAssertEqual(LinearOutline.layout(symbology: "EAN-13", payloadLength: 13), .init(barEdges: 60, modules: 95))
        XCTAssertEqual(LinearOutline.layout(symbology: "UPC-A", payloadLength: 12), .init(barEdges: 60, modules: 95))
        XCTAssertEqual(LinearOutline.layout(symbology: "EAN-8", payloadLength: 8), .init(barEdges: 44, modules: 67))
        XCTAssertEqual(LinearOutline.layout(symbology: "UPC-E", payloadLength: 8), .init(barEdges: 34, modules: 51))
        XCTAssertEqual(LinearOutline.layout(symbology: "I2/5", payloadLength: 6), .init(barEdges: 38, modules: 63))
        XCTAssertEqual(LinearOutline.layout(symbology: "I2/5", payloadLength: 5), .init(barEdges: nil, modules: 54))
        XCTAssertNil(LinearOutline.layout(symbology: "CODE-128", payloadLength: 6))
    }

    /// An EAN-13 whose end guard runs, after a gap narrower than a quiet zone, into the bars of a
    /// Code 128 (a label laid against it, as a card crossing its end on camera seed 43, where the
    /// outline ran on 2.6 times the code's length): the outline fitted to a reading of most of it
    /// (zbar's points at its start and 70 modules on) ends at its own last bar, bounded by the
    /// EAN-13's 60 edges. Unbounded, it runs on over the label's bars.
    func testAnEANOutlineEndsAtItsOwnLastBarWhenOtherBarsFollowIt() throws {
        let ean = try CodeMatrix.ean13("2153737757728"), label = try CodeMatrix.code128("C128-43-8")
        let row = (0..<ean.width).map { ean.isDark(x: $0, y: 0) } + Array(repeating: false, count: 3)
            + (0..<label.width).map { label.isDark(x: $0, y: 0) }
        let both = try CodeMatrix(width: row.count, height: 1, modules: row, quietZoneModules: 10, symbology: "EAN-13")
        var scene = try DetectScene(width: 900, height: 300)
        try scene.add(both, x: 450, y: 150, module: 2, rotation: 4, barHeight: 80)
        // The EAN-13's own outline: the first 95 of the row's modules.
        let q = scene.truth[0], f = Double(ean.width) / Double(row.count)
        let truth = Quad(topLeft: q.topLeft, topRight: q.topLeft + (q.topRight - q.topLeft) * f,
                         bottomRight: q.bottomLeft + (q.bottomRight - q.bottomLeft) * f, bottomLeft: q.bottomLeft)
        // Points on three lines near the middle of the bars, at the start and 70 modules on.
        let u = (truth.topRight - truth.topLeft) * (1 / truth.topLeft.distance(to: truth.topRight))
        let points = [0.45, 0.5, 0.55].flatMap { h -> [Point] in
            let start = truth.topLeft + (truth.bottomLeft - truth.topLeft) * h
            return [start, start + u * (70 * 2)]
        }
        let fit = { (edges: Int?) in
            scene.image.withImage { LinearOutline.fit(points: points, reading: u, axisKnown: true, barEdges: edges, in: $0) }
        }
        let bounded = try XCTUnwrap(fit(60))
        assertCorners(bounded, truth, within: 2, "bounded by the EAN-13's edges")
        let unbounded = try XCTUnwrap(fit(nil))
        XCTAssertGreaterThan(unbounded.topLeft.distance(to: unbounded.topRight), 1.2 * truth.topLeft.distance(to: truth.topRight),
                             "unbounded, the walk runs on over the label")
    }
}
