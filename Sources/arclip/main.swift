// arclip: writes the ARCodeGen demo scene as raw video frames, plus optional JSON-lines ground truth.
import ARCodeGen
import ARCore
import Foundation

let usage = """
    usage: arclip --out PATH [--width 640] [--height 480] [--fps 30] [--frames 90]
                  [--format i420|gray8] [--truth PATH.jsonl]
    Writes raw frames of the demo scene back to back; play with e.g.
      gst-launch-1.0 filesrc location=PATH ! rawvideoparse width=640 height=480 format=i420 framerate=30/1 ! videoconvert ! autovideosink
    --truth writes one JSON line per frame:
      {"frame":N,"objects":[{"symbology":"QR-Code","data":"...","quad":[[x,y],[x,y],[x,y],[x,y]]}]}
    (quad: frame pixels, clockwise from the code's own top-left, quiet zone excluded).
    """

func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("arclip: \(message)\n".utf8))
    if code == 2 { FileHandle.standardError.write(Data((usage + "\n").utf8)) }
    exit(code)
}

struct Options {
    var width = 640, height = 480, frames = 90
    var fps = 30.0
    var format = "i420"
    var out: String?
    var truth: String?
}

func parse(_ args: [String]) -> Options {
    var o = Options()
    var i = 0
    while i < args.count {
        var name = args[i], value: String?
        if let eq = name.firstIndex(of: "="), name.hasPrefix("--") {
            value = String(name[name.index(after: eq)...])
            name = String(name[..<eq])
        }
        if name == "--help" || name == "-h" {
            print(usage)
            exit(0)
        }
        let known = ["--width", "--height", "--fps", "--frames", "--format", "--out", "--truth"]
        guard known.contains(name) else { fail("unknown argument '\(args[i])'") }
        if value == nil {
            i += 1
            guard i < args.count else { fail("\(name) needs a value") }
            value = args[i]
        }
        let v = value!
        func int(_ range: ClosedRange<Int>) -> Int {
            guard let n = Int(v), range.contains(n) else { fail("\(name) must be an integer in \(range), got '\(v)'") }
            return n
        }
        switch name {
        case "--width": o.width = int(1...8192)
        case "--height": o.height = int(1...8192)
        case "--frames": o.frames = int(1...1_000_000)
        case "--fps":
            guard let f = Double(v), f.isFinite, f > 0, f <= 1000 else { fail("--fps must be a number in (0, 1000], got '\(v)'") }
            o.fps = f
        case "--format":
            guard ["i420", "gray8"].contains(v.lowercased()) else { fail("--format must be i420 or gray8, got '\(v)'") }
            o.format = v.lowercased()
        case "--out": o.out = v
        default: o.truth = v
        }
        i += 1
    }
    if o.out == nil { fail("--out PATH is required") }
    return o
}

/// A JSON string literal for `bytes` (UTF-8, invalid sequences replaced by U+FFFD).
func jsonString(_ bytes: [UInt8]) -> String {
    var s = "\""
    for u in String(decoding: bytes, as: UTF8.self).unicodeScalars {
        switch u {
        case "\"": s += "\\\""
        case "\\": s += "\\\\"
        case "\n": s += "\\n"
        case "\r": s += "\\r"
        case "\t": s += "\\t"
        default:
            if u.value < 0x20 { s += String(format: "\\u%04x", u.value) } else { s.unicodeScalars.append(u) }
        }
    }
    return s + "\""
}

func truthLine(frame: Int, truth: [SceneTruth]) -> String {
    let objects = truth.map { t -> String in
        let quad = t.quad.corners.map { String(format: "[%.3f,%.3f]", $0.x, $0.y) }.joined(separator: ",")
        return "{\"symbology\":\(jsonString(Array(t.symbology.utf8))),\"data\":\(jsonString(t.payload)),\"quad\":[\(quad)]}"
    }
    return "{\"frame\":\(frame),\"objects\":[\(objects.joined(separator: ","))]}\n"
}

func open(_ path: String) -> UnsafeMutablePointer<FILE> {
    guard let f = fopen(path, "wb") else { fail("cannot write \(path): \(String(cString: strerror(errno)))", code: 1) }
    return f
}

func write(_ bytes: [UInt8], to file: UnsafeMutablePointer<FILE>, path: String) {
    let n = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
    if n != bytes.count { fail("write to \(path) failed: \(String(cString: strerror(errno)))", code: 1) }
}

let options = parse(Array(CommandLine.arguments.dropFirst()))
let scene = SyntheticScene.demo(width: options.width, height: options.height)
let outPath = options.out!
let out = open(outPath)
let truthFile = options.truth.map { open($0) }
var bytes = 0
for index in 0..<options.frames {
    let (image, truth) = scene.frame(at: index, fps: options.fps)
    let raw = options.format == "i420" ? image.i420Frame() : image.gray8Frame()
    write(raw, to: out, path: outPath)
    bytes += raw.count
    if let truthFile { write(Array(truthLine(frame: index, truth: truth).utf8), to: truthFile, path: options.truth!) }
}
if fclose(out) != 0 { fail("closing \(outPath) failed", code: 1) }
if let truthFile, fclose(truthFile) != 0 { fail("closing \(options.truth!) failed", code: 1) }

var summary = "arclip: wrote \(options.frames) frames \(options.width)x\(options.height) \(options.format) "
    + "@ \(options.fps) fps (\(bytes) bytes, \(scene.codes.count) codes) to \(outPath)"
if let t = options.truth { summary += ", truth to \(t)" }
let w = options.width, h = options.height
let padded = options.format == "i420" ? (w % 8 != 0 || h % 2 != 0) : (w % 4 != 0)
if padded {
    // Frames are tightly packed; GStreamer's default layout pads rows to 4 bytes.
    if options.format == "i420" {
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        summary += "; tightly packed, so add to rawvideoparse: plane-strides=\"<\(w),\(cw),\(cw)>\" "
            + "plane-offsets=\"<0,\(w * h),\(w * h + cw * ch)>\" frame-size=\(w * h + 2 * cw * ch)"
    } else {
        summary += "; tightly packed, so add to rawvideoparse: plane-strides=\"<\(w)>\" frame-size=\(w * h)"
    }
}
FileHandle.standardError.write(Data((summary + "\n").utf8))
