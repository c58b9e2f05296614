import XCTest
@testable import ARCore

final class HomographyTests: XCTestCase {
    private let square = Quad(Rect(x: 0, y: 0, width: 100, height: 100))
    private let skewed = Quad(topLeft: Point(x: 312.5, y: 40), topRight: Point(x: 610, y: 95.25),
                              bottomRight: Point(x: 580, y: 400), bottomLeft: Point(x: 290, y: 330))

    private func assertClose(_ a: Point, _ b: Point, _ tolerance: Double, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.x, b.x, accuracy: tolerance, file: file, line: line)
        XCTAssertEqual(a.y, b.y, accuracy: tolerance, file: file, line: line)
    }

    func testIdentityLeavesPointsUnchanged() {
        let p = Homography.identity.apply(Point(x: 12.5, y: -7))
        XCTAssertEqual(p, Point(x: 12.5, y: -7))
        XCTAssertEqual(Homography.identity.matrix, [1, 0, 0, 0, 1, 0, 0, 0, 1])
    }

    func testQuadToQuadMapsEachSourceCornerOntoItsTarget() throws {
        let h = try XCTUnwrap(Homography(from: square, to: skewed))
        for (s, t) in zip(square.corners, skewed.corners) { assertClose(h.apply(s), t, 1e-9) }
    }

    func testQuadToQuadIsNormalisedSoH33IsOne() throws {
        let h = try XCTUnwrap(Homography(from: square, to: skewed))
        XCTAssertEqual(h.matrix.count, 9)
        XCTAssertEqual(h.matrix[8], 1, accuracy: 1e-15)
    }

    func testTranslationBetweenQuadsIsRecoveredExactly() throws {
        let h = try XCTUnwrap(Homography(from: square, to: square.translated(dx: 30, dy: -5)))
        let expected: [Double] = [1, 0, 30, 0, 1, -5, 0, 0, 1]
        for (a, b) in zip(h.matrix, expected) { XCTAssertEqual(a, b, accuracy: 1e-9) }
    }

    func testApplyingToAQuadMapsEveryCorner() throws {
        let h = try XCTUnwrap(Homography(from: square, to: skewed))
        XCTAssertLessThan(h.apply(square).maxCornerDistance(to: skewed), 1e-9)
    }

    func testInverseMapsTargetsBackToSources() throws {
        let h = try XCTUnwrap(Homography(from: square, to: skewed))
        let inverse = try XCTUnwrap(h.inverse)
        for (s, t) in zip(square.corners, skewed.corners) { assertClose(inverse.apply(t), s, 1e-9) }
    }

    func testInverseRoundTripsAnInteriorPoint() throws {
        let h = try XCTUnwrap(Homography(from: square, to: skewed))
        let p = Point(x: 37.25, y: 81.5)
        assertClose(try XCTUnwrap(h.inverse).apply(h.apply(p)), p, 1e-9)
    }

    func testCompositionAppliesRightOperandFirst() throws {
        let shift = try XCTUnwrap(Homography(matrix: [1, 0, 10, 0, 1, 0, 0, 0, 1]))
        let double = try XCTUnwrap(Homography(matrix: [2, 0, 0, 0, 2, 0, 0, 0, 1]))
        // shift after double: (1, 1) → (2, 2) → (12, 2).
        XCTAssertEqual((shift * double).apply(Point(x: 1, y: 1)), Point(x: 12, y: 2))
        // double after shift: (1, 1) → (11, 1) → (22, 2).
        XCTAssertEqual((double * shift).apply(Point(x: 1, y: 1)), Point(x: 22, y: 2))
    }

    func testHomographyTimesItsInverseIsIdentity() throws {
        let h = try XCTUnwrap(Homography(from: square, to: skewed))
        let product = try h * XCTUnwrap(h.inverse)
        for (a, b) in zip(product.matrix, Homography.identity.matrix) { XCTAssertEqual(a, b, accuracy: 1e-9) }
    }

    func testQuadWithThreeCollinearCornersGivesNil() {
        let flat = Quad(topLeft: Point(x: 0, y: 0), topRight: Point(x: 50, y: 0),
                        bottomRight: Point(x: 100, y: 0), bottomLeft: Point(x: 0, y: 100))
        XCTAssertNil(Homography(from: square, to: flat))
        XCTAssertNil(Homography(from: flat, to: square))
    }

    func testQuadWithAllCornersEqualGivesNil() {
        let p = Point(x: 5, y: 5)
        XCTAssertNil(Homography(from: Quad(topLeft: p, topRight: p, bottomRight: p, bottomLeft: p), to: square))
    }

    func testNonFiniteCornerGivesNil() {
        var bad = square
        bad.topRight.x = .nan
        XCTAssertNil(Homography(from: bad, to: skewed))
    }

    func testLeastSquaresWithFourPairsMatchesTheExactSolution() throws {
        let exact = try XCTUnwrap(Homography(from: square, to: skewed))
        let fitted = try XCTUnwrap(Homography(from: square.corners, to: skewed.corners))
        for (a, b) in zip(fitted.matrix, exact.matrix) { XCTAssertEqual(a, b, accuracy: 1e-9) }
    }

    func testLeastSquaresRecoversAKnownHomographyFromManyPairs() throws {
        let truth = try XCTUnwrap(Homography(from: square, to: skewed))
        var source: [Point] = []
        for i in 0...5 { for j in 0...5 { source.append(Point(x: Double(i) * 20, y: Double(j) * 20)) } }
        let fitted = try XCTUnwrap(Homography(from: source, to: source.map(truth.apply)))
        let probe = Point(x: 55, y: 15)
        assertClose(fitted.apply(probe), truth.apply(probe), 1e-6)
    }

    func testLeastSquaresAveragesSymmetricNoise() throws {
        // Each target is displaced by ±0.5 px in a pattern that cancels out: the fit stays the identity.
        let source = [Point(x: 0, y: 0), Point(x: 100, y: 0), Point(x: 100, y: 100), Point(x: 0, y: 100),
                      Point(x: 50, y: 50)]
        var target = source + source
        let noise: [Double] = [0.5, -0.5, 0.5, -0.5, 0.5]
        for i in 0..<5 { target[i].x += noise[i]; target[i + 5].x -= noise[i] }
        let fitted = try XCTUnwrap(Homography(from: source + source, to: target))
        for (a, b) in zip(fitted.matrix, Homography.identity.matrix) { XCTAssertEqual(a, b, accuracy: 1e-9) }
    }

    func testLeastSquaresRejectsMismatchedOrTooFewPairs() {
        XCTAssertNil(Homography(from: Array(square.corners.prefix(3)), to: Array(skewed.corners.prefix(3))))
        XCTAssertNil(Homography(from: square.corners, to: Array(skewed.corners.prefix(3))))
    }

    func testLeastSquaresRejectsCollinearPoints() {
        let line = (0..<6).map { Point(x: Double($0) * 10, y: Double($0) * 5) }
        XCTAssertNil(Homography(from: line, to: line))
    }

    func testSingularMatrixHasNoInverse() throws {
        let singular = try XCTUnwrap(Homography(matrix: [1, 2, 3, 2, 4, 6, 0, 0, 1]))
        XCTAssertNil(singular.inverse)
    }

    func testMatrixInitRejectsWrongCountAndNonFiniteEntries() {
        XCTAssertNil(Homography(matrix: [1, 0, 0, 0, 1, 0, 0, 0]))
        XCTAssertNil(Homography(matrix: [1, 0, .infinity, 0, 1, 0, 0, 0, 1]))
        XCTAssertNil(Homography(matrix: [Double](repeating: 0, count: 9)))
    }

    func testMatrixInitNormalisesByH33() throws {
        let h = try XCTUnwrap(Homography(matrix: [2, 0, 4, 0, 2, 6, 0, 0, 2]))
        XCTAssertEqual(h.matrix, [1, 0, 2, 0, 1, 3, 0, 0, 1])
    }
}
