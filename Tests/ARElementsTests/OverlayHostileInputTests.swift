import ARBridge
import ARCore
import ARGst
import ARRender
import CGStreamer
import CGstCheck
import Foundation
import XCTest

/// How a child process ended.
struct ChildExit {
    var status: Int32
    /// Whether a signal ended it (a crash), `status` then being the signal.
    var signaled: Bool
    var output: String
}

/// Runs `gst-launch-1.0 -q` with `arguments` in a child process that loads the plugin built with
/// these tests (the one next to the test bundle), a fresh registry, and at most `addressSpaceKB`
/// of address space: an overlay that tried to allocate gigabytes fails there, not here.
func launchChild(_ arguments: [String], addressSpaceKB: Int = 2_000_000) throws -> ChildExit {
    let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
    guard FileManager.default.fileExists(atPath: bundle + "/libgstarbarcode.so") else {
        XCTFail("no libgstarbarcode.so next to the test bundle in \(bundle) (swift build builds it)")
        throw CocoaError(.fileNoSuchFile)
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", "ulimit -v \(addressSpaceKB); exec gst-launch-1.0 -q \"$@\"", "sh"] + arguments
    p.environment = pluginEnvironment(bundle)
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return ChildExit(status: p.terminationStatus, signaled: p.terminationReason == .uncaughtSignal,
                     output: String(decoding: data, as: UTF8.self))
}

/// Style and property values that crashed the process (a trap converting a huge double, an
/// allocation of tens of gigabytes, a fault in the blend): each now ends in a clean error naming
/// the key and the accepted range, or is drawn clamped to the frame. Run in a child process each.
final class OverlayHostileValueTests: XCTestCase {
    /// Three 320 × 240 frames with a QR code, tracked, through `aroverlay` with `overlay` arguments.
    private func run(overlay: [String]) throws -> ChildExit {
        try launchChild(["arcodesrc", "num-buffers=3", "codes=1", "kinds=qr", "enter-leave=false", "!",
                         "video/x-raw,width=320,height=240", "!", "arbarcodetrack", "!", "aroverlay"] + overlay + ["!", "fakesink"])
    }

