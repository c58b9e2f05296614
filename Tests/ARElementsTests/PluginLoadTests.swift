import ARCore
import Foundation
import XCTest

/// The release-built plugin as users load it: a separate process, GST_PLUGIN_PATH, a fresh registry.
final class PluginLoadTests: XCTestCase {
    private func pluginDirectory() throws -> String { try releasePluginDirectory() }

    /// Runs a GStreamer tool with only the system plugins and `pluginDir`; returns exit status and output.
    private func run(_ tool: String, _ arguments: [String], pluginDir: String) throws -> (status: Int32, output: String) {
        let r = try runWithPlugin("/usr/bin/\(tool)", arguments, pluginDir: pluginDir)
        return (r.status, r.output + r.errors)
    }

    func testGstInspectDocumentsEveryElementAndProperty() throws {
        let dir = try pluginDirectory()
        let plugin = try run("gst-inspect-1.0", ["arbarcode"], pluginDir: dir)
        XCTAssertEqual(plugin.status, 0, plugin.output)
        for element in ["arbarcodedetect", "artrack", "arbarcodetrack", "aroverlay", "arexport"] {
            XCTAssertTrue(plugin.output.contains(element), "plugin lists \(element)")
        }
        let track = try run("gst-inspect-1.0", ["arbarcodetrack"], pluginDir: dir)
        XCTAssertEqual(track.status, 0, track.output)
        XCTAssertTrue(track.output.contains("Barcode detector and tracker"))
        for property in ["symbologies", "detect-interval", "expiry", "max-tracks"] {
            XCTAssertTrue(track.output.contains("  \(property) "), "documents \(property)")
        }
        XCTAssertTrue(track.output.contains("Range:                               0 -                              10 Default:                               1")
                      || track.output.range(of: #"Double\. Range:\s+0 -\s+10 Default:\s+1"#, options: .regularExpression) != nil,
                      "expiry shows range and default")
    }

    func testEveryElementsDebugCategoryIsListedBeforeItIsUsed() throws {
        let help = try run("gst-launch-1.0", ["--gst-debug-help"], pluginDir: try pluginDirectory())
        XCTAssertEqual(help.status, 0, help.output)
        let names = Set(help.output.split(separator: "\n").compactMap {
            // Lines: name, threshold, description (maybe with colour escapes).
            $0.replacingOccurrences(of: "\u{1b}[00m", with: "").split(separator: " ").first.map(String.init)
        })
        for element in ["arbarcodedetect", "artrack", "arbarcodetrack", "aroverlay", "arexport", "arstamp", "arcodesrc", "arrecttrack"] {
            XCTAssertTrue(names.contains(element), "--gst-debug-help lists \(element)")
        }
    }

    func testGstLaunchWritesOneLinePerFrameWithEveryCode() throws {
        let dir = try pluginDirectory()
        let clip = temporaryPath("clip.i420"), out = temporaryPath("launch.jsonl")
        var bytes: [UInt8] = []
        var truths: [[(text: String, quad: Quad)]] = []
        for i in 0..<6 {
            var f = TestFrame(width: 320, height: 240)
            f.addQR("FIRST", x: 80 + Double(i) * 5, y: 120, module: 3)
            f.addQR("SECOND", x: 240, y: 120, module: 3, rotation: 90)
            bytes += f.i420
            truths.append(f.truth)
        }
        _ = FileManager.default.createFile(atPath: clip, contents: Data(bytes))
        let launch = try run("gst-launch-1.0", ["-q", "filesrc", "location=\(clip)", "!", "rawvideoparse", "width=320", "height=240",
                                                "format=i420", "framerate=30/1", "!", "arbarcodetrack", "!", "aroverlay", "!",
                                                "arexport", "location=\(out)", "!", "fakesink"], pluginDir: dir)
        XCTAssertEqual(launch.status, 0, launch.output)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 6)
        for (i, line) in lines.enumerated() {
            let record = try FrameRecord(jsonLine: String(line))
            XCTAssertEqual(record.frame, UInt64(i))
            XCTAssertEqual(record.ptsNanoseconds, UInt64(i) * 33_333_333)
            XCTAssertEqual(Set(record.objects.map { String(decoding: $0.payload, as: UTF8.self) }), ["FIRST", "SECOND"])
            for o in record.objects {
                let truth = truths[i].first { $0.text == String(decoding: o.payload, as: UTF8.self) }!
                assertQuad(o.quad, truth.quad, within: 2)
            }
        }
    }

    func testBadPropertyValueFailsTheLaunchWithAClearMessage() throws {
        let dir = try pluginDirectory()
        let launch = try run("gst-launch-1.0", ["videotestsrc", "num-buffers=1", "!", "arbarcodetrack", "symbologies=qrcode,nope",
                                                "!", "fakesink"], pluginDir: dir)
        XCTAssertNotEqual(launch.status, 0)
        XCTAssertTrue(launch.output.contains("Invalid value for property 'symbologies': unknown symbology 'nope'"), launch.output)
    }
}
