import XCTest
@testable import ARCore

final class QuadFittingTests: XCTestCase {
    /// A 100 x 40 px rectangle centred on (200, 150), rotated 30° clockwise on screen.
    private let rotated: Quad = {
        let c = cos(Double.pi / 6), s = sin(Double.pi / 6)
        func r(_ x: Double, _ y: Double) -> Point { Point(x: 200 + x * c - y * s, y: 150 + x * s + y * c) }
        return Quad(topLeft: r(-50, -20), topRight: r(50, -20), bottomRight: r(50, 20), bottomLeft: r(-50, 20))
    }()

    /// Points spread along every edge of `quad`, plus some inside it.
    private func samples(on quad: Quad) -> [Point] {
        var points: [Point] = []
        let c = quad.corners
        for i in 0..<4 {
            for k in 0..<10 {
                let t = Double(k) / 10
                points.append(c[i] * (1 - t) + c[(i + 1) % 4] * t)
            }
        }
        points += [quad.center, quad.anchorPoint(u: 0.3, v: 0.6), quad.anchorPoint(u: 0.8, v: 0.2)]
        return points
    }

    func testMinimumAreaRectangleRecoversARotatedRectangle() throws {
        let fit = try XCTUnwrap(Quad.minimumAreaRectangle(enclosing: samples(on: rotated).shuffled()))
        // The code's top-left corner is the one nearest the bounding box's top-left here.
        for (a, b) in zip(fit.corners, rotated.corners) {
            XCTAssertEqual(a.x, b.x, accuracy: 1e-6)
            XCTAssertEqual(a.y, b.y, accuracy: 1e-6)
        }
    }

    func testMinimumAreaRectangleIsClockwise() throws {
        let fit = try XCTUnwrap(Quad.minimumAreaRectangle(enclosing: samples(on: rotated)))
        XCTAssertEqual(fit.signedArea, 4000, accuracy: 1e-6)
    }

    func testMinimumAreaRectangleOfAnUprightBoxIsThatBox() throws {
        let points = [Point(x: 10, y: 20), Point(x: 60, y: 20), Point(x: 60, y: 45), Point(x: 10, y: 45),
                      Point(x: 30, y: 30), Point(x: 60, y: 30)]
        let fit = try XCTUnwrap(Quad.minimumAreaRectangle(enclosing: points))
        XCTAssertLessThan(fit.maxCornerDistance(to: Quad(Rect(x: 10, y: 20, width: 50, height: 25))), 1e-9)
    }

