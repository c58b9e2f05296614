import ARCore
import ARServe
import Foundation

/// `arbench stream`: glass-to-glass latency and server CPU of an annotated RTSP stream.
///
/// The server is the real `arserve` process serving a camera-like pipeline
/// (`arcodesrc is-live=true ! arstamp ! arbarcodetrack ! aroverlay`, H.264 appended by arserve).
/// `arstamp` writes the capture time into each frame; viewers in this process decode the stream
/// and read it back, so latency covers tracking, overlay, encoding, RTP over loopback,
/// depayloading and decoding (everything but the camera's exposure and the display).
enum StreamBench {
    static func run(_ args: [String]) throws {
        var width = 1280, height = 720, seconds = 10.0, codes = 8
        var rest = args[...]
        while let a = rest.popFirst() {
            guard let v = rest.popFirst() else { throw StreamBenchError("\(a) needs a value") }
            switch a {
            case "--width": width = Int(v) ?? width
            case "--height": height = Int(v) ?? height
            case "--seconds": seconds = Double(v) ?? seconds
            case "--codes": codes = Int(v) ?? codes
            default: throw StreamBenchError("unknown option \(a) (--width, --height, --seconds, --codes)")
            }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("arbench-stream.pipeline").path
        let pipeline = """
            # arbench stream: a camera-like live source, stamped at capture.
            arcodesrc is-live=true codes=\(codes) ! video/x-raw,width=\(width),height=\(height),framerate=30/1
              ! arstamp ! arbarcodetrack ! aroverlay
            """
        _ = FileManager.default.createFile(atPath: file, contents: Data(pipeline.utf8))
        let server = try ServerProcess(file: file)
        defer { server.stop() }
        print("arserve: \(server.url) (\(server.encoderLine))")
        print("\nGlass-to-glass latency and server CPU, \(width)x\(height) at 30 fps, \(codes) moving codes, \(Int(seconds)) s per row")
        print("(machine: \(machineDescription()))\n")
        print("| viewers | frames/s per viewer | latency median (ms) | latency p95 (ms) | stamps read | arserve CPU (% of one core) |")
        print("|---:|---:|---:|---:|---:|---:|")
        for viewers in [1, 2] {
            let row = try measure(url: server.url, viewers: viewers, width: width, height: height, seconds: seconds, server: server)
            print(row)
        }
    }

    private static func measure(url: String, viewers count: Int, width: Int, height: Int, seconds: Double,
                                server: ServerProcess) throws -> String {
        let samples = LatencySamples()
        let stamp = LatencyStamp()
        var viewers: [RTSPViewer] = []
        for _ in 0..<count {
            viewers.append(RTSPViewer(url: url, width: width, height: height) { rgb, arrival in
                guard samples.recording else { return }
                let read = stamp.read(frameHeight: height) { x, y in
                    let i = (y * width + x) * 3
                    return (Int(rgb[i]) + Int(rgb[i + 1]) + Int(rgb[i + 2])) / 3
                }
                if let read {
                    samples.add(Double(LatencyStamp.elapsed(stamp: read, nowMicroseconds: arrival / 1000)) / 1000)
                } else {
                    samples.miss()
                }
            })
        }
        // Warm up: connection, first key frame, tracker start.
        let warm = Date().addingTimeInterval(30)
        while viewers.contains(where: { $0.framesDecoded < 30 }) && Date() < warm {
            if let e = viewers.compactMap(\.error).first { throw StreamBenchError("viewer: \(e)") }
            usleep(50_000)
        }
        let frames0 = viewers.map(\.framesDecoded)
        let cpu0 = server.cpuSeconds, t0 = Date()
        samples.recording = true
        Thread.sleep(forTimeInterval: seconds)
        samples.recording = false
        let elapsed = Date().timeIntervalSince(t0), cpu = server.cpuSeconds - cpu0
        let fps = zip(viewers.map(\.framesDecoded), frames0).map { Double($0 - $1) / elapsed }
        let (median, p95, read, total) = samples.summary()
        return String(format: "| %d | %.1f | %.0f | %.0f | %d/%d | %.0f |", count, fps.min() ?? 0, median, p95, read, total,
                      100 * cpu / elapsed)
    }
}

/// Latencies in milliseconds, from the viewers' streaming threads.
private final class LatencySamples: @unchecked Sendable {  // Mutable state is guarded by `lock`.
    private let lock = NSLock()
    private var values: [Double] = []
    private var misses = 0
    private var _recording = false
    var recording: Bool {
        get { lock.lock(); defer { lock.unlock() }; return _recording }
        set { lock.lock(); _recording = newValue; lock.unlock() }
    }

    func add(_ ms: Double) { lock.lock(); values.append(ms); lock.unlock() }
    func miss() { lock.lock(); misses += 1; lock.unlock() }

    func summary() -> (median: Double, p95: Double, read: Int, total: Int) {
        lock.lock(); defer { lock.unlock() }
        let s = values.sorted()
        guard !s.isEmpty else { return (.nan, .nan, 0, misses) }
        return (s[s.count / 2], s[min(s.count - 1, Int(Double(s.count) * 0.95))], s.count, s.count + misses)
    }
}

/// `arserve` in a child process (next to this binary), with its CPU time from /proc.
private final class ServerProcess {
    let process = Process()
    let url: String
    let encoderLine: String

    init(file: String) throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arserve")
        process.executableURL = binary
        process.arguments = [file, "--port", "0"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        var text = ""
        while !text.contains("watch with"), process.isRunning {
            text += String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        }
        guard let range = text.range(of: #"rtsp://[^ \n]+"#, options: .regularExpression) else {
            throw StreamBenchError("arserve did not start: \(text)")
        }
        url = String(text[range])
        encoderLine = text.split(separator: "\n").first { $0.contains("H.264") }.map(String.init) ?? ""
    }

    /// User + system CPU seconds used so far.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else { return 0 }
        return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func stop() {
        if process.isRunning {
            process.interrupt()
            process.waitUntilExit()
        }
    }
}

struct StreamBenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Cores and CPU model of this machine, for the tables.
private func machineDescription() -> String {
    let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("model name") }
        .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
    return "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(cpu)"
}
