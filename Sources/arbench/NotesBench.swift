import ARCore
import ARVision
import Foundation

/// `arbench notes`: notes pinned to scene points (`SceneNotes`, as `aroverlay` runs them) on
/// generated clips: a textured scene (grey blocks, soft-edged by a box blur) seen through a moving
/// frame that pans across it and back with a hand shake, so the notes' points leave the frame and
/// return. Reports the anchoring error while a point is in view (pixels), how often a point out of
/// view was hidden and one back in view shown, and the time per frame (pyramid and following, one thread).
enum NotesBench {
    static let command = BenchCommand(name: "notes", summary: "[--clips N] [--frames N] [--size WxH] [--pan PX] [--shake PX]: note anchoring error, ms/frame",
                                      run: run)

    static func run(_ args: [String]) throws {
        func value(_ flag: String, _ fallback: String) -> String { flagValue(args, flag, fallback) }
        let clips = Int(value("--clips", "3")) ?? 3
        let frames = Int(value("--frames", "120")) ?? 120
        let size = frameSizes(value("--size", "1280x720")).first ?? (1280, 720)
        let pan = Double(value("--pan", "8")) ?? 8
        let shake = Double(value("--shake", "3")) ?? 3
        var errors: [Double] = [], ms: [Double] = []
        var outFrames = 0, hiddenOut = 0, inFrames = 0, shownIn = 0
        for clip in 0..<clips {
            var rng = UInt64(clip + 1) &* 0x9E37_79B9_7F4A_7C15
            func next() -> Double { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return Double(rng >> 11) / Double(1 << 53) }
            // The scene: wide enough for the pan, blocks of 4–12 px, blurred a little as a lens would.
            let travel = Int(pan * Double(frames) / 2) + 20
            let sw = size.0 + travel + 20, sh = size.1 + 20
            let block = 4 + clip * 4
            var scene = [UInt8](repeating: 0, count: sw * sh)
            let bw = sw / block + 1
            let values = (0..<(bw * (sh / block + 1))).map { _ in UInt8(30 + next() * 200) }
            for y in 0..<sh { for x in 0..<sw { scene[y * sw + x] = values[(y / block) * bw + x / block] } }
            // Offsets: out along the pan for half the clip, back for the other half, with a shake.
            let offsets: [(Double, Double)] = (0..<frames).map { i in
                let along = Double(i < frames / 2 ? i : frames - i) * pan
                return (10 + along + (next() - 0.5) * 2 * shake, 10 + (next() - 0.5) * 2 * shake)
            }
            var notes = SceneNotes(expiryNanoseconds: 60_000_000_000)
            // Five notes across the first frame.
            let points = (0..<5).map { k in Point(x: offsets[0].0 + Double(size.0) * (0.1 + 0.2 * Double(k)),
                                                    y: offsets[0].1 + Double(size.1) * (0.3 + 0.1 * Double(k % 3))) }
            var previous: LumaPyramid?
            for (i, (ox, oy)) in offsets.enumerated() {
                // The frame: the scene sampled at a sub-pixel offset (bilinear).
                var px = [UInt8](repeating: 0, count: size.0 * size.1)
                let fx = ox - ox.rounded(.down), fy = oy - oy.rounded(.down)
                let ix = Int(ox.rounded(.down)), iy = Int(oy.rounded(.down))
                for y in 0..<size.1 {
                    let r0 = (y + iy) * sw, r1 = r0 + sw
                    for x in 0..<size.0 {
                        let a = Double(scene[r0 + x + ix]), b = Double(scene[r0 + x + ix + 1])
                        let c = Double(scene[r1 + x + ix]), d = Double(scene[r1 + x + ix + 1])
                        px[y * size.0 + x] = UInt8((a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy)
                    }
                }
                let now = UInt64(i) * 33_333_333
                let t0 = DispatchTime.now().uptimeNanoseconds
                let pyramid = LumaPyramid(LumaPlane(width: size.0, height: size.1, pixels: px), levelCount: 4)
                if i == 0 {
                    for (k, p) in points.enumerated() { notes.add(id: UInt64(k + 1), at: Point(x: p.x - ox, y: p.y - oy), text: "", now: now, in: pyramid) }
                } else {
                    notes.advance(from: previous, to: pyramid, now: now)
                }
                ms.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                previous = pyramid
                for (k, p) in points.enumerated() {
                    guard let n = notes.notes.first(where: { $0.id == UInt64(k + 1) }) else { continue }
                    let expected = Point(x: p.x - ox, y: p.y - oy)
                    let inside = expected.x >= 0 && expected.y >= 0 && expected.x < Double(size.0) && expected.y < Double(size.1)
                    // A few pixels from the edge either answer is right.
                    let nearEdge = min(abs(expected.x), abs(Double(size.0) - expected.x)) < 4
                    if inside {
                        errors.append(n.point.distance(to: expected))
                        if !nearEdge { inFrames += 1; if n.visible { shownIn += 1 } }
                    } else if !nearEdge {
                        outFrames += 1
                        if !n.visible { hiddenOut += 1 }
                    }
                }
            }
        }
        errors.sort()
        ms.sort()
        func pct(_ a: [Double], _ q: Double) -> Double { a.isEmpty ? .nan : a[min(a.count - 1, Int(Double(a.count) * q))] }
        print("SceneNotes on \(clips) clips × \(frames) frames of \(size.0)x\(size.1), 5 notes each, pan \(pan) px/frame out and back, shake ±\(shake) px; release build, one thread")
        print("")
        print("| anchoring error in view, median / p95 / max (px) | shown while in view | hidden while out of view | ms/frame median / p95 |")
        print("| --- | --- | --- | --- |")
        print(String(format: "| %.2f / %.2f / %.2f | %d / %d | %d / %d | %.2f / %.2f |", pct(errors, 0.5), pct(errors, 0.95), errors.last ?? .nan,
                     shownIn, inFrames, hiddenOut, outFrames, pct(ms, 0.5), pct(ms, 0.95)))
    }
}
