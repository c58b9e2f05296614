import XCTest
@testable import ARCore

final class OneEuroFilterTests: XCTestCase {
    private let dt = 1.0 / 60

    func testFirstSamplePassesThrough() {
        var filter = OneEuroFilter(minCutoff: 1, beta: 0, dCutoff: 1)
        XCTAssertEqual(filter.filter(42, timestampSeconds: 0), 42)
    }

    func testConvergesToAConstant() {
        var filter = OneEuroFilter(minCutoff: 1, beta: 0, dCutoff: 1)
        _ = filter.filter(0, timestampSeconds: 0)
        var out = 0.0
        for i in 1...120 { out = filter.filter(10, timestampSeconds: Double(i) * dt) }
        // Time constant 1/(2π) s ≈ 0.16 s: after 2 s the gap is far below 0.01.
        XCTAssertEqual(out, 10, accuracy: 0.01)
        XCTAssertLessThan(out, 10)
    }

    func testSmoothsAStepInsteadOfJumping() {
        var filter = OneEuroFilter(minCutoff: 1, beta: 0, dCutoff: 1)
        _ = filter.filter(0, timestampSeconds: 0)
        let first = filter.filter(10, timestampSeconds: dt)
        // α = 1 / (1 + 60 / 2π) ≈ 0.0948.
        XCTAssertEqual(first, 10 / (1 + 60 / (2 * Double.pi)), accuracy: 1e-12)
    }

    func testFollowsARampWithSmallLagWhenBetaIsPositive() {
        func lag(beta: Double) -> Double {
            var filter = OneEuroFilter(minCutoff: 1, beta: beta, dCutoff: 1)
            var out = 0.0, value = 0.0
            for i in 0...180 {
                let t = Double(i) * dt
                value = 100 * t // 100 px/s
                out = filter.filter(value, timestampSeconds: t)
            }
            return value - out
        }
        let fast = lag(beta: 0.1), slow = lag(beta: 0)
        // Without beta the lag settles at speed × time constant = 100 / 2π px; beta cuts it by over 10x.
        XCTAssertEqual(slow, 100 / (2 * Double.pi), accuracy: 0.01)
        XCTAssertGreaterThan(fast, 0)
        XCTAssertLessThan(fast, 1.5)
    }

    func testRepeatedTimestampRestartsFromTheInput() {
        var filter = OneEuroFilter(minCutoff: 1, beta: 0, dCutoff: 1)
        _ = filter.filter(0, timestampSeconds: 1)
        XCTAssertEqual(filter.filter(5, timestampSeconds: 1), 5)
        // Restarted at 5: the next sample is smoothed from there.
        let next = filter.filter(15, timestampSeconds: 1 + dt)
        XCTAssertEqual(next, 5 + 10 / (1 + 60 / (2 * Double.pi)), accuracy: 1e-12)
    }

    func testBackwardTimestampRestartsFromTheInput() {
        var filter = OneEuroFilter(minCutoff: 1, beta: 0.5, dCutoff: 1)
        _ = filter.filter(0, timestampSeconds: 2)
        _ = filter.filter(3, timestampSeconds: 2.1)
        XCTAssertEqual(filter.filter(7, timestampSeconds: 0.5), 7)
    }

    func testResetMakesTheNextSamplePassThrough() {
        var filter = OneEuroFilter(minCutoff: 1, beta: 0, dCutoff: 1)
        _ = filter.filter(0, timestampSeconds: 0)
        _ = filter.filter(1, timestampSeconds: dt)
        filter.reset()
        XCTAssertEqual(filter.filter(100, timestampSeconds: 2 * dt), 100)
    }

    func testNonFiniteInputIsReturnedWithoutPoisoningTheState() {
        var filter = OneEuroFilter(minCutoff: 1, beta: 0, dCutoff: 1)
        _ = filter.filter(4, timestampSeconds: 0)
        XCTAssertTrue(filter.filter(.nan, timestampSeconds: dt).isNaN)
        XCTAssertEqual(filter.filter(4, timestampSeconds: 2 * dt), 4)
    }

    func testQuadSmootherFirstQuadPassesThrough() {
        var smoother = QuadSmoother(minCutoff: 1, beta: 0, dCutoff: 1)
        let quad = Quad(topLeft: Point(x: 1, y: 2), topRight: Point(x: 30, y: 4),
                        bottomRight: Point(x: 28, y: 33), bottomLeft: Point(x: 0, y: 31))
        XCTAssertEqual(smoother.smooth(quad, timestampSeconds: 0), quad)
    }

    func testQuadSmootherFiltersEachCoordinateIndependently() {
        var smoother = QuadSmoother(minCutoff: 1, beta: 0, dCutoff: 1)
        let start = Quad(Rect(x: 0, y: 0, width: 10, height: 10))
        _ = smoother.smooth(start, timestampSeconds: 0)
        let moved = start.translated(dx: 10, dy: -20)
        let out = smoother.smooth(moved, timestampSeconds: dt)
        let alpha = 1 / (1 + 60 / (2 * Double.pi))
        XCTAssertLessThan(out.maxCornerDistance(to: start.translated(dx: 10 * alpha, dy: -20 * alpha)), 1e-12)
    }

    func testQuadSmootherResetPassesTheNextQuadThrough() {
        var smoother = QuadSmoother(minCutoff: 1, beta: 0, dCutoff: 1)
        _ = smoother.smooth(Quad(Rect(x: 0, y: 0, width: 10, height: 10)), timestampSeconds: 0)
        smoother.reset()
        let far = Quad(Rect(x: 500, y: 500, width: 10, height: 10))
        XCTAssertEqual(smoother.smooth(far, timestampSeconds: dt), far)
    }
}
