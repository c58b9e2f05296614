// arbench track: tracking accuracy and speed on arcodesrc clips, scored against the exact corners.
import ARBridge
import ARCodeGen
import ARCore
import ARDetect
import ARElements
import CGStreamer
import Foundation

/// `arbench track`: see `TrackBench.usage`.
let trackCommand = BenchCommand(name: "track", summary: "tracking accuracy and speed on arcodesrc clips (Markdown table)",
                                run: { try TrackBench(arguments: $0).run() })

struct TrackBenchError: Error, CustomStringConvertible {
    var description: String
}

/// One method's scores on one clip.
struct TrackScore {
    var method: String
    var visible = 0, covered = 0
    var cornerErrors: [Double] = []
    /// Corner errors of QR codes only (2D corners; 1D outlines come from scan lines).
    var qrCornerErrors: [Double] = []
    var idSwitches: Int?
    var latencies: [Double] = []
    /// Streaming-thread time per frame, milliseconds.
    var frameMilliseconds: [Double] = []
    var throughputFPS: Double?
    var late: Int?, dropped: Int?
    /// Live: late frames the source pushed after their render time (its streaming thread, which runs the elements too, was held by earlier frames or the machine).
    var lateFromSource: Int?
    /// Tracks (distinct ids) whose payload is no code's in the clip, and the frames they were reported on.
    var falseTracks = 0, falseTrackFrames = 0
    /// Frames with a code reported (detected or tracked) that is not visible at all on that frame,
    /// more than `TrackBench.vanishGraceFrames` after it was last visible.
    var vanishedDrawn = 0
    /// Live: arrival at the sink after each buffer's timestamp, ms, and the sink's render time (latency), ms.
    var arrivals: [Double] = []
    var renderMilliseconds: Double?

    var coverage: Double { visible == 0 ? 0 : Double(covered) / Double(visible) }
}

struct TrackBench {
    static let usage = """
        usage: arbench track [--preset camera] [--frames 240] [--sizes 1280x720,1920x1080] [--codes 10] [--seed 7] [--interval 5] [--async-interval 1]
                             [--h264 KBPS] [--no-live] [--no-stock] [--repeat 1] [--late-detail] [--keep] [--reuse DIR] [--track "locate=regions threads=1"]
                             [--clip speed=0.12,rotation-speed=20,scale-change=0.1,perspective=0.1,occluders=0,noise=2,blur=0,code-size=0.17]
        Renders arcodesrc clips (30 fps, moving QR / EAN-13 / Code 128 codes) once into a file, passed
        through H.264 with --h264 (x264enc threads=1 at KBPS kbit/s, speed-preset=veryfast, key-int-max=60, then
        avdec_h264), and replays the same decoded frames to every row: arbarcodetrack (sync, and async
        paced live at 30 fps), the stock approaches (zbar on every frame; zbar every Nth frame holding the
        last position) and zxing-cpp on every frame; each frame is scored against the generator's truth.
        --no-stock skips the stock and zxing-cpp rows; --repeat N makes N sync runs and N stock zbar runs in
        turn and takes each one's timing columns from its fastest run (their other columns are the
        same in every run); --late-detail lists when the caps event passed each element (against the
        first frame's timestamp), the first three live frames and each late one (to stderr): when the source pushed it and the time spent in arbarcodetrack,
        after its timestamp, each id switch, each code a row missed on a frame (with the code's centre and the nearest output of its payload) and each vanished code it drew. --keep keeps the clip, its truth and every row's JSON Lines
        (the folder is printed); --reuse DIR replays the clip and truth kept there (each size given must have
        been kept; the clip options are then not used) and writes the rows' JSON Lines there. --clip sets any arcodesrc property (the defaults shown;
        names and ranges checked against arcodesrc's property table). --interval is the sync run's
        detect-interval (and the stock row's N); --async-interval the live run's (default 1, the
        element's default: a full scan with the tracks' re-decodes as often as the worker can).
        --track adds arbarcodetrack properties to both of its rows (GStreamer refuses unknown ones).
        --preset NAME stands for the options in `TrackBench.presets` (later options override them):
        \(presets.map { "\($0.name): \($0.arguments.joined(separator: " "))" }.joined(separator: "\n"))
        """

