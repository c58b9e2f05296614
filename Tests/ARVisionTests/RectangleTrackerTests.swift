import ARCodeGen
import ARCore
import ARVision
import XCTest

final class SearchThrottleTests: XCTestCase {
    func testSearchesAreDueAtMostRateTimesPerSecondOfBufferTime() {
        var t = SearchThrottle(searchesPerSecond: 2)
        XCTAssertTrue(t.isDue(at: 5), "the first at once")
        t.started(at: 5)
        XCTAssertFalse(t.isDue(at: 5 + 499_999_000))
        XCTAssertTrue(t.isDue(at: 5 + 500_000_000))
        XCTAssertTrue(t.isDue(at: 1), "a timestamp going back (a seek) is due")
        t.reset()
        XCTAssertTrue(t.isDue(at: 6))
    }
}

final class RectangleTrackerTests: XCTestCase {
    private func pyramid(_ time: Double) -> (LumaPyramid, Quad) {
        let (plane, quad) = PosterFixture.frame(time)
        return (LumaPyramid(plane, levelCount: 4), quad)
    }

    /// A detection starts a track; the same place found again continues it; it expires `expiry`
    /// after it was last followed and is reported `lost` once.
    func testIDsContinueAndExpireOnce() {
        var tracker = RectangleTracker(expiryNanoseconds: 100_000_000, maxTracks: 4)
        let (p0, q0) = pyramid(0)
        let found = RectangleCandidate(quad: q0, aspect: 0.75, confidence: 0.99)
        let first = tracker.update(detections: [found], pyramid: p0, timestampNanoseconds: 0)
        XCTAssertEqual(first.added.map(\.id), [1])
        XCTAssertEqual(first.tracks.map(\.state), [.detected])
        let again = tracker.update(detections: [RectangleCandidate(quad: q0.translated(dx: 2, dy: 1), aspect: 0.75, confidence: 0.98)],
                                   pyramid: p0, timestampNanoseconds: 33_000_000)
        XCTAssertEqual(again.added, [])
        XCTAssertEqual(again.tracks.map(\.id), [1])
        // Not followed (no advance), not found: lost once past the expiry, then gone.
        XCTAssertEqual(tracker.update(detections: [], pyramid: p0, timestampNanoseconds: 120_000_000).removed, [])
        let gone = tracker.update(detections: [], pyramid: p0, timestampNanoseconds: 140_000_000)
        XCTAssertEqual(gone.removed.map(\.id), [1])
        XCTAssertEqual(gone.tracks.map(\.state), [.lost])
        XCTAssertEqual(tracker.update(detections: [], pyramid: p0, timestampNanoseconds: 200_000_000).tracks, [])
    }

    /// Rectangles match by look as well as place: a poster swapped for another at the same place
    /// does not inherit the first one's id (the first is lost, the new one added), while the same
    /// poster found again under other light, turned a quarter in its plane, keeps its id.
    func testAnotherPictureAtATracksPlaceStartsANewTrack() {
        var tracker = RectangleTracker(expiryNanoseconds: 1_000_000_000, maxTracks: 4)
        let (p0, q0) = pyramid(0)
        let found = RectangleCandidate(quad: q0, aspect: 0.75, confidence: 0.99)
        XCTAssertEqual(tracker.update(detections: [found], pyramid: p0, timestampNanoseconds: 0).added.map(\.id), [1])

        // The same poster, darker and with less contrast, its corners listed from another one.
        var dim = PosterFixture.frame(0).plane
        for k in dim.pixels.indices { dim.pixels[k] = UInt8(20 + Int(dim.pixels[k]) * 6 / 10) }
        let c = q0.corners
        let turned = RectangleCandidate(quad: Quad([c[1], c[2], c[3], c[0]])!, aspect: 0.75, confidence: 0.98)
        let again = tracker.update(detections: [turned], pyramid: LumaPyramid(dim, levelCount: 4), timestampNanoseconds: 33_000_000)
        XCTAssertEqual(again.added, [])
        XCTAssertEqual(again.removed, [])
        XCTAssertEqual(again.tracks.map(\.id), [1])
        XCTAssertEqual(again.tracks.first?.quad.topLeft, q0.topLeft, "the track keeps its own first corner")

        // Another picture in the same frame on the same wall.
        let other = PosterScene.compose(PosterScene.picture(width: 160, height: 120, seed: 11), onto: PosterFixture.wall, at: q0).luma()
        let swapped = LumaPyramid(PosterFixture.plane(LumaPlane(width: other.width, height: other.height, pixels: other.pixels)), levelCount: 4)
        let update = tracker.update(detections: [found], pyramid: swapped, timestampNanoseconds: 66_000_000)
        XCTAssertEqual(update.removed.map(\.id), [1], "the first poster is gone")
        XCTAssertEqual(update.added.map(\.id), [2], "the new one gets its own id")
        XCTAssertEqual(update.tracks.map(\.state), [.lost, .detected])
    }

    /// The shared lifecycle: at most `maxTracks` rectangles, and ids never reused after a reset
    /// (a flush) or a frame-size change.
    func testMaxTracksHoldsAndIdsAreNotReusedAfterAReset() {
        var tracker = RectangleTracker(expiryNanoseconds: 100_000_000, maxTracks: 1)
        let (p0, q0) = pyramid(0)
        let here = RectangleCandidate(quad: q0, aspect: 0.75, confidence: 0.9)
        let elsewhere = RectangleCandidate(quad: q0.translated(dx: 300, dy: 0), aspect: 0.75, confidence: 0.99)
        let first = tracker.update(detections: [here, elsewhere], pyramid: p0, timestampNanoseconds: 0)
        XCTAssertEqual(first.tracks.map(\.id), [1], "one rectangle at most")
        tracker.reset()
        XCTAssertEqual(tracker.update(detections: [here], pyramid: p0, timestampNanoseconds: 0).added.map(\.id), [2])
        tracker.rescale(sx: 0.5, sy: 0.5)
        XCTAssertEqual(tracker.tracks, [])
        XCTAssertEqual(tracker.update(detections: [here], pyramid: p0, timestampNanoseconds: 33_000_000).added.map(\.id), [3])
    }

    /// A poster a third covered by a textured card that stays still while the poster moves is
    /// still followed by its visible texture (within 5 % of its size): points on the card disagree.
    func testAPartlyCoveredPosterIsFollowed() {
        let (p0, q0) = pyramid(0)
        guard var target = PlanarTarget(quad: q0, pyramid: p0) else { return XCTFail("no texture") }
        let card = TexturedBackground.image(width: 320, height: 240, seed: 9)
        var previous = p0
        for i in 1...10 {
            var (plane, truth) = PosterFixture.frame(Double(i) / 40)
            for y in 60..<180 { for x in 96..<140 { plane.pixels[y * plane.width + x] = card[x, y] } }
            let next = LumaPyramid(plane, levelCount: 4)
            XCTAssertTrue(target.track(from: previous, to: next), "frame \(i)")
            XCTAssertLessThanOrEqual(target.quad.maxCornerDistance(to: truth), 0.05 * truth.meanSide, "frame \(i)")
            previous = next
        }
    }
}
