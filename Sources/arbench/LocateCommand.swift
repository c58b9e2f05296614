import ARCore
import ARDetect
import Foundation

/// `arbench locate IN.pgm [OUT.pgm]`: the localizer's regions and what the detector reads in them,
/// for one binary PGM image (`gst-launch-1.0 … ! pnmenc`); OUT gets the regions drawn (verified
/// white, others black).
enum LocateCommand {
    static let command = BenchCommand(name: "locate", summary: "[--regions|--full] [--repeat N] IN.pgm [OUT.pgm]: localizer regions, readings and time (median of N runs, default 5) for one image",
                                      run: run)

    static func run(_ args: [String]) throws {
        var args = args, options = DetectorOptions()
        if let i = args.firstIndex(of: "--regions") { options.locate = .regions; args.remove(at: i) }
        if let i = args.firstIndex(of: "--full") { options.locate = .full; args.remove(at: i) }
        // Timing runs (median of them); more for profiling (`perf record`).
        var runs = 5
        if let i = args.firstIndex(of: "--repeat"), i + 1 < args.count, let n = Int(args[i + 1]), n > 0 {
            runs = n
            args.removeSubrange(i...(i + 1))
        }
        guard let input = args.first else { throw BenchError.usage("arbench locate [--regions|--full] IN.pgm [OUT.pgm]") }
        var (width, height, pixels) = try readPGM(input)
        let detector = try BarcodeDetector(options: DetectorOptions(locate: options.locate, threads: 1))
        let (regions, result) = pixels.withUnsafeBytes { raw in
            let luma = LumaImage(base: raw.baseAddress!, width: width, height: height, stride: width)
            return (detector.locate(luma), detector.scan(luma))
        }
        // Time, one thread, median of `runs`: the localizer alone, then locate + decode.
        func median(_ body: () -> Void) -> Double {
            (0..<runs).map { _ in
                let t0 = DispatchTime.now().uptimeNanoseconds
                body()
                return Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
            }.sorted()[runs / 2]
        }
        pixels.withUnsafeBytes { raw in
            let luma = LumaImage(base: raw.baseAddress!, width: width, height: height, stride: width)
            let locate = median { _ = detector.locate(luma) }, scan = median { _ = detector.scan(luma) }
            print(String(format: "locate %.1f ms, locate + decode %.1f ms (locate=%@, one thread)", locate, scan,
                         "\(options.locate)"))
        }
        for r in regions {
            let c = r.quad.center
            print("\(r.kind.rawValue) at (\(Int(c.x)), \(Int(c.y))) axis \(Int(r.axisDegrees))° module \(String(format: "%.2f", r.moduleSize)) px"
                  + " score \(String(format: "%.1f", r.score))\(r.verified ? " verified" : "")"
                  + " corners " + r.quad.corners.map { String(format: "(%.1f, %.1f)", $0.x, $0.y) }.joined(separator: " "))
        }
        for d in result.codes { print("read \(d.symbology) \(d.text) quality \(d.quality) at \(Int(d.quad.center.x)), \(Int(d.quad.center.y))") }
        for l in result.located { print("located \(l.kind.rawValue) at \(Int(l.quad.center.x)), \(Int(l.quad.center.y))") }
        guard args.count > 1 else { return }
        for r in regions {
            let v: UInt8 = r.verified ? 255 : 0
            let c = r.quad.corners
            for i in 0..<4 {
                let a = c[i], b = c[(i + 1) % 4]
                let n = Int(a.distance(to: b)) + 1
                for k in 0...n {
                    let p = a + (b - a) * (Double(k) / Double(n))
                    let x = Int(p.x), y = Int(p.y)
                    if x >= 0, y >= 0, x < width, y < height { pixels[y * width + x] = v }
                }
            }
        }
        var out = Data("P5\n\(width) \(height)\n255\n".utf8)
        out.append(contentsOf: pixels)
        try out.write(to: URL(fileURLWithPath: args[1]))
    }

    private static func readPGM(_ path: String) throws -> (Int, Int, [UInt8]) {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var fields: [String] = [], i = 0
        while fields.count < 4, i < data.count {
            while i < data.count, data[i] == 32 || data[i] == 10 || data[i] == 13 || data[i] == 9 { i += 1 }
            var f = ""
            while i < data.count, !(data[i] == 32 || data[i] == 10 || data[i] == 13 || data[i] == 9) { f.append(Character(UnicodeScalar(data[i]))); i += 1 }
            fields.append(f)
        }
        i += 1
        guard fields.count == 4, fields[0] == "P5", let w = Int(fields[1]), let h = Int(fields[2]), data.count - i >= w * h else {
            throw BenchError.usage("\(path): not a binary 8-bit PGM")
        }
        return (w, h, Array(data[i..<(i + w * h)]))
    }
}
