import ARCore
import Foundation
import XCTest

/// The Python recipes in docs/examples, run as users run them: Debian's python3 (PyGObject,
/// pycairo) with the release-built plugin, on generated grey clips with exact ground truth.
final class PythonExampleTests: XCTestCase {
    private let python = "/usr/bin/python3"
    private let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/examples").path

    /// Writes `frames` as a raw GRAY8 clip; returns the gst-launch source reading it (320 × 240, 30 fps).
    private func greyClip(_ name: String, _ frames: [TestFrame]) -> String {
        let path = temporaryPath(name)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(frames.flatMap { $0.image.gray8Frame() })))
        return "filesrc location=\(path) ! rawvideoparse width=320 height=240 format=gray8 framerate=30/1"
    }

    func testReadCodesPrintsEachFramesExactPayloadsAfterVideoconvertAndVideoscale() throws {
        let dir = try releasePluginDirectory()
        var frames: [TestFrame] = []
        for i in 0..<6 {
            var f = TestFrame(width: 320, height: 240)
            f.addQR("FIRST", x: 80 + Double(i) * 4, y: 120, module: 3)
            f.addQR("Grüße, 世界 ✓", x: 230, y: 120, module: 3, rotation: 90)
            frames.append(f)
        }
        // The quads are printed in pixels of the scaled frame: twice the clip's (within 2.5 px of the clip's).
        let pipeline = greyClip("read.gray", frames)
            + " ! arbarcodetrack ! videoconvert ! videoscale ! video/x-raw,format=BGRx,width=640,height=480"
        let run = try runWithPlugin(python, [examples + "/read_codes.py", pipeline], pluginDir: dir)
        XCTAssertEqual(run.status, 0, run.errors)
        XCTAssertFalse(run.errors.contains("Traceback"), run.errors)
        var seen: [Int: [String: Quad]] = [:]
        let line = #/^frame (\d+) id (\d+) (\S+) (\S+) quad (\S+) (\S+) (\S+) (\S+) data (".*")$/#
        for text in run.output.split(separator: "\n") {
            let m = try XCTUnwrap(try line.wholeMatch(in: String(text)), "unexpected line: \(text)")
            XCTAssertNotEqual(m.output.2, "0", "a track id")
            XCTAssertEqual(m.output.3, "QR-Code")
            let corners = [m.output.5, m.output.6, m.output.7, m.output.8].map { c -> Point in
                let xy = c.split(separator: ",").map { Double($0)! }
                return Point(x: xy[0], y: xy[1])
            }
            let data = try JSONDecoder().decode(String.self, from: Data(m.output.9.utf8))
            seen[Int(m.output.1)!, default: [:]][data] = try XCTUnwrap(Quad(corners))
        }
        XCTAssertEqual(seen.keys.sorted(), Array(0..<6), run.output)
        for (i, f) in frames.enumerated() {
            XCTAssertEqual(Set(seen[i, default: [:]].keys), ["FIRST", "Grüße, 世界 ✓"], "frame \(i)")
            for truth in f.truth {
                guard let quad = seen[i]?[truth.text] else { continue }
                assertQuad(quad, try XCTUnwrap(Quad(truth.quad.corners.map { $0 * 2 })), within: 5)
            }
        }
    }

    func testDrawOnCodesPaintsWithPycairoThroughTheDrawSignal() throws {
        let dir = try releasePluginDirectory()
        var f = TestFrame(width: 320, height: 240)
        f.addQR("DRAW", x: 160, y: 120, module: 4)
        let png = temporaryPath("draw.png"), raw = temporaryPath("draw.bgrx")
        // 10 frames: the overlay has faded in fully (0.2 s) by the last one, which the PNG keeps.
        let run = try runWithPlugin(python, [examples + "/draw_on_codes.py", "--source", greyClip("draw.gray", Array(repeating: f, count: 10)),
                                             "--png", png], pluginDir: dir)
        XCTAssertEqual(run.status, 0, run.errors)
        XCTAssertFalse(run.errors.contains("Traceback"), "the handler failed: \(run.errors)")
        XCTAssertTrue(run.output.hasPrefix("drew 10 discs"), run.output)
        XCTAssertNil(runPipeline("filesrc location=\(png) ! pngdec ! videoconvert ! video/x-raw,format=BGRx ! filesink location=\(raw)"))
        let image = BGRxImage(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))), width: 320)
        let centre = f.truth[0].quad.corners.reduce(Point(x: 0, y: 0)) { $0 + $1 } * 0.25
        for (dx, dy) in [(0, 0), (-5, 0), (5, 0), (0, -5), (0, 5)] {
            let p = image.rgb(Int(centre.x) + dx, Int(centre.y) + dy)
            XCTAssertTrue(p.r > 200 && p.g < 40 && p.b > 200, "magenta disc at the code's centre +(\(dx), \(dy)): \(p)")
        }
        let far = image.rgb(20, 20)
        XCTAssertTrue(far.r == far.g && far.g == far.b, "grey background untouched: \(far)")
    }
}