    func testMinimumAreaRectangleMatchesBruteForceOnScatteredPoints() throws {
        // One side of the best rectangle lies along a hull edge, so trying every pair direction finds it.
        var seed: UInt64 = 12345
        func next() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Double(seed >> 11) / Double(1 << 53)
        }
        for _ in 0..<20 {
            let points = (0..<25).map { _ in Point(x: next() * 300, y: next() * 200) }
            let fit = try XCTUnwrap(Quad.minimumAreaRectangle(enclosing: points))
            var best = Double.infinity
            for a in points {
                for b in points where a != b {
                    let u = (b - a) * (1 / a.distance(to: b)), n = Point(x: -u.y, y: u.x)
                    let us = points.map { $0.x * u.x + $0.y * u.y }, ns = points.map { $0.x * n.x + $0.y * n.y }
                    best = min(best, (us.max()! - us.min()!) * (ns.max()! - ns.min()!))
                }
            }
            XCTAssertEqual(fit.signedArea, best, accuracy: 1e-6 * best)
        }
    }

    func testMinimumAreaRectangleOfATriangleHasTwiceItsArea() throws {
        // Acute triangle with area 33: the best rectangle stands on an edge and has area 66.
        let points = [Point(x: 0, y: 0), Point(x: 10, y: 1), Point(x: 4, y: 7)]
        let fit = try XCTUnwrap(Quad.minimumAreaRectangle(enclosing: points))
        XCTAssertEqual(fit.signedArea, 66, accuracy: 1e-9)
    }

    func testMinimumAreaRectangleOfNoPointsIsNil() {
        XCTAssertNil(Quad.minimumAreaRectangle(enclosing: []))
        XCTAssertNil(Quad.minimumAreaRectangle(enclosing: [Point(x: .nan, y: 1)]))
    }

    func testMinimumAreaRectangleOfOnePointCollapsesOnIt() throws {
        let p = Point(x: 3, y: 4)
        let fit = try XCTUnwrap(Quad.minimumAreaRectangle(enclosing: [p, p]))
        XCTAssertEqual(fit, Quad(topLeft: p, topRight: p, bottomRight: p, bottomLeft: p))
    }

    func testMinimumAreaRectangleOfCollinearPointsIsTheSegment() throws {
        let points = [Point(x: 30, y: 15), Point(x: 10, y: 5), Point(x: 20, y: 10)]
        let fit = try XCTUnwrap(Quad.minimumAreaRectangle(enclosing: points))
        let a = Point(x: 10, y: 5), b = Point(x: 30, y: 15)
        XCTAssertEqual(fit, Quad(topLeft: a, topRight: b, bottomRight: b, bottomLeft: a))
    }

    func testCounterClockwiseQuadIsReorderedKeepingTopLeftFirst() {
        let tl = Point(x: 0, y: 0), tr = Point(x: 10, y: 0), br = Point(x: 10, y: 10), bl = Point(x: 0, y: 10)
        let ccw = Quad(topLeft: tl, topRight: bl, bottomRight: br, bottomLeft: tr)
        XCTAssertLessThan(ccw.signedArea, 0)
        XCTAssertEqual(ccw.clockwiseNormalised(), Quad(topLeft: tl, topRight: tr, bottomRight: br, bottomLeft: bl))
    }

    func testClockwiseQuadIsLeftUnchanged() {
        XCTAssertEqual(rotated.clockwiseNormalised(), rotated)
    }

    func testAnchorPointHitsTheCornersAtTheUnitSquareCorners() {
        XCTAssertEqual(rotated.anchorPoint(u: 0, v: 0), rotated.topLeft)
        XCTAssertEqual(rotated.anchorPoint(u: 1, v: 0), rotated.topRight)
        XCTAssertEqual(rotated.anchorPoint(u: 1, v: 1), rotated.bottomRight)
        XCTAssertEqual(rotated.anchorPoint(u: 0, v: 1), rotated.bottomLeft)
    }

    func testAnchorPointIsBilinearOnATrapezoid() {
        let q = Quad(topLeft: Point(x: 0, y: 0), topRight: Point(x: 10, y: 0),
                     bottomRight: Point(x: 20, y: 10), bottomLeft: Point(x: -10, y: 10))
        // Halfway down the left/right edges: from (-5, 5) to (15, 5); a quarter along that is x = 0.
        XCTAssertEqual(q.anchorPoint(u: 0.25, v: 0.5), Point(x: 0, y: 5))
        XCTAssertEqual(q.anchorPoint(u: 0.5, v: 0.5), Point(x: 5, y: 5))
    }

    func testWidthAndHeightAreMeanEdgeLengths() {
        let q = Quad(topLeft: Point(x: 0, y: 0), topRight: Point(x: 10, y: 0),
                     bottomRight: Point(x: 20, y: 10), bottomLeft: Point(x: -10, y: 10))
        XCTAssertEqual(q.width, 20, accuracy: 1e-12) // (10 + 30) / 2
        XCTAssertEqual(q.height, (200.0.squareRoot() + 200.0.squareRoot()) / 2, accuracy: 1e-12)
        XCTAssertEqual(rotated.width, 100, accuracy: 1e-9)
        XCTAssertEqual(rotated.height, 40, accuracy: 1e-9)
    }
}
