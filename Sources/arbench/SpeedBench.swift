import ARCodeGen
import ARCore
import ARBridge
import CGStreamer
import Foundation

/// `arbench detect [frames] [--sizes 1280x720,1920x1080] [--codes N]`: milliseconds per frame
/// (locate + decode, one thread: both elements work on the streaming thread) of the stock `zbar`
/// element and of `arbarcodedetect` (all symbologies, QR only, zbar's scan only) on the same
/// synthetic clips, by default 720p and 1080p with two QR codes, an EAN-13 and a Code 128 moving
/// over a textured background; `--codes N`: arcodesrc's clip of N codes instead (e.g.
/// `--sizes 3840x2160 --codes 40`), in one run. Each element's time per buffer is taken between pad probes on its sink and source pads
/// (both in-place, same thread), so decoding and file reading are not counted. Median over frames.
enum SpeedBench {
    static let configurations: [(label: String, element: String)] = [
        ("stock `zbar` (all symbologies)", "zbar cache=false"),
        ("`arbarcodedetect` (defaults: locate=auto, threads=0)", "arbarcodedetect"),
        ("`arbarcodedetect threads=1` (one core)", "arbarcodedetect threads=1"),
        ("`arbarcodedetect locate=regions threads=1`", "arbarcodedetect locate=regions threads=1"),
        ("`arbarcodedetect locate=full threads=1` (the whole frame, then passes)", "arbarcodedetect locate=full threads=1"),
        ("`arbarcodedetect locate=full max-regions=0` (zbar scan only)", "arbarcodedetect locate=full max-regions=0"),
        ("`arbarcodedetect symbologies=qrcode threads=1`", "arbarcodedetect symbologies=qrcode threads=1"),
    ]

    static func run(_ args: [String]) throws {
        var frames = 30, codes: Int?
        var sizes = [(1280, 720), (1920, 1080)]
        var i = 0
        while i < args.count {
            let value = i + 1 < args.count ? args[i + 1] : ""
            switch args[i] {
            case "--codes": codes = Int(value); i += 1
            case "--sizes":
                sizes = frameSizes(value)
                i += 1
            default: frames = Int(args[i]) ?? frames
            }
            i += 1
        }
        guard !sizes.isEmpty, codes.map({ $0 > 0 }) ?? true, frames > 0 else {
            throw BenchError.usage("usage: arbench detect [frames] [--sizes WxH,…] [--codes N]")
        }
        var results: [[Double]] = configurations.map { _ in [] }
        for (w, h) in sizes {
            let path = NSTemporaryDirectory() + "arbench-\(w)x\(h)-\(getpid()).i420"
            try writeClip(path: path, width: w, height: h, frames: frames, codes: codes)
            defer { try? FileManager.default.removeItem(atPath: path) }
            for (i, c) in configurations.enumerated() {
                let times = try timePerBuffer(element: c.element, path: path, width: w, height: h)
                results[i].append(median(times) / 1e6)
            }
        }
        print("| element | " + sizes.map { "\($0.0)x\($0.1) ms/frame" }.joined(separator: " | ") + " |")
        print("| --- |" + String(repeating: " ---: |", count: sizes.count))
        for (i, c) in configurations.enumerated() {
            print("| \(c.label) | " + results[i].map { String(format: "%.1f", $0) }.joined(separator: " | ") + " |")
        }
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":").last?
            .trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        print("\n\(frames) frames per size, \(codes.map { "\($0) codes (arcodesrc's clip, seed 7)" } ?? "4 codes"), median; \(ProcessInfo.processInfo.activeProcessorCount) cores, \(cpu)")
    }

    /// A raw I420 clip of the moving codes, scaled to `width × height`; with `codes`, arcodesrc's
    /// clip of that many codes.
    static func writeClip(path: String, width: Int, height: Int, frames: Int, codes count: Int?) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw BenchError.usage("cannot write \(path)")
        }
        defer { try? file.close() }
        if let count {
            let clip = try CodeClip(CodeClipOptions(width: width, height: height, seed: 7, codeCount: count))
            for i in 0..<frames { file.write(Data(clip.frame(at: i).image.i420Frame())) }
            return
        }
        let s = Double(width) / 1280
        func at(_ x: Double, _ y: Double, module: Double, rotation: Double = 0) -> CodePlacement {
            CodePlacement(center: Point(x: x * s, y: y * s), moduleSize: module * s, rotationDegrees: rotation)
        }
        let codes = [
            try SceneCode.qr("https://example.com/arbarcode/benchmark", placement: at(250, 200, module: 4),
                             velocity: Point(x: 40 * s, y: 10 * s)),
            try SceneCode.qr("SECOND QR CODE 0123456789", placement: at(1000, 220, module: 3, rotation: 20),
                             velocity: Point(x: -30 * s, y: 20 * s)),
            try SceneCode.ean13("4006381333931", placement: at(350, 520, module: 2.5), velocity: Point(x: 30 * s, y: -10 * s)),
            try SceneCode.code128("ARBARCODE-128", placement: at(900, 560, module: 2), velocity: Point(x: -20 * s, y: -15 * s)),
        ]
        let scene = try SyntheticScene(width: width, height: height, codes: codes, seed: 7)
        for i in 0..<frames {
            file.write(Data(scene.frame(at: i, fps: 30).image.i420Frame()))
        }
    }

    /// Nanoseconds `element` spent on each buffer of the clip.
    static func timePerBuffer(element: String, path: String, width: Int, height: Int) throws -> [Double] {
        BenchGst.setUp()
        let launch = "filesrc location=\(path) ! rawvideoparse width=\(width) height=\(height) format=i420 framerate=30/1 "
            + "! \(element) name=dut ! fakesink"
        var error: UnsafeMutablePointer<GError>?
        guard let pipeline = gst_parse_launch(launch, &error), error == nil else { throw BenchError.parse(launch) }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        let dut = gst_bin_get_by_name(bin, "dut")!
        defer { gst_object_unref(UnsafeMutableRawPointer(dut)) }
        let clock = ProbeClock()
        let user = Unmanaged.passUnretained(clock).toOpaque()
        let sink = gst_element_get_static_pad(dut, "sink")!, src = gst_element_get_static_pad(dut, "src")!
        defer { gst_object_unref(UnsafeMutableRawPointer(sink)); gst_object_unref(UnsafeMutableRawPointer(src)) }
        gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_BUFFER, { _, _, user in
            Unmanaged<ProbeClock>.fromOpaque(user!).takeUnretainedValue().enter = DispatchTime.now().uptimeNanoseconds
            return GST_PAD_PROBE_OK
        }, user, nil)
        gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, { _, _, user in
            let c = Unmanaged<ProbeClock>.fromOpaque(user!).takeUnretainedValue()
            c.times.append(Double(DispatchTime.now().uptimeNanoseconds - c.enter))
            return GST_PAD_PROBE_OK
        }, user, nil)
        let bus = gst_element_get_bus(pipeline)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        let types = GstMessageType(rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue)
        guard let msg = gst_bus_timed_pop_filtered(bus, 600 * 1_000_000_000, types) else { throw BenchError.pipeline("timeout") }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self)) }
        guard msg.pointee.type == GST_MESSAGE_EOS else { throw BenchError.pipeline("\(element) failed") }
        return clock.times
    }

    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        return s.isEmpty ? 0 : s[s.count / 2]
    }
}

/// Probe state: when the current buffer entered, and each buffer's time inside the element.
private final class ProbeClock {
    var enter: UInt64 = 0
    var times: [Double] = []
}
