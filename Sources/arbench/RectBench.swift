import ARCodeGen
import ARCore
import ARVision
import Foundation

/// `arbench rect`: `arrecttrack`'s detector and tracker on generated clips of framed pictures on
/// painted walls, drifting and turning up to 45° and back: corner error (fraction of the poster's
/// mean side), coverage (frames where the poster is reported within 5 % of its size), id changes,
/// and time per frame (pyramid, tracking and the throttled searches, one thread).
enum RectBench {
    static let command = BenchCommand(name: "rect", summary: "[--clips N] [--first-clip K] [--frames N] [--size WxH] [--rate SEARCHES/S] [--write FILE.rgba] [--search-side PX] [--detail]: poster tracking error, coverage, ms/frame",
                                      run: run)

    static func run(_ args: [String]) throws {
        func value(_ flag: String, _ fallback: String) -> String { flagValue(args, flag, fallback) }
        let clips = Int(value("--clips", "6")) ?? 6
        let firstClip = Int(value("--first-clip", "0")) ?? 0
        let frames = Int(value("--frames", "90")) ?? 90
        let size = frameSizes(value("--size", "640x480")).first ?? (640, 480)
        let rate = Double(value("--rate", "2")) ?? 2
        var detector = RectangleDetector()
        detector.maxSearchSide = Int(value("--search-side", "\(detector.maxSearchSide)")) ?? detector.maxSearchSide
        let detail = args.contains("--detail")
        let frameNs: UInt64 = 33_333_333
        // The first clip's frames as raw RGBA, for a video to try the pipelines on.
        let raw = args.firstIndex(of: "--write").map { _ in value("--write", "") }
        if let raw { _ = FileManager.default.createFile(atPath: raw, contents: nil) }
        let rawFile = raw.flatMap { FileHandle(forWritingAtPath: $0) }
        defer { try? rawFile?.close() }
        var errors: [Double] = [], covered = 0, total = 0, idChanges = 0, found = 0
        var trackMs: [Double] = [], searchMs: [Double] = []
        for clip in firstClip..<(firstClip + clips) {
            let wall = PosterScene.wall(width: size.width, height: size.height, seed: UInt64(clip))
            let picture = PosterScene.picture(width: 320, height: 240, seed: UInt64(clip))
            let pw = Double(size.width) * 0.375, ph = pw * 0.75
            var tracker = RectangleTracker()
            var throttle = SearchThrottle(searchesPerSecond: rate)
            var previous: LumaPyramid?
            var lastID: UInt64?
            for i in 0..<frames {
                let truth = PosterScene.quad(time: Double(i) / Double(frames), frameWidth: size.width, frameHeight: size.height,
                                             posterWidth: pw, posterHeight: ph)
                let composed = PosterScene.compose(picture, onto: wall, at: truth)
                if clip == firstClip { rawFile?.write(Data(composed.pixels)) }
                let luma = composed.luma()
                let t = UInt64(i) * frameNs
                let t0 = DispatchTime.now().uptimeNanoseconds
                let pyramid = LumaPyramid(LumaPlane(width: luma.width, height: luma.height, pixels: luma.pixels), levelCount: 4)
                if let previous { tracker.advance(from: previous, to: pyramid, timestampNanoseconds: t) }
                var detections: [RectangleCandidate] = []
                var searched = 0.0
                if throttle.isDue(at: t) {
                    let s0 = DispatchTime.now().uptimeNanoseconds
                    detections = detector.detect(pyramid)
                    searched = Double(DispatchTime.now().uptimeNanoseconds - s0) / 1e6
                    searchMs.append(searched)
                    throttle.started(at: t)
                }
                let update = tracker.update(detections: detections, pyramid: pyramid, timestampNanoseconds: t)
                trackMs.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                previous = pyramid
                total += 1
                let best = update.tracks.filter { $0.state != .lost }.min { $0.quad.maxCornerDistance(to: truth) < $1.quad.maxCornerDistance(to: truth) }
                guard let best else { continue }
                let error = best.quad.maxCornerDistance(to: truth) / truth.meanSide
                if detail, i % 10 == 0 || !detections.isEmpty {
                    let off = zip(best.quad.corners, truth.corners).map { String(format: "(%+.1f,%+.1f)", $0.x - $1.x, $0.y - $1.y) }
                    print(String(format: "clip %d frame %2d: error %.2f %%%@ corners off %@", clip, i, 100 * error,
                                 detections.isEmpty ? "" : " (searched)", off.joined(separator: " ")))
                }
                errors.append(error)
                if error <= 0.05 { covered += 1 }
                if i == 0 { found += 1 }
                if let lastID, lastID != best.id { idChanges += 1 }
                lastID = best.id
            }
        }
        func pct(_ v: [Double], _ p: Double) -> Double { v.isEmpty ? .nan : v.sorted()[min(v.count - 1, Int(Double(v.count) * p))] }
        print("arbench rect: \(clips) clips × \(frames) frames, \(size.width)x\(size.height), poster \(Int(Double(size.width) * 0.375)) px wide, turning to 45°, \(rate) searches/s")
        print(String(format: "found on the first frame: %d/%d clips; coverage (within 5 %% of its size): %.1f %%; id changes: %d",
                     found, clips, 100 * Double(covered) / Double(max(1, total)), idChanges))
        print(String(format: "corner error (max of 4 corners / mean side): median %.2f %%, p95 %.2f %%", 100 * pct(errors, 0.5), 100 * pct(errors, 0.95)))
        print(String(format: "ms/frame (pyramid + tracking + searches): median %.2f, p95 %.2f; one search: median %.1f ms",
                     pct(trackMs, 0.5), pct(trackMs, 0.95), pct(searchMs, 0.5)))
    }
}