    /// Named option sets, expanded where `--preset NAME` stands. `camera`: what a phone or webcam
    /// stream looks like (shake, pan, auto exposure, textured background, real photos of codes,
    /// distractors, sensor noise, H.264 at a streaming bitrate). `fast`: the same scene moving three
    /// times as fast with the shutter open the whole frame (a conveyor, a hand sweeping a scanner):
    /// 1D codes blurred 2–8 modules across their bars.
    static let presets: [(name: String, arguments: [String])] = [
        ("camera", ["--sizes", "1920x1080", "--h264", "6000",
                    "--clip", "shake=6,pan=40,exposure=0.0167,background=texture,photos=\(corpus),photo-count=6,distractors=3,blur=0,noise=3"]),
        ("fast", ["--sizes", "1920x1080", "--h264", "6000",
                  "--clip", "shake=6,pan=120,speed=0.4,exposure=0.0333,background=texture,photos=\(corpus),photo-count=6,distractors=3,blur=0,noise=3"]),
    ]
    /// Photos for the camera preset: `$CORPUS`, else the shared zxing-cpp samples.
    static var corpus: String {
        URL(fileURLWithPath: ProcessInfo.processInfo.environment["CORPUS"] ?? "../shared/corpus/zxing-cpp-samples").standardizedFileURL.path
    }
    /// arcodesrc properties the bench sets itself (options of their own, or its replay needs).
    static let benchProperties: Set<String> = ["is-live", "prerender", "truth-location", "seed", "codes"]
    /// Frames a code may still be reported after it was last visible before it counts as "vanished drawn".
    static let vanishGraceFrames: UInt64 = 3

    var frames = 240
    var sizes: [(Int, Int)] = [(1280, 720), (1920, 1080)]
    var codes = 10
    var seed = 7
    var interval = 5
    /// `detect-interval` of the live async run: the element's default, full scans as often as the
    /// worker can (each with the tracks' re-decodes); `--interval` is for sync and the stock rows.
    var asyncInterval = 1
    var live = true
    var stockRows = true
    /// `--repeat`: sync runs and stock zbar runs made, one after the other; the timing columns
    /// of each come from its fastest (the machine's speed drifts between runs).
    var repeats = 1
    var lateDetail = false
    /// Keep the clip, truth and outputs (their folder is printed).
    var keep = false
    /// `--reuse`: a folder kept by an earlier run, whose clips and truth are replayed.
    var reuse: String?
    /// `--h264`: the clip passes through H.264 at this bitrate, kbit/s, before every row.
    var h264Kbps: Int?
    /// arcodesrc properties from `--clip`, in the order given (checked against arcodesrc's table);
    /// a key given again replaces its earlier value.
    var clipProperties: [(String, String)] = []
    /// `--track`: more arbarcodetrack properties (`name=value` separated by spaces), e.g. `locate=regions`.
    var trackProperties = ""
    let symbologies = "qrcode,ean13,code128"

