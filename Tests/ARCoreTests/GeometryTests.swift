import XCTest
@testable import ARCore

final class GeometryTests: XCTestCase {
    private let square = Quad(Rect(x: 10, y: 20, width: 30, height: 30))

    func testPointArithmetic() {
        let a = Point(x: 1, y: 2), b = Point(x: 4, y: -6)
        XCTAssertEqual(a + b, Point(x: 5, y: -4))
        XCTAssertEqual(b - a, Point(x: 3, y: -8))
        XCTAssertEqual(a * 2.5, Point(x: 2.5, y: 5))
    }

    func testPointDistanceIsEuclidean() {
        XCTAssertEqual(Point(x: 1, y: 1).distance(to: Point(x: 4, y: 5)), 5)
    }

    func testRectEdgesAndCentre() {
        let r = Rect(x: 10, y: 20, width: 30, height: 40)
        XCTAssertEqual([r.minX, r.minY, r.maxX, r.maxY], [10, 20, 40, 60])
        XCTAssertEqual(r.center, Point(x: 25, y: 40))
        XCTAssertFalse(r.isEmpty)
        XCTAssertTrue(Rect(x: 0, y: 0, width: 0, height: 5).isEmpty)
    }

    func testRectEnclosingPointsIsTheirBoundingBox() {
        let r = Rect(enclosing: [Point(x: 5, y: 9), Point(x: -1, y: 3), Point(x: 2, y: 12)])
        XCTAssertEqual(r, Rect(x: -1, y: 3, width: 6, height: 9))
        XCTAssertNil(Rect(enclosing: []))
    }

    func testQuadsOverlapWhenNoEdgeSeparatesThem() {
        let square = Quad(Rect(x: 0, y: 0, width: 10, height: 10))
        XCTAssertTrue(square.overlaps(Quad(Rect(x: 8, y: 8, width: 10, height: 10))), "corner over corner")
        XCTAssertTrue(square.overlaps(Quad(Rect(x: 2, y: -5, width: 2, height: 20))), "a bar across: no corner inside the other")
        XCTAssertFalse(square.overlaps(Quad(Rect(x: 10, y: 0, width: 5, height: 10))), "sharing an edge only")
        XCTAssertFalse(square.overlaps(Quad(Rect(x: 20, y: 20, width: 5, height: 5))))
        func diamond(_ c: Double) -> Quad {
            Quad([Point(x: c, y: c - 5), Point(x: c + 5, y: c), Point(x: c, y: c + 5), Point(x: c - 5, y: c)])!
        }
        XCTAssertFalse(square.overlaps(diamond(14)), "apart along the diamond's own edge normal only")
        XCTAssertTrue(square.overlaps(diamond(12)))
    }

    func testRectIntersectionIsTheOverlapOrEmpty() {
        let a = Rect(x: 0, y: 0, width: 10, height: 10)
        XCTAssertEqual(a.intersection(Rect(x: 5, y: 6, width: 10, height: 10)), Rect(x: 5, y: 6, width: 5, height: 4))
        XCTAssertTrue(a.intersection(Rect(x: 20, y: 0, width: 5, height: 5)).isEmpty)
    }

    func testRectUnionContainsBoth() {
        let u = Rect(x: 0, y: 0, width: 10, height: 10).union(Rect(x: 5, y: -5, width: 20, height: 5))
        XCTAssertEqual(u, Rect(x: 0, y: -5, width: 25, height: 15))
    }

    func testRectInsetGrowsAndShrinksWithoutGoingNegative() {
        let r = Rect(x: 10, y: 10, width: 4, height: 6)
        XCTAssertEqual(r.insetBy(2), Rect(x: 8, y: 8, width: 8, height: 10))
        XCTAssertEqual(r.insetBy(-3), Rect(x: 13, y: 13, width: 0, height: 0))
    }

    func testRectIntegralRoundsOutwards() {
        XCTAssertEqual(Rect(x: 1.5, y: 2.2, width: 3, height: 0.5).integral, Rect(x: 1, y: 2, width: 4, height: 1))
    }

    func testQuadFromCornersNeedsExactlyFour() {
        let c = square.corners
        XCTAssertEqual(Quad(c), square)
        XCTAssertNil(Quad(Array(c.prefix(3))))
    }

