import ARCore
import ARStyle
import XCTest

final class LabelLayoutTests: XCTestCase {
    private func label(_ code: UInt64, _ x: Double, _ y: Double, index: Int = 0, w: Double = 100, h: Double = 20,
                       angle: Double = 0) -> LabelLayout.Item {
        LabelLayout.Item(code: code, index: index, rect: PlacedRect(center: Point(x: x, y: y), width: w, height: h, angle: angle))
    }

    private func overlap(_ a: PlacedRect, _ b: PlacedRect) -> Bool {
        let p = a.bounds, q = b.bounds
        return min(p.maxX, q.maxX) > max(p.minX, q.minX) && min(p.maxY, q.maxY) > max(p.minY, q.minY)
    }

    /// Lays out the same items `frames` times (a still scene), returning the last frame's result.
    private func settle(_ layout: inout LabelLayout, _ items: [LabelLayout.Item], frames: Int = 12) -> [LabelLayout.Placed] {
        var out: [LabelLayout.Placed] = []
        for _ in 0..<frames { out = layout.place(items, width: 640, height: 480) }
        return out
    }

    func testLabelsOfTwoCodesSideBySideEndApartWithLeaderLines() {
        var layout = LabelLayout()
        let items = [label(1, 300, 100), label(2, 330, 100)]
        let out = settle(&layout, items)
        XCTAssertFalse(overlap(out[0].rect, out[1].rect), "\(out)")
        // Pushed apart vertically (they overlap least that way), half the way each.
        XCTAssertEqual(out[0].rect.center.y, 89, accuracy: 1e-6)
        XCTAssertEqual(out[1].rect.center.y, 111, accuracy: 1e-6)
        XCTAssertEqual(out[0].rect.center.x, 300, accuracy: 1e-9)
        // Moved by about half their height: a leader line back to where each belongs.
        XCTAssertNotNil(out[0].leader)
        XCTAssertEqual(out[0].leader?.to, Point(x: 300, y: 100))
    }

    func testLabelsOfOneCodeKeepTheirArrangement() {
        var layout = LabelLayout()
        let items = [label(1, 300, 100, index: 0), label(1, 300, 110, index: 1)]
        let out = settle(&layout, items)
        XCTAssertEqual(out.map(\.rect.center), items.map(\.rect.center))
        XCTAssertEqual(out.compactMap(\.leader).count, 0)
    }

    func testLabelsStayInsideTheFrame() {
        var layout = LabelLayout()
        let out = settle(&layout, [label(1, 10, 5), label(2, 630, 475)])
        XCTAssertEqual(out[0].rect.bounds.minX, 0, accuracy: 1e-9)
        XCTAssertEqual(out[0].rect.bounds.minY, 0, accuracy: 1e-9)
        XCTAssertEqual(out[1].rect.bounds.maxX, 640, accuracy: 1e-9)
        XCTAssertEqual(out[1].rect.bounds.maxY, 480, accuracy: 1e-9)
    }

    func testAnAppearingNeighbourMovesALabelSmoothlyNotAtOnce() {
        var layout = LabelLayout()
        let alone = [label(1, 300, 100)]
        _ = layout.place(alone, width: 640, height: 480)
        var ys: [Double] = []
        for _ in 0..<10 { ys.append(layout.place(alone + [label(2, 300, 110)], width: 640, height: 480)[0].rect.center.y) }
        let final = ys.last!
        XCTAssertLessThan(final, 100 - 5, "moved up in the end")
        // Each frame covers half of the remaining way: no jump to the end on the first frame.
        XCTAssertEqual(ys[0], 100 + (final - 100) * 0.5, accuracy: 0.5)
        for (a, b) in zip(ys, ys.dropFirst()) { XCTAssertLessThanOrEqual(b, a + 1e-9, "monotonic") }
        // The neighbour leaves: back the same way.
        let back = layout.place(alone, width: 640, height: 480)[0].rect.center.y
        XCTAssertEqual(back, final + (100 - final) * 0.5, accuracy: 0.5)
    }

    func testManyLabelsOnOnePlaceAllEndApart() {
        var layout = LabelLayout()
        let items = (1...6).map { label(UInt64($0), 320, 240 + Double($0)) }
        let out = settle(&layout, items, frames: 20)
        for i in out.indices { for j in out.indices where j > i { XCTAssertFalse(overlap(out[i].rect, out[j].rect), "\(i) \(j)") } }
    }

    func testRotatedLabelsStayWithTheirCode() {
        var layout = LabelLayout()
        let items = [label(1, 300, 100, angle: 0.5), label(2, 300, 100)]
        let out = settle(&layout, items)
        XCTAssertEqual(out[0].rect, items[0].rect)
        XCTAssertFalse(overlap(out[0].rect, out[1].rect))
    }
}