    /// Writes `json` as a style file; returns its path.
    private func styleFile(_ json: String) throws -> String {
        let path = temporaryPath("hostile-\(UUID().uuidString).json")
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func assertCleanError(_ exit: ChildExit, _ expected: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(exit.signaled, "crashed with signal \(exit.status): \(exit.output)", file: file, line: line)
        XCTAssertNotEqual(exit.status, 0, exit.output, file: file, line: line)
        for e in expected { XCTAssertTrue(exit.output.contains(e), "'\(e)' not in: \(exit.output)", file: file, line: line) }
    }

    func testAnAbsurdLabelSizeIsAnErrorNamingTheKeyAndRangeNotATrap() throws {
        let path = try styleFile(#"{"rules": [{"overlays": [{"type": "label", "size": {"width": [1e308, "px"]}}]}]}"#)
        assertCleanError(try run(overlay: ["style=\(path)"]),
                         ["Invalid overlay style", path, "rules[0].overlays[0].size.width (line 1)", "1e+308 px is out of range 0…16384 px"])
    }

    func testHugePixelAndCodeSizesAreErrorsNotGiantAllocations() throws {
        let px = try styleFile(#"{"rules": [{"overlays": [{"type": "label", "size": {"width": [100000, "px"], "height": [100000, "px"]}}]}]}"#)
        assertCleanError(try run(overlay: ["style=\(px)"]), ["size.width (line 1)", "100000 px is out of range 0…16384 px"])
        let code = try styleFile(#"{"rules": [{"overlays": [{"type": "box", "size": {"width": [500, "code"], "height": [500, "code"]}}]}]}"#)
        assertCleanError(try run(overlay: ["style=\(code)"]), ["size.width (line 1)", "500 code is out of range 0…100 code"])
    }

    func testAHugeStyleFontIsAnErrorNamingTheKeyAndRange() throws {
        let path = try styleFile(#"{"rules": [{"overlays": [{"type": "label", "font": "Sans 100000"}]}]}"#)
        assertCleanError(try run(overlay: ["style=\(path)"]),
                         ["rules[0].overlays[0].font (line 1)", "font size 100000 points is out of range 1…1000"])
    }

    func testAHugeFontPropertyIsAnErrorNamingTheProperty() throws {
        assertCleanError(try run(overlay: ["font=Sans 30000px"]),
                         ["Invalid value for property 'font'", "font size 30000 px is out of range 1…1000"])
    }

    func testTheLargestAcceptedSizesAreDrawnClampedToTheFrame() throws {
        // A 16384-pixel label, a box 100 codes wide and a 1000-point font on a 320 × 240 frame:
        // the surfaces stay frame-sized (under 2 GB of address space in all).
        let path = try styleFile(#"""
        {"rules": [{"overlays": [
          {"type": "label", "font": "Sans 1000", "size": {"width": [16384, "px"], "height": [16384, "px"]}},
          {"type": "label", "text": "{data} {data}", "size": {"width": [100, "code"], "height": [100, "code"]}, "rotate": "follow"},
          {"type": "box", "size": {"width": [100, "code"], "height": [100, "code"]}, "offset": {"x": [-16384, "px"]}}]}]}
        """#)
        let exit = try run(overlay: ["style=\(path)"])
        XCTAssertFalse(exit.signaled, "crashed with signal \(exit.status): \(exit.output)")
        XCTAssertEqual(exit.status, 0, exit.output)
    }

    func testAFontPropertySetWhilePlayingIsDrawnNoTallerThanTheFrame() throws {
        let h = OverlayHarness("aroverlay")
        let bus = BusLog(h.element())
        h.set("font", "Sans 30000px")
        let quad = Quad(Rect(x: 100, y: 100, width: 60, height: 60))
        // Past the built-in style's 0.2 s fade-in.
        for i in 0..<5 { _ = h.push(h.black, codes: [code("HELLO", quad: quad)], seconds: Double(i) * 0.04) }
        let out = try XCTUnwrap(h.push(h.black, codes: [code("HELLO", quad: quad)], seconds: 0.2))
        // The label is drawn (white text on its dark background), clamped to the frame.
        let image = BGRxImage(bytes: out.bytes, width: 320)
        var white = 0
        for y in 0..<240 { for x in 0..<320 where image.rgb(x, y).r > 200 && image.rgb(x, y).b > 200 { white += 1 } }
        XCTAssertGreaterThan(white, 100)
        XCTAssertTrue(bus.warnings.contains { $0.contains("Invalid value for property 'font'") && $0.contains("no taller than the frame") },
                      "\(bus.warnings)")
    }
}

/// A bus attached to one element, collecting the WARNING and ELEMENT messages it posts.
final class BusLog {
    let bus: UnsafeMutablePointer<GstBus>
    private var warningTexts: [String] = []
    private var elements: [OwnedStructure] = []

    init(_ element: UnsafeMutablePointer<GstElement>) {
        bus = gst_bus_new()
        gst_element_set_bus(element, bus)
    }

    deinit {
        gst_object_unref(UnsafeMutableRawPointer(bus))
    }

    /// Moves the messages waiting on the bus into the log.
    private func collect() {
        while let msg = gst_bus_pop(bus) {
            defer { gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self)) }
            if msg.pointee.type == GST_MESSAGE_WARNING {
                var err: UnsafeMutablePointer<GError>?
                var debug: UnsafeMutablePointer<gchar>?
                gst_message_parse_warning(msg, &err, &debug)
                warningTexts.append(String(cString: err!.pointee.message))
                g_error_free(err)
                g_free(debug)
            } else if msg.pointee.type == GST_MESSAGE_ELEMENT, let s = gst_message_get_structure(msg) {
                elements.append(OwnedStructure(copying: s))
            }
        }
    }

    /// The WARNING messages posted so far.
    var warnings: [String] {
        collect()
        return warningTexts
    }

    /// The element messages named `name` posted so far.
    func elementMessages(_ name: String) -> [OwnedStructure] {
        collect()
        return elements.filter { StructureView($0.borrowed).name == name }
    }
}

/// Image paths chosen by payloads: confined to the style's folder, regular files only, loaded off
/// the streaming thread.
final class OverlayImagePathTests: XCTestCase {
    private let quad = Quad(Rect(x: 100, y: 80, width: 80, height: 80))

    /// A folder `style/` with `style.json` drawing `img/{data}.png` over each code, `style/img/`
    /// with a red `123.png`, and beside it `outside/x.png`, red too. Returns the style folder.
    private func styleFolder() throws -> String {
        let root = temporaryPath("paths-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: root + "/style/img", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
        writePNG(root + "/style/img/123.png", pattern: "red")
        writePNG(root + "/outside/x.png", pattern: "red")
        try #"{"fade": 0, "rules": [{"overlays": [{"type": "image", "file": "img/{data}.png", "warp": true}]}]}"#
            .write(toFile: root + "/style/style.json", atomically: true, encoding: .utf8)
        return root + "/style"
    }

    /// Pushes `frames` frames with one code carrying `payload`, waiting for image loads between
    /// them; returns whether the last frame has red pixels, and the warnings.
    private func draw(_ payload: [UInt8], style: String, frames: Int = 3) throws -> (red: Bool, warnings: [String]) {
        let h = OverlayHarness("aroverlay style=\(style)/style.json")
        let bus = BusLog(h.element())
        var red = false
        for i in 0..<frames {
            BackgroundImageLoads.waitForPendingLoads()
            let region = BarcodeRegion(trackID: 1, symbology: "QR-Code", payload: payload, quad: quad, state: .detected, quality: 1)
            let out = try XCTUnwrap(h.push(h.black, codes: [region], seconds: Double(i) * 0.04))
            red = BGRxImage(bytes: out.bytes, width: 320).redBounds != nil
        }
        return (red, bus.warnings)
    }

    func testAnImageIsDrawnFromTheFrameAfterItsLoadNotBefore() throws {
        let style = try styleFolder()
        let h = OverlayHarness("aroverlay style=\(style)/style.json")
        let first = try XCTUnwrap(h.push(h.black, codes: [code("123", quad: quad)], seconds: 0))
        XCTAssertNil(BGRxImage(bytes: first.bytes, width: 320).redBounds, "drawn before it was loaded")
        BackgroundImageLoads.waitForPendingLoads()
        let second = try XCTUnwrap(h.push(h.black, codes: [code("123", quad: quad)], seconds: 0.04))
        let red = try XCTUnwrap(BGRxImage(bytes: second.bytes, width: 320).redBounds)
        XCTAssertEqual(red.minX, 100, accuracy: 2)
        XCTAssertEqual(red.maxX, 179, accuracy: 2)
    }

    func testAPayloadCannotLoadAFileOutsideTheStylesFolder() throws {
        let style = try styleFolder()
        let escape = "../../../../../../../../.." + (style as NSString).deletingLastPathComponent + "/outside/x"
        let result = try draw(Array(escape.utf8), style: style)
        XCTAssertFalse(result.red, "drew \(escape).png")
        XCTAssertTrue(result.warnings.contains { $0.contains("'..' would leave '\(style)/img'") }, "\(result.warnings)")
        // The same file through a symbolic link inside the folder is refused too.
        try FileManager.default.createSymbolicLink(atPath: style + "/img/link.png",
                                                   withDestinationPath: (style as NSString).deletingLastPathComponent + "/outside/x.png")
        let linked = try draw(Array("link".utf8), style: style)
        XCTAssertFalse(linked.red, "drew through a symbolic link")
        XCTAssertTrue(linked.warnings.contains { $0.contains("a symbolic link leads out of") }, "\(linked.warnings)")
    }

    func testANulInAPayloadDoesNotCutThePath() throws {
        let style = try styleFolder()
        // Cut at the NUL, the path would name img/123 (without .png): make that a PNG too.
        writePNG(style + "/img/123", pattern: "red")
        let result = try draw(Array("123".utf8) + [0], style: style)
        XCTAssertFalse(result.red, "drew img/123")
        XCTAssertTrue(result.warnings.contains { $0.contains("contains a NUL character") }, "\(result.warnings)")
    }

    func testAFIFONamedByAPayloadNeitherBlocksTheStreamNorIsRead() throws {
        let style = try styleFolder()
        let fifo = style + "/img/fifo.png"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        // Guard for a build that opens it on the streaming thread: after 20 s writers come and go
        // until the test ends, unblocking each open, so the test fails on the warning instead of
        // hanging. Not a timing assertion.
        let done = DispatchSemaphore(value: 0)
        let guardThread = Thread {
            guard done.wait(timeout: .now() + 20) == .timedOut else { return }
            repeat {
                let fd = open(fifo, O_WRONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
            } while done.wait(timeout: .now() + 0.05) == .timedOut
        }
        guardThread.start()
        defer { done.signal() }
        let result = try draw(Array("fifo".utf8), style: style)
        XCTAssertFalse(result.red)
        XCTAssertTrue(result.warnings.contains { $0.contains("not a regular file (a FIFO)") }, "\(result.warnings)")
    }
}