    func testQuadFromRectListsCornersClockwiseFromTopLeft() {
        XCTAssertEqual(square.corners, [Point(x: 10, y: 20), Point(x: 40, y: 20), Point(x: 40, y: 50), Point(x: 10, y: 50)])
    }

    func testQuadCentreAndBoundingBox() {
        XCTAssertEqual(square.center, Point(x: 25, y: 35))
        XCTAssertEqual(square.boundingBox, Rect(x: 10, y: 20, width: 30, height: 30))
    }

    func testSignedAreaIsPositiveForClockwiseOnScreen() {
        XCTAssertEqual(square.signedArea, 900)
        let reversed = Quad(topLeft: square.topLeft, topRight: square.bottomLeft,
                            bottomRight: square.bottomRight, bottomLeft: square.topRight)
        XCTAssertEqual(reversed.signedArea, -900)
    }

    func testMeanSideAveragesTheFourEdges() {
        XCTAssertEqual(Quad(Rect(x: 0, y: 0, width: 10, height: 20)).meanSide, 15)
    }

    func testRotationDegreesIsClockwiseOnScreen() {
        let q = Quad(topLeft: Point(x: 0, y: 0), topRight: Point(x: 10, y: 10),
                     bottomRight: Point(x: 0, y: 20), bottomLeft: Point(x: -10, y: 10))
        XCTAssertEqual(q.rotationDegrees, 45, accuracy: 1e-12)
        XCTAssertEqual(square.rotationDegrees, 0)
    }

    func testTranslatedAndScaledMoveEveryCorner() {
        XCTAssertEqual(square.translated(dx: 5, dy: -20), Quad(Rect(x: 15, y: 0, width: 30, height: 30)))
        XCTAssertEqual(square.scaled(sx: 2, sy: 0.5), Quad(Rect(x: 20, y: 10, width: 60, height: 15)))
    }

    func testMaxCornerDistanceIsTheWorstCorner() {
        var other = square
        other.bottomRight = other.bottomRight + Point(x: 3, y: 4)
        other.topLeft = other.topLeft + Point(x: 1, y: 0)
        XCTAssertEqual(square.maxCornerDistance(to: other), 5)
    }

    func testAxisDifferenceIsModuloAHalfTurnAndAtMostAQuarter() {
        XCTAssertEqual(axisDifference(0.1, 0.3), 0.2, accuracy: 1e-12)
        // A line's direction either way is the same axis.
        XCTAssertEqual(axisDifference(0.1, 0.1 + .pi), 0, accuracy: 1e-12)
        XCTAssertEqual(axisDifference(-1.5, 1.5), .pi - 3, accuracy: 1e-12)
        XCTAssertEqual(axisDifference(0, .pi / 2), .pi / 2, accuracy: 1e-12)
    }

    func testReadingAxisFollowsTheTopAndBottomEdges() {
        let flat = Quad(Rect(x: 0, y: 0, width: 40, height: 10))
        XCTAssertEqual(flat.readingAxis, 0, accuracy: 1e-12)
        // Turned a quarter clockwise (y down): the top edge runs downwards.
        let turned = Quad(topLeft: Point(x: 10, y: 0), topRight: Point(x: 10, y: 40),
                          bottomRight: Point(x: 0, y: 40), bottomLeft: Point(x: 0, y: 0))
        XCTAssertEqual(turned.readingAxis, .pi / 2, accuracy: 1e-12)
        XCTAssertEqual(axisDifference(flat.readingAxis, turned.readingAxis), .pi / 2, accuracy: 1e-12)
    }

    func testTheShareOfAQuadInsideAnotherIsEstimatedOnAGrid() {
        let square = Quad(Rect(x: 0, y: 0, width: 100, height: 100))
        XCTAssertEqual(square.share(inside: Quad(Rect(x: 50, y: -10, width: 100, height: 120))), 0.5)
        XCTAssertEqual(square.share(inside: Quad(Rect(x: -1, y: -1, width: 102, height: 102))), 1)
        XCTAssertEqual(square.share(inside: Quad(Rect(x: 200, y: 0, width: 100, height: 100))), 0)
        // A quarter, on a finer grid.
        XCTAssertEqual(square.share(inside: Quad(Rect(x: 50, y: 50, width: 100, height: 100)), grid: 16), 0.25)
    }
}
