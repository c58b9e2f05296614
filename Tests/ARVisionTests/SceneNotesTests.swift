import ARCore
import ARVision
import XCTest

final class SceneNotesTests: XCTestCase {
    /// A textured scene (blocks of random grey with soft edges), larger than the frame.
    private let scene: (width: Int, height: Int, pixels: [UInt8]) = {
        let w = 1200, h = 600
        var rng = UInt64(12345)
        func next() -> UInt64 { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return rng >> 33 }
        var blocks = [UInt8](repeating: 0, count: (w / 6 + 1) * (h / 6 + 1))
        for i in blocks.indices { blocks[i] = UInt8(40 + next() % 180) }
        var px = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w { px[y * w + x] = blocks[(y / 6) * (w / 6 + 1) + x / 6] } }
        return (w, h, px)
    }()

    /// The 320 × 240 frame whose top-left corner is at `(ox, oy)` of the scene.
    private func frame(_ ox: Int, _ oy: Int) -> LumaPyramid {
        var px = [UInt8](repeating: 0, count: 320 * 240)
        for y in 0..<240 { for x in 0..<320 { px[y * 320 + x] = scene.pixels[(y + oy) * scene.width + x + ox] } }
        return LumaPyramid(LumaPlane(width: 320, height: 240, pixels: px), levelCount: 4)
    }

    func testANoteStaysOnItsScenePointThroughAPanAndShakeLeavesTheFrameAndComesBack() {
        var notes = SceneNotes(expiryNanoseconds: 10_000_000_000)
        // A pan right by 8 px a frame for 45 frames (the point leaves the frame), then back, with a shake of ±2 px.
        var path: [(Int, Int)] = []
        for i in 0...45 { path.append((100 + 8 * i, 200 + [0, 2, -1, 1, -2, 0, 1][i % 7])) }
        for i in stride(from: 44, through: 0, by: -1) { path.append((100 + 8 * i, 200 + [1, -2, 0, 2, -1][i % 5])) }
        let scenePoint = Point(x: 260, y: 320)
        var previous: LumaPyramid?
        var errors: [Double] = [], hiddenWhileOut = 0, outFrames = 0
        for (n, (ox, oy)) in path.enumerated() {
            let current = frame(ox, oy)
            let now = UInt64(n) * 33_333_333
            if n == 0 {
                notes.add(id: 1, at: Point(x: scenePoint.x - Double(ox), y: scenePoint.y - Double(oy)), text: "here", now: now, in: current)
            } else {
                notes.advance(from: previous, to: current, now: now)
            }
            previous = current
            let expected = Point(x: scenePoint.x - Double(ox), y: scenePoint.y - Double(oy))
            guard let note = notes.notes.first else { return XCTFail("note dropped on frame \(n)") }
            let inside = expected.x >= 0 && expected.x < 320 && expected.y >= 0 && expected.y < 240
            if inside {
                XCTAssertTrue(note.visible || expected.x > 316 || expected.x < 4, "frame \(n): in the frame, shown")
                errors.append(note.point.distance(to: expected))
            } else {
                outFrames += 1
                if !note.visible { hiddenWhileOut += 1 }
            }
        }
        XCTAssertGreaterThan(outFrames, 10, "the point left the frame")
        XCTAssertEqual(hiddenWhileOut, outFrames, "hidden while out of the frame")
        errors.sort()
        XCTAssertLessThanOrEqual(errors[errors.count / 2], 3, "median error \(errors[errors.count / 2])")
        XCTAssertLessThanOrEqual(errors.last!, 8, "worst error")
        let last = notes.notes[0]
        XCTAssertTrue(last.visible)
        XCTAssertLessThanOrEqual(last.point.distance(to: Point(x: 160, y: 120 + 1)), 4, "back at its place: \(last.point)")
    }

    /// Something in front of a note's spot hides it on the second covered frame; uncovered, it is back.
    func testACoveredSpotHidesItsNoteUntilItIsSeenAgain() {
        var notes = SceneNotes()
        let clear = frame(200, 200)
        var coveredPixels = clear.levels[0].pixels
        for y in 80..<160 { for x in 120..<200 { coveredPixels[y * 320 + x] = 128 } }
        let covered = LumaPyramid(LumaPlane(width: 320, height: 240, pixels: coveredPixels), levelCount: 4)
        notes.add(id: 1, at: Point(x: 160, y: 120), text: "spot", now: 0, in: clear)
        var shown: [Bool] = []
        var previous = clear
        for (i, f) in [clear, covered, covered, covered, clear, clear].enumerated() {
            notes.advance(from: previous, to: f, now: UInt64(i + 1) * 33_333_333)
            previous = f
            shown.append(notes.notes[0].visible)
        }
        XCTAssertEqual(shown, [true, true, false, false, true, true])
        XCTAssertEqual(notes.notes[0].point.distance(to: Point(x: 160, y: 120)), 0, accuracy: 1, "not moved while covered")
    }

    func testNotesAreEditedRemovedAndExpireOutOfTheFrame() {
        var notes = SceneNotes(expiryNanoseconds: 1_000_000_000)
        notes.add(id: 7, at: Point(x: -50, y: 10), text: "a", now: 0)
        notes.add(id: 8, at: Point(x: 50, y: 10), text: "b", now: 0)
        XCTAssertTrue(notes.edit(8, text: "B"))
        XCTAssertFalse(notes.edit(9, text: "x"))
        let still = frame(0, 0)
        notes.advance(from: still, to: still, now: 500_000_000)
        XCTAssertEqual(notes.notes.map(\.visible), [false, true])
        notes.advance(from: still, to: still, now: 1_200_000_000)
        XCTAssertEqual(notes.notes.map(\.id), [8], "out of the frame for over a second: dropped")
        XCTAssertEqual(notes.notes.first?.text, "B")
        XCTAssertTrue(notes.remove(8))
        XCTAssertFalse(notes.remove(8))
    }
}
