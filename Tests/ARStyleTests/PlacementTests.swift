import ARCore
import ARStyle
import XCTest

final class PlacementTests: XCTestCase {
    /// An upright 60 × 40 code with its top-left corner at (100, 80).
    let quad = Quad(Rect(x: 100, y: 80, width: 60, height: 40))

    func testEachAnchorIsAPointOnTheCodesQuad() {
        let expected: [Anchor: Point] = [
            .topLeft: Point(x: 100, y: 80), .topCenter: Point(x: 130, y: 80), .topRight: Point(x: 160, y: 80),
            .centerLeft: Point(x: 100, y: 100), .center: Point(x: 130, y: 100), .centerRight: Point(x: 160, y: 100),
            .bottomLeft: Point(x: 100, y: 120), .bottomCenter: Point(x: 130, y: 120), .bottomRight: Point(x: 160, y: 120),
        ]
        for anchor in Anchor.allCases {
            XCTAssertEqual(anchor.point(on: quad), expected[anchor], anchor.rawValue)
        }
    }

    func testWithoutSizeABoxCoversTheCode() {
        let r = Placement().resolve(on: quad)
        XCTAssertEqual(r.bounds, Rect(x: 100, y: 80, width: 60, height: 40))
    }

    func testSizesInPixelsCodeUnitsAndRatio() {
        var p = Placement(width: Length(20, .px), height: Length(0.5, .code))
        XCTAssertEqual(p.resolve(on: quad).width, 20)
        XCTAssertEqual(p.resolve(on: quad).height, 20)
        p = Placement(width: Length(2, .ratio), height: Length(15, .px))
        XCTAssertEqual(p.resolve(on: quad).width, 30)
        p = Placement(width: Length(1.5, .code), height: Length(0.5, .ratio))
        XCTAssertEqual(p.resolve(on: quad).width, 90)
        XCTAssertEqual(p.resolve(on: quad).height, 45)
    }

    func testOffsetsInPixelsCodeUnitsAndOwnSize() {
        let p = Placement(anchor: .topCenter, offsetX: Length(0.5, .code), offsetY: Length(-0.5, .ownSize),
                          width: Length(20, .px), height: Length(10, .px))
        let r = p.resolve(on: quad)
        XCTAssertEqual(r.center, Point(x: 160, y: 75))
        // Half its own height up from the top edge: the bottom edge sits on the code's top edge.
        XCTAssertEqual(r.bounds.maxY, 80)
        XCTAssertEqual(Placement(offsetX: Length(7, .px)).resolve(on: quad).center, Point(x: 137, y: 100))
    }

    func testLabelsKeepTheirTextSizeUnlessASizeIsGiven() {
        let natural = NaturalSize.fixed(width: 50, height: 18)
        XCTAssertEqual(Placement().resolve(on: quad, natural: natural).width, 50)
        XCTAssertEqual(Placement(width: Length(2, .code)).resolve(on: quad, natural: natural).width, 120)
        XCTAssertEqual(Placement(width: Length(2, .code)).resolve(on: quad, natural: natural).height, 18)
    }

    func testImagesKeepTheirAspectWhenOneAxisIsGiven() {
        let r = Placement(width: Length(40, .px)).resolve(on: quad, natural: .aspect(width: 200, height: 100))
        XCTAssertEqual(r.height, 20)
    }

    func testFollowTurnsOffsetsWithTheCodeAndUprightDoesNot() {
        // The code turned 90° clockwise: its top edge runs down the screen.
        let turned = Quad(topLeft: Point(x: 200, y: 100), topRight: Point(x: 200, y: 160),
                          bottomRight: Point(x: 160, y: 160), bottomLeft: Point(x: 160, y: 100))
        let follow = Placement(anchor: .center, offsetX: Length(10, .px), rotate: .follow).resolve(on: turned)
        XCTAssertEqual(follow.angle, Double.pi / 2, accuracy: 1e-9)
        XCTAssertEqual(follow.center.x, 180, accuracy: 1e-9)
        XCTAssertEqual(follow.center.y, 140, accuracy: 1e-9)
        let upright = Placement(anchor: .center, offsetX: Length(10, .px)).resolve(on: turned)
        XCTAssertEqual(upright.angle, 0)
        XCTAssertEqual(upright.center, Point(x: 190, y: 130))
    }
}
