// arbench soak: memory, file descriptors and threads of a long live run.
import ARBridge
import CGStreamer
import Foundation

/// `arbench soak`: runs a camera-like live pipeline in this process for `--minutes` and samples the
/// process's resident memory, open file descriptors and threads every `--every` seconds; prints a
/// Markdown table and the growth from the end of the warm-up to the end of the run.
enum SoakBench {
    static let command = BenchCommand(
        name: "soak",
        summary: "[--minutes 10] [--size 640x360] [--codes 8] [--every 10] [--warmup 60]: RSS, fds and threads of a long live run",
        run: run)

    /// One sample of the process.
    struct Sample {
        /// Seconds since the pipeline started playing.
        var seconds: Double
        /// Resident set size, kilobytes.
        var rssKilobytes: Int
        /// Open file descriptors.
        var fds: Int
        /// Threads of the process.
        var threads: Int
        /// Stream time reached, seconds (frames / 30 at 30 fps).
        var streamSeconds: Double
    }

    static func run(_ args: [String]) throws {
        var minutes = 10.0, size = (width: 640, height: 360), codes = 8, every = 10.0, warmup = 60.0
        var pipelineTail = "arbarcodetrack ! aroverlay ! fakesink"
        var rest = args[...]
        while let a = rest.popFirst() {
            guard let v = rest.popFirst() else { throw BenchError.usage("\(a) needs a value") }
            switch a {
            case "--minutes": minutes = Double(v) ?? minutes
            case "--size": size = frameSizes(v).first ?? size
            case "--codes": codes = Int(v) ?? codes
            case "--every": every = max(1, Double(v) ?? every)
            case "--warmup": warmup = max(0, Double(v) ?? warmup)
            case "--tail": pipelineTail = v
            default: throw BenchError.usage("unknown option \(a) (--minutes, --size, --codes, --every, --warmup, --tail)")
            }
        }
        BenchGst.setUp()
        let launch = "arcodesrc is-live=true codes=\(codes) ! video/x-raw,width=\(size.width),height=\(size.height),framerate=30/1 ! "
            + pipelineTail
        var error: UnsafeMutablePointer<GError>?
        let parsed = gst_parse_launch(launch, &error)
        if let error {
            defer { g_error_free(error) }
            throw BenchError.parse(String(cString: error.pointee.message))
        }
        guard let pipeline = parsed else { throw BenchError.parse(launch) }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        let bus = gst_element_get_bus(pipeline)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        print("Soak: \(launch)")
        print("\(Int(minutes * 60)) s, a sample every \(Int(every)) s, warm-up \(Int(warmup)) s (machine: \(soakMachine()))\n")
        print("| time (s) | stream (s) | RSS (MB) | fds | threads |")
        print("|---:|---:|---:|---:|---:|")
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        let start = Date()
        let endTypes = GstMessageType(rawValue: GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_EOS.rawValue)
        var samples: [Sample] = []
        var next = 0.0
        let end = minutes * 60
        while true {
            let now = Date().timeIntervalSince(start)
            if now >= next {
                let s = sample(seconds: now, pipeline: pipeline)
                samples.append(s)
                print(String(format: "| %.0f | %.0f | %.1f | %d | %d |", s.seconds, s.streamSeconds, Double(s.rssKilobytes) / 1024,
                             s.fds, s.threads))
                fflush(nil)
                next += every
            }
            if now >= end { break }
            let wait = GstClockTime(max(0.01, min(next, end) - now) * 1e9)
            if let msg = gst_bus_timed_pop_filtered(bus, wait, endTypes) {
                defer { gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self)) }
                if msg.pointee.type == GST_MESSAGE_EOS { throw BenchError.pipeline("unexpected end of stream") }
                var err: UnsafeMutablePointer<GError>?
                gst_message_parse_error(msg, &err, nil)
                defer { g_error_free(err) }
                throw BenchError.pipeline(String(cString: err!.pointee.message))
            }
        }
        print("")
        print(growthSummary(samples, warmupSeconds: warmup))
    }

    /// The growth after `warmupSeconds`: first sample at or after the warm-up to the last sample.
    static func growthSummary(_ samples: [Sample], warmupSeconds: Double) -> String {
        guard let last = samples.last,
              let base = samples.first(where: { $0.seconds >= warmupSeconds }) ?? samples.first else { return "no samples" }
        let after = samples.filter { $0.seconds >= base.seconds }
        let peak = after.map(\.rssKilobytes).max() ?? last.rssKilobytes
        let minutes = (last.seconds - base.seconds) / 60
        return String(format: "Growth after warm-up (%.0f s to %.0f s, %.1f min): RSS %+.2f MB (peak %+.2f MB), fds %+d, threads %+d",
                      base.seconds, last.seconds, minutes, Double(last.rssKilobytes - base.rssKilobytes) / 1024,
                      Double(peak - base.rssKilobytes) / 1024, last.fds - base.fds, last.threads - base.threads)
    }

    private static func sample(seconds: Double, pipeline: UnsafeMutablePointer<GstElement>) -> Sample {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return Int(line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
        }
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        var position: gint64 = 0
        let stream = gst_element_query_position(pipeline, GST_FORMAT_TIME, &position) != 0 ? Double(position) / 1e9 : 0
        return Sample(seconds: seconds, rssKilobytes: field("VmRSS"), fds: fds, threads: field("Threads"), streamSeconds: stream)
    }
}

/// Cores and CPU model of this machine.
private func soakMachine() -> String {
    let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("model name") }
        .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
    return "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(cpu)"
}