    init(arguments given: [String]) throws {
        var arguments = given
        while let p = arguments.firstIndex(of: "--preset") {
            let name = p + 1 < arguments.count ? arguments[p + 1] : ""
            guard let preset = Self.presets.first(where: { $0.name == name }) else {
                throw TrackBenchError(description: "--preset: unknown preset \"\(name)\"\n" + Self.usage)
            }
            arguments.replaceSubrange(p..<min(p + 2, arguments.count), with: preset.arguments)
        }
        var i = 0
        func value() throws -> String {
            i += 1
            guard i < arguments.count else { throw TrackBenchError(description: "missing value\n" + Self.usage) }
            return arguments[i]
        }
        /// A whole number of at least `min` (intervals and frame counts of 0 make no run).
        func number(min: Int = 1) throws -> Int {
            let option = arguments[i], text = try value()
            guard let n = Int(text), n >= min else {
                throw TrackBenchError(description: "\(option): expected a whole number ≥ \(min), got \"\(text)\"\n" + Self.usage)
            }
            return n
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--frames": frames = try number()
            case "--codes": codes = try number()
            case "--seed": seed = try number(min: 0)
            case "--interval": interval = try number()
            case "--async-interval": asyncInterval = try number()
            case "--no-live": live = false
            case "--no-stock": stockRows = false
            case "--repeat": repeats = try number()
            case "--late-detail": lateDetail = true
            case "--keep": keep = true
            case "--reuse": reuse = try value()
            case "--h264": h264Kbps = try number()
            case "--clip": try parseClip(try value())
            case "--track": trackProperties = try value()
            case "--sizes":
                sizes = frameSizes(try value())
            default: throw TrackBenchError(description: "unknown option \(arguments[i])\n" + Self.usage)
            }
            i += 1
        }
    }

    /// `key=value,…` with arcodesrc's property names, passed to arcodesrc as given. Numbers are
    /// checked against arcodesrc's own ranges (its property table); other values (strings,
    /// enumerations) are left to arcodesrc, which refuses what it cannot take when the clip starts.
    mutating func parseClip(_ text: String) throws {
        for item in text.split(separator: ",") {
            let kv = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard kv.count == 2, !kv[1].isEmpty else {
                throw TrackBenchError(description: "--clip: expected key=value, got \"\(item)\"\n" + Self.usage)
            }
            guard let property = ArCodeSrc.properties.first(where: { $0.name == kv[0] }), !Self.benchProperties.contains(kv[0]) else {
                throw TrackBenchError(description: "--clip: \(kv[0]) is not an arcodesrc property the bench lets --clip set\n" + Self.usage)
            }
            let range: ClosedRange<Double>?
            switch property.kind {
            case .double(let lo, let hi): range = lo...hi
            case .uint(let lo, let hi): range = Double(lo)...Double(hi)
            case .int(let lo, let hi): range = Double(lo)...Double(hi)
            default: range = nil
            }
            if let range {
                guard let number = Double(kv[1]), range.contains(number) else {
                    throw TrackBenchError(description: "--clip: \(kv[0])=\(kv[1]) is not a number in arcodesrc's range \(range.lowerBound)…\(range.upperBound)")
                }
                if case .double = property.kind {} else if number != number.rounded() {
                    throw TrackBenchError(description: "--clip: \(kv[0]) takes a whole number, got \(kv[1])")
                }
            }
            clipProperties.removeAll { $0.0 == kv[0] }
            clipProperties.append((kv[0], kv[1]))
        }
    }

    func run() throws {
        BenchGst.setUp()
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.split(separator: "\n")
            .first { $0.hasPrefix("model name") }.map { String($0.split(separator: ":").last ?? "").trimmingCharacters(in: .whitespaces) } ?? "?"
        // A replayed clip's options are those it was kept with, not this run's.
        let clipText = "\(frames) frames at 30 fps, \(codes) codes, seed \(seed)"
            + (clipProperties.isEmpty ? "" : ", arcodesrc " + clipProperties.map { "\($0.0)=\($0.1)" }.joined(separator: " "))
            + (h264Kbps.map { ", through H.264 at \($0) kbit/s (x264enc threads=1 speed-preset=veryfast key-int-max=60, avdec_h264 max-threads=1)" } ?? "")
        print("Machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(cpu). Clips: "
              + (reuse.map { "replayed from \($0)" } ?? clipText) + ", symbologies \(symbologies)."
              + (repeats > 1 ? " Sync and stock zbar timing: the fastest of \(repeats) runs each, made in turn." : "") + "\n")
        var lines: [String] = []
        var zxingVersion: String?
        for (w, h) in sizes {
            let dir = reuse ?? FileManager.default.temporaryDirectory.appendingPathComponent("arbench-track-\(getpid())").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { if keep || reuse != nil { print("kept: \(dir)") } else { try? FileManager.default.removeItem(atPath: dir) } }
            let truthPath = "\(dir)/truth-\(w)x\(h).jsonl", framesPath = "\(dir)/frames-\(w)x\(h).i420"
            // Rendered once (all cores), then replayed: every row sees these frames.
            let source = "arcodesrc prerender=true num-buffers=\(frames) seed=\(seed) codes=\(codes) truth-location=\(truthPath)"
                + clipProperties.map { " \($0.0)=\($0.1)" }.joined()
                + " ! video/x-raw,format=I420,width=\(w),height=\(h),framerate=30/1"
            let clip = reuse != nil ? try ClipFrames.existing(path: framesPath, width: w, height: h)
                : try ClipFrames.render(source: source, width: w, height: h, h264Kbps: h264Kbps, path: framesPath)
            let truth = try readTruth(truthPath)
            var scores: [TrackScore] = []
            var sync = try pipelineRun(clip, mode: "sync", dir: dir)
            var stocks = stockRows ? try stock(clip, truth: truth) : []
            // Sync output and stock readings are the same every run: only the timing is kept from the fastest.
            for _ in 1..<repeats {
                let again = try pipelineRun(clip, mode: "sync", dir: dir)
                guard again.records == sync.records else {
                    throw TrackBenchError(description: "--repeat: the sync runs wrote different JSON Lines; their timing cannot be compared")
                }
                if again.milliseconds.reduce(0, +) < sync.milliseconds.reduce(0, +) { sync = again }
                guard stockRows else { continue }
                for (k, s) in try stock(clip, truth: truth).enumerated()
                where s.frameMilliseconds.reduce(0, +) < stocks[k].frameMilliseconds.reduce(0, +) {
                    stocks[k].frameMilliseconds = s.frameMilliseconds
                }
            }
            scores.append(score(sync.records, truth: truth, method: "arbarcodetrack sync (interval \(interval))", timing: sync))
            if live {
                let a = try pipelineRun(clip, mode: "async", dir: dir)
                scores.append(score(a.records, truth: truth, method: "arbarcodetrack async (interval \(asyncInterval)), live 30 fps", timing: a))
            }
            if stockRows {
                scores += stocks
                let (z, version) = try zxing(clip, truth: truth)
                scores.append(z)
                zxingVersion = version
            }
            lines += scores.map { row("\(w)x\(h)", $0) }
        }
        if let zxingVersion {
            print("zxing-cpp \(zxingVersion) (Python package): `read_barcodes` on each frame's luma with its defaults, formats "
                  + "restricted to the symbologies above; ms/frame timed in its process around that call (time.perf_counter, one thread).\n")
        }
        print("| clip | method | coverage | corner err median / p95 (all) | corner err median / p95 (QR) | id switches | false tracks / frames | vanished drawn | new code tracked after (median / max) | streaming thread ms/frame (median / p95) | throughput fps | late / dropped | at sink after pts ms, median / max (render time) |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        lines.forEach { print($0) }
    }

    // MARK: Pipelines

    struct Run {
        var records: [FrameRecord]
        var milliseconds: [Double]
        var late: Int
        /// Of `late`, the frames the source pushed after their render time.
        var lateFromSource: Int
        var frames: Int
        var arrivals: [Double]
        var latencyNanoseconds: Int64
    }

    /// Per-run measurements written by pad probes on the streaming threads.
    final class Probe {
        var entered: [UInt64: UInt64] = [:]
        var milliseconds: [Double] = []
        var late = 0, arrived = 0
        /// Live: each buffer's arrival at the sink after its timestamp, ms; the sink's configured latency, ns.
        var arrivals: [Double] = []
        /// Live: when the source pushed each arrived buffer, ms after its timestamp (arrival order).
        var pushDelays: [Double] = []
        var latencyNanoseconds: Int64 = 0
        /// Live: per pts, when the source pushed it (running time, ns); with `--late-detail` the element's time, µs.
        var pushed: [UInt64: UInt64] = [:]
        var elementMicroseconds: [UInt64: UInt64] = [:]
        /// With `--late-detail`: each arrived buffer's frame index and time in the element, ms (arrival order).
        var details: [(index: UInt64, element: Double)] = []
        var detail = false
        /// Timestamp of the first buffer at the sink, nanoseconds: frame indices count from it.
        var firstPts: UInt64?
        /// Live, with `--late-detail`: each probed pad's name and the running time the caps event
        /// passed it, ns, in the order it passed them (downstream).
        var capsPassed: [(pad: String, nanoseconds: UInt64)] = []
        var element: UnsafeMutablePointer<GstElement>?
    }

    /// A probe and the name of the pad it watches, handed to a pad probe's callback.
    final class PadTag {
        let probe: Probe
        let name: String
        init(probe: Probe, name: String) { (self.probe, self.name) = (probe, name) }
    }

    func pipelineRun(_ clip: ClipFrames, mode: String, dir: String) throws -> Run {
        let (width, height) = (clip.width, clip.height)
        let out = "\(dir)/\(mode)-\(width)x\(height).jsonl"
        let isLive = mode == "async"
        // The clip's frames, read into memory before the first is pushed, so the source costs
        // nothing per frame and the run measures the tracker, not the renderer or the codec. Live:
        // the source reports one frame of latency, as a camera (and arcodesrc) does.
        let buffers = try clip.buffers()
        let launch = "appsrc name=src is-live=\(isLive) format=time min-latency=\(ReplayFeeder.frameNanoseconds)"
            + " caps=\"video/x-raw,format=I420,width=\(width),height=\(height),framerate=30/1\""
            + " ! arbarcodetrack name=t detect-mode=\(mode) detect-interval=\(isLive ? asyncInterval : interval) symbologies=\(symbologies) \(trackProperties)"
            + " ! arexport location=\(out) ! fakesink name=sink sync=\(isLive)"
        var err: UnsafeMutablePointer<GError>?
        guard let pipeline = gst_parse_launch(launch, &err) else {
            throw TrackBenchError(description: "cannot build pipeline: \(err.map { String(cString: $0.pointee.message) } ?? "")")
        }
        defer { gst_object_unref(UnsafeMutableRawPointer(pipeline)) }
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        let tracker = gst_bin_get_by_name(bin, "t")!, sink = gst_bin_get_by_name(bin, "sink")!, appsrc = gst_bin_get_by_name(bin, "src")!
        defer { [tracker, sink, appsrc].forEach { gst_object_unref(UnsafeMutableRawPointer($0)) } }
        let probe = Probe()
        probe.element = sink
        let data = Unmanaged.passUnretained(probe).toOpaque()
        let sinkPad = gst_element_get_static_pad(tracker, "sink")!, srcPad = gst_element_get_static_pad(tracker, "src")!
        let fakePad = gst_element_get_static_pad(sink, "sink")!
        defer { [sinkPad, srcPad, fakePad].forEach { gst_object_unref(UnsafeMutableRawPointer($0)) } }
        gst_pad_add_probe(sinkPad, GST_PAD_PROBE_TYPE_BUFFER, { _, info, data in
            let p = Unmanaged<Probe>.fromOpaque(data!).takeUnretainedValue()
            let buffer = UnsafeMutableRawPointer(info!.pointee.data).assumingMemoryBound(to: GstBuffer.self)
            p.entered[UInt64(buffer.pointee.pts)] = UInt64(g_get_monotonic_time())
            return GST_PAD_PROBE_OK
        }, data, nil)
        gst_pad_add_probe(srcPad, GST_PAD_PROBE_TYPE_BUFFER, { _, info, data in
            let p = Unmanaged<Probe>.fromOpaque(data!).takeUnretainedValue()
            let buffer = UnsafeMutableRawPointer(info!.pointee.data).assumingMemoryBound(to: GstBuffer.self)
            if let t0 = p.entered.removeValue(forKey: UInt64(buffer.pointee.pts)) {
                if p.detail { p.elementMicroseconds[UInt64(buffer.pointee.pts)] = UInt64(g_get_monotonic_time()) - t0 }
                p.milliseconds.append(Double(UInt64(g_get_monotonic_time()) - t0) / 1000)
            }
            return GST_PAD_PROBE_OK
        }, data, nil)
        gst_pad_add_probe(fakePad, GST_PAD_PROBE_TYPE_BUFFER, { _, info, data in
            let p = Unmanaged<Probe>.fromOpaque(data!).takeUnretainedValue()
            let buffer = UnsafeMutableRawPointer(info!.pointee.data).assumingMemoryBound(to: GstBuffer.self)
            p.arrived += 1
            let element = p.element!
            if let clock = gst_element_get_clock(element) {
                let now = gst_clock_get_time(clock)
                gst_object_unref(UnsafeMutableRawPointer(clock))
                let base = gst_element_get_base_time(element)
                // Late, as the sink sees it: arriving after its render time, the timestamp plus the
                // latency the pipeline runs with (the source's frame plus the sink's processing
                // deadline). A video sink would drop such a frame or show it late. Every live
                // pipeline configures that latency only after the sink's first buffer (the sink
                // cannot answer the latency query before), so frames are judged against the
                // latency configured at the end of the run; counted once the run is over.
                let pts = UInt64(buffer.pointee.pts)
                if p.firstPts == nil { p.firstPts = pts }
                let arrival = Int64(bitPattern: UInt64(now &- base)) - Int64(pts)
                let latency = Int64(gst_base_sink_get_latency(UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstBaseSink.self)))
                p.latencyNanoseconds = latency
                p.arrivals.append(Double(arrival) / 1e6)
                p.pushDelays.append(p.pushed[pts].map { Double(Int64(bitPattern: $0) - Int64(pts)) / 1e6 } ?? 0)
                if p.detail { p.details.append(((pts - p.firstPts!) / 33_333_333, Double(p.elementMicroseconds[pts] ?? 0) / 1000)) }
            }
            return GST_PAD_PROBE_OK
        }, data, nil)
        probe.detail = lateDetail && isLive
        if probe.detail {
            // When the caps event passes each pad, against the first frame's timestamp.
            let appsrcPad = gst_element_get_static_pad(appsrc, "src")!
            defer { gst_object_unref(UnsafeMutableRawPointer(appsrcPad)) }
            for (pad, name) in [(appsrcPad, "source"), (sinkPad, "arbarcodetrack in"), (srcPad, "arbarcodetrack out"), (fakePad, "sink")] {
                let tag = Unmanaged.passRetained(PadTag(probe: probe, name: name)).toOpaque()
                gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, { _, info, tag in
                    let event = UnsafeMutableRawPointer(info!.pointee.data).assumingMemoryBound(to: GstEvent.self)
                    guard event.pointee.type == GST_EVENT_CAPS else { return GST_PAD_PROBE_OK }
                    let tag = Unmanaged<PadTag>.fromOpaque(tag!).takeUnretainedValue()
                    guard let clock = gst_element_get_clock(tag.probe.element) else { return GST_PAD_PROBE_OK }
                    tag.probe.capsPassed.append((tag.name, UInt64(gst_clock_get_time(clock) &- gst_element_get_base_time(tag.probe.element))))
                    gst_object_unref(UnsafeMutableRawPointer(clock))
                    return GST_PAD_PROBE_OK
                }, tag, { Unmanaged<PadTag>.fromOpaque($0!).release() })
            }
        }
        if isLive {
            let srcSrc = gst_element_get_static_pad(appsrc, "src")!
            gst_pad_add_probe(srcSrc, GST_PAD_PROBE_TYPE_BUFFER, { _, info, data in
                let p = Unmanaged<Probe>.fromOpaque(data!).takeUnretainedValue()
                let buffer = UnsafeMutableRawPointer(info!.pointee.data).assumingMemoryBound(to: GstBuffer.self)
                let element = p.element!
                if let clock = gst_element_get_clock(element) {
                    let now = gst_clock_get_time(clock)
                    gst_object_unref(UnsafeMutableRawPointer(clock))
                    p.pushed[UInt64(buffer.pointee.pts)] = UInt64(now &- gst_element_get_base_time(element))
                }
                return GST_PAD_PROBE_OK
            }, data, nil)
            gst_object_unref(UnsafeMutableRawPointer(srcSrc))
        }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        ReplayFeeder(appsrc: appsrc, pipeline: pipeline, buffers: buffers, live: isLive, negotiated: fakePad).start()
        let bus = gst_element_get_bus(pipeline)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        let types = GstMessageType(rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue)
        guard let msg = gst_bus_timed_pop_filtered(bus, GstClockTime.max, types) else { throw TrackBenchError(description: "no EOS") }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self)) }
        gst_element_set_state(pipeline, GST_STATE_NULL)
        if msg.pointee.type == GST_MESSAGE_ERROR {
            var e: UnsafeMutablePointer<GError>?
            gst_message_parse_error(msg, &e, nil)
            throw TrackBenchError(description: "pipeline failed: \(e.map { String(cString: $0.pointee.message) } ?? "")")
        }
        let render = Double(probe.latencyNanoseconds) / 1e6
        probe.late = probe.arrivals.filter { $0 > render }.count
        let lateFromSource = zip(probe.arrivals, probe.pushDelays).filter { $0.0 > render && $0.1 > render }.count
        if let first = probe.firstPts, !probe.capsPassed.isEmpty {
            let passed = probe.capsPassed.map { String(format: "\($0.pad) %.1f", (Double($0.nanoseconds) - Double(first)) / 1e6) }
            FileHandle.standardError.write(Data("\(mode) \(width)x\(height) caps event passed, ms after frame 0's pts: \(passed.joined(separator: ", "))\n".utf8))
        }
        // Judged, as counted, against the latency of the run.
        for (i, d) in probe.details.enumerated() {
            let arrival = probe.arrivals[i], late = arrival > render
            guard late || d.index < 3 || d.element > 8 else { continue }
            let line = String(format: "frame %llu: \(late ? "LATE" : "ok"), arrived %.1f ms after its pts, render time %.1f ms after (source pushed it %.1f ms after pts), %.1f ms in the element",
                              d.index, arrival, render, probe.pushDelays[i], d.element)
            FileHandle.standardError.write(Data("\(mode) \(width)x\(height) \(line)\n".utf8))
        }
        return Run(records: try readRecords(out), milliseconds: probe.milliseconds, late: probe.late, lateFromSource: lateFromSource,
                   frames: probe.arrived,
                   arrivals: probe.arrivals, latencyNanoseconds: probe.latencyNanoseconds)
    }

    /// The ground truth: every frame's visible codes, and which objects are photos shown as cards.
    struct Truth {
        var frames: [FrameRecord]
        /// Ids of objects written with `"outline":"card"`: the quad is the card's outline around a
        /// code in a photo, not the code's corners (counted in coverage, not in corner error).
        var cards: Set<UInt64>
    }

    /// The records of a JSON Lines file (arexport's schema). Objects in state `located` (a region
    /// seen but not decoded: no payload) are left out; objects with `"outline":"card"` are listed.
    func readTruth(_ path: String) throws -> Truth {
        var truth = Truth(frames: [], cards: [])
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            var text = String(line)
            if text.contains("\"located\"") || text.contains("\"outline\"") {
                guard var root = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                      let objects = root["objects"] as? [[String: Any]] else { throw TrackBenchError(description: "\(path): bad line \(text)") }
                for o in objects where o["outline"] as? String == "card" {
                    if let id = o["id"] as? NSNumber { truth.cards.insert(id.uint64Value) }
                }
                root["objects"] = objects.filter { $0["state"] as? String != "located" }
                text = String(decoding: try JSONSerialization.data(withJSONObject: root), as: UTF8.self)
            }
            truth.frames.append(try FrameRecord(jsonLine: text))
        }
        return truth
    }

    func readRecords(_ path: String) throws -> [FrameRecord] { try readTruth(path).frames }

    // MARK: Stock approaches

    func stock(_ clip: ClipFrames, truth: Truth) throws -> [TrackScore] {
        let (width, height) = (clip.width, clip.height)
        // What the stock `zbar` element does: zbar over the whole frame, nothing else (outlines the detector's).
        let detector = try BarcodeDetector(symbologies: Symbology.parseList(symbologies), options: .zbarOnly)
        var every: [FrameRecord] = [], held: [FrameRecord] = []
        var everyMs: [Double] = [], heldMs: [Double] = []
        var tracker = Tracker()
        try clip.forEachLuma { i, luma in
            let t0 = DispatchTime.now().uptimeNanoseconds
            let found = detector.detect(LumaImage(base: luma.baseAddress!, width: width, height: height, stride: width))
            let ms = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
            everyMs.append(ms)
            let pts = UInt64(i) * ReplayFeeder.frameNanoseconds
            every.append(record(i, clip, found.map { ObjectRecord(id: 0, symbology: $0.symbology, payload: $0.payload, quad: $0.quad, state: .detected) }))
            let decoded = i % interval == 0
            heldMs.append(decoded ? ms : 0)
            let update = tracker.update(detections: decoded ? found : [], timestampNanoseconds: pts)
            held.append(record(i, clip, update.tracks.map(ObjectRecord.init)))
        }
        var a = score(every, truth: truth, method: "stock: zbar every frame", timing: nil)
        a.frameMilliseconds = everyMs
        a.idSwitches = nil
        var b = score(held, truth: truth, method: "stock: zbar every \(interval)th frame, holding position", timing: nil)
        b.frameMilliseconds = heldMs
        return [a, b]
    }

    /// zxing-cpp on every frame of `clip` (its own process, formats = this bench's symbologies),
    /// and the package's version.
    func zxing(_ clip: ClipFrames, truth: Truth) throws -> (TrackScore, String) {
        let formats = try symbologies.split(separator: ",").map { name in
            guard let f = ZXing.formatNames[String(name)] else { throw TrackBenchError(description: "no zxing-cpp format for \(name)") }
            return f
        }
        let z = try ZXing.read(i420: clip.path, width: clip.width, height: clip.height, formats: formats)
        let records = z.readings.enumerated().map { i, reading in
            record(i, clip, (reading?.codes ?? []).compactMap { c in
                c.quad.map { ObjectRecord(id: 0, symbology: c.type, payload: c.payload, quad: $0, state: .detected) }
            })
        }
        var s = score(records, truth: truth, method: "zxing-cpp every frame", timing: nil)
        s.frameMilliseconds = z.readings.map { $0?.milliseconds ?? .nan }
        s.idSwitches = nil
        return (s, z.version)
    }

    /// Frame `i` of `clip` with `objects`, as the stock rows report it.
    private func record(_ i: Int, _ clip: ClipFrames, _ objects: [ObjectRecord]) -> FrameRecord {
        FrameRecord(frame: UInt64(i), ptsNanoseconds: UInt64(i) * ReplayFeeder.frameNanoseconds, width: clip.width, height: clip.height,
                    objects: objects)
    }

    // MARK: Scoring

    /// A payload as compared with the truth, like the accuracy bench: a reading's text (`PayloadText`,
    /// as the JSON Lines' `data` and the corpus's `.txt` files hold it), line endings normalised,
    /// UPC-A / UPC-E / EAN-13 as the GTIN-13 they stand for. A truth payload (`symbology` nil) is
    /// text already and judged by its digits.
    static func payloadKey(_ symbology: String?, _ payload: [UInt8]) -> [UInt8] {
        let text = symbology.map { Array(PayloadText.text(payload, symbology: $0).utf8) } ?? payload
        return Accuracy.gtin13(type: symbology, Accuracy.normalise(text))
    }

    func score(_ output: [FrameRecord], truth: Truth, method: String, timing: Run?) -> TrackScore {
        var s = TrackScore(method: method)
        var switches = 0
        var lastMatch: [UInt64: (id: UInt64, frame: UInt64)] = [:]
        var visibleSince: [UInt64: UInt64] = [:]
        var wasVisible: Set<UInt64> = []
        let byFrame = Dictionary(output.map { ($0.frame, $0) }, uniquingKeysWith: { a, _ in a })
        func key(_ o: ObjectRecord) -> [UInt8] { Self.payloadKey(o.symbology, o.payload) }
        let payloads = Set(truth.frames.flatMap { $0.objects.map { Self.payloadKey(nil, $0.payload) } })
        var falseIds: Set<UInt64> = []
        /// Per payload, the last frame a code with it was visible (wholly or in part).
        var lastVisible: [[UInt8]: UInt64] = [:]
        for t in truth.frames {
            // Regions seen but not read (located) are not readings: neither hits nor false tracks.
            // Nor are occluded tracks: kept for their ids, not drawn.
            let out = byFrame[t.frame]?.objects.filter { $0.state != .lost && $0.state != .located && $0.state != .occluded } ?? []
            let visibleNow = Set(t.objects.map { Self.payloadKey(nil, $0.payload) })
            for p in visibleNow { lastVisible[p] = t.frame }
            if out.contains(where: { o in
                let k = key(o)
                return payloads.contains(k) && !visibleNow.contains(k) && lastVisible[k].map { t.frame - $0 > Self.vanishGraceFrames } ?? true
            }) {
                s.vanishedDrawn += 1
                if lateDetail {
                    let gone = out.filter { o in
                        let k = key(o)
                        return payloads.contains(k) && !visibleNow.contains(k) && lastVisible[k].map { t.frame - $0 > Self.vanishGraceFrames } ?? true
                    }
                    let text = "\(method) \(t.width)x\(t.height) vanished drawn: frame \(t.frame), "
                        + gone.map { "track \($0.id) (\(String(decoding: $0.payload, as: UTF8.self)))" }.joined(separator: ", ") + "\n"
                    FileHandle.standardError.write(Data(text.utf8))
                }
            }
            for o in out where !payloads.contains(key(o)) {
                s.falseTrackFrames += 1
                // The stock rows have no ids: each false reading counts as one.
                if o.id == 0 || falseIds.insert(o.id).inserted {
                    s.falseTracks += 1
                    if lateDetail, o.id != 0 {
                        let text = "\(method) \(t.width)x\(t.height) false track: id \(o.id) (\(String(decoding: o.payload, as: UTF8.self))) from frame \(t.frame)\n"
                        FileHandle.standardError.write(Data(text.utf8))
                    }
                }
            }
            var nowVisible: Set<UInt64> = []
            for o in t.objects where o.state == .detected {
                nowVisible.insert(o.id)
                if !wasVisible.contains(o.id) { visibleSince[o.id] = t.frame }
                s.visible += 1
                let want = Self.payloadKey(nil, o.payload), centre = o.quad.center
                // Outputs of this code's payload, nearest first among those on it.
                let same = out.filter { key($0) == want }
                func nearest(_ outputs: [ObjectRecord]) -> ObjectRecord? {
                    outputs.min { $0.quad.center.distance(to: centre) < $1.quad.center.distance(to: centre) }
                }
                guard let best = nearest(same.filter { o.quad.contains($0.quad.center) }) else {
                    if lateDetail {
                        // Where the code is, and the nearest output of its payload (drawn off the code, or none).
                        let place = nearest(same).map { "track \($0.id) at (\(Int($0.quad.center.x)), \(Int($0.quad.center.y)))" } ?? "none"
                        let text = "\(method) \(t.width)x\(t.height) missed: frame \(t.frame), code \(o.id) \(o.symbology) (\(String(decoding: o.payload, as: UTF8.self))) "
                            + "at (\(Int(centre.x)), \(Int(centre.y))), nearest output of its payload: \(place)\n"
                        FileHandle.standardError.write(Data(text.utf8))
                    }
                    continue
                }
                s.covered += 1
                let side = o.quad.meanSide
                // A card's quad is the photo's outline, not the code's corners.
                for (a, b) in zip(best.quad.corners, o.quad.corners) where !truth.cards.contains(o.id) {
                    s.cornerErrors.append(a.distance(to: b) / side)
                    if o.symbology == "QR-Code" { s.qrCornerErrors.append(a.distance(to: b) / side) }
                }
                if let since = visibleSince.removeValue(forKey: o.id) { s.latencies.append(Double(t.frame - since) / 30) }
                if let last = lastMatch[o.id], last.id != best.id, t.frame - last.frame <= 30 {
                    switches += 1
                    if lateDetail {
                        let text = "\(method) \(t.width)x\(t.height) id switch: frame \(t.frame), code \(o.id) (\(String(decoding: o.payload, as: UTF8.self))) was track \(last.id) on frame \(last.frame), now track \(best.id)\n"
                        FileHandle.standardError.write(Data(text.utf8))
                    }
                }
                lastMatch[o.id] = (best.id, t.frame)
            }
            wasVisible = nowVisible
        }
        s.idSwitches = switches
        if let timing {
            s.frameMilliseconds = timing.milliseconds
            if method.contains("live") {
                s.late = timing.late
                s.lateFromSource = timing.lateFromSource
                s.arrivals = timing.arrivals
                s.renderMilliseconds = Double(timing.latencyNanoseconds) / 1e6
            }
            // The clip's own frame count (one truth record a frame): a replayed clip may differ from --frames.
            s.dropped = truth.frames.count - timing.frames
        }
        return s
    }

    func row(_ clip: String, _ s: TrackScore) -> String {
        func pct(_ v: Double) -> String { String(format: "%.1f %%", v * 100) }
        func q(_ v: [Double], _ p: Double) -> Double {
            guard !v.isEmpty else { return .nan }
            let sorted = v.sorted()
            return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
        }
        let ms = s.frameMilliseconds
        let total = ms.reduce(0, +)
        let fps = total > 0 ? Double(ms.count) / (total / 1000) : .nan
        return "| \(clip) | \(s.method) | \(pct(s.coverage)) | \(pct(q(s.cornerErrors, 0.5))) / \(pct(q(s.cornerErrors, 0.95))) | "
            + "\(pct(q(s.qrCornerErrors, 0.5))) / \(pct(q(s.qrCornerErrors, 0.95))) | "
            + "\(s.idSwitches.map(String.init) ?? "n/a") | "
            + "\(s.falseTracks) / \(s.falseTrackFrames) | \(s.vanishedDrawn) | "
            + String(format: "%.2f s / %.2f s", q(s.latencies, 0.5), s.latencies.max() ?? .nan) + " | "
            + String(format: "%.1f / %.1f", q(ms, 0.5), q(ms, 0.95)) + " | "
            + (s.method.contains("async") ? "live" : String(format: "%.0f", fps)) + " | "
            + (s.late.map { late in
                // In brackets: those the source itself pushed after their render time.
                "\(late)" + (s.lateFromSource.map { $0 > 0 ? " (source \($0))" : "" } ?? "") + " / \(s.dropped ?? 0)"
            } ?? s.dropped.map { "– / \($0)" } ?? "n/a") + " | "
            + (s.renderMilliseconds.map { String(format: "%.1f / %.1f (%.1f)", q(s.arrivals, 0.5), s.arrivals.max() ?? .nan, $0) } ?? "–") + " |"
    }
}
