// arbench overlay: what aroverlay costs per 1080p frame with 12 labelled codes, in meta mode
// (downstream draws the GstVideoOverlayCompositionMeta) and in blend mode (drawn into the frame).
import ARBridge
import ARCore
import ARGst
import CGStreamer
import Foundation

enum OverlayBench {
    static let command = BenchCommand(name: "overlay", summary: "aroverlay ms/frame, 1080p, 12 labelled codes: meta and blend modes",
                                      run: run)

    /// Whether the bench's sink answers ALLOCATION queries with the overlay-composition meta.
    nonisolated(unsafe) static var sinkTakesMeta = false
    nonisolated(unsafe) static var sinkSawMeta = 0

    static func run(_ args: [String]) throws {
        var frames = 300
        if let i = args.firstIndex(of: "--frames"), i + 1 < args.count, let n = Int(args[i + 1]) { frames = max(10, n) }
        gst_init(nil, nil)
        guard ar_plugin_register_static() != 0 else { throw OverlayBenchError("registering the plugin failed") }
        let onlyMode = args.firstIndex(of: "--mode").flatMap { $0 + 1 < args.count ? args[$0 + 1] : nil }
        let onlyFormat = args.firstIndex(of: "--format").flatMap { $0 + 1 < args.count ? args[$0 + 1] : nil }
        var rows: [(String, String, [Double])] = []
        for (mode, format) in [("meta", "I420"), ("blend", "I420"), ("blend", "NV12"), ("blend", "BGRx")]
        where (onlyMode ?? mode) == mode && (onlyFormat ?? format) == format {
            rows.append((mode, format, try measure(meta: mode == "meta", format: format, frames: frames)))
        }
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.split(separator: "\n")
            .first { $0.hasPrefix("model name") }.map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) } ?? "unknown"
        print("aroverlay, 1920x1080, 12 codes with outline + label (built-in style), \(frames) frames, release build")
        print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores (nproc), \(cpu)\n")
        print("| mode | format | median ms/frame | p90 ms/frame |")
        print("| --- | --- | --- | --- |")
        for (mode, format, ms) in rows {
            let s = ms.sorted()
            print("| \(mode) | \(format) | \(String(format: "%.3f", s[s.count / 2])) | \(String(format: "%.3f", s[s.count * 9 / 10])) |")
        }
    }

    /// Milliseconds aroverlay spends on each frame (one push through it, timed).
    static func measure(meta: Bool, format: String, frames: Int) throws -> [Double] {
        sinkTakesMeta = meta
        sinkSawMeta = 0
        let width = 1920, height = 1080
        guard let overlay = gst_element_factory_make("aroverlay", nil) else { throw OverlayBenchError("no aroverlay") }
        gst_object_ref_sink(UnsafeMutableRawPointer(overlay))
        let src = gst_pad_new("src", GST_PAD_SRC)!, sink = gst_pad_new("sink", GST_PAD_SINK)!
        gst_pad_set_chain_function_full(sink, { _, _, buffer in
            if gst_buffer_get_meta(buffer, gst_video_overlay_composition_meta_api_get_type()) != nil { OverlayBench.sinkSawMeta += 1 }
            gst_mini_object_unref(UnsafeMutableRawPointer(buffer!).assumingMemoryBound(to: GstMiniObject.self))
            return GST_FLOW_OK
        }, nil, nil)
        gst_pad_set_query_function_full(sink, { pad, parent, query in
            if query!.pointee.type == GST_QUERY_ALLOCATION {
                if OverlayBench.sinkTakesMeta { gst_query_add_allocation_meta(query, gst_video_overlay_composition_meta_api_get_type(), nil) }
                return 1
            }
            return gst_pad_query_default(pad, parent, query)
        }, nil, nil)
        let overlaySink = gst_element_get_static_pad(overlay, "sink")!, overlaySrc = gst_element_get_static_pad(overlay, "src")!
        defer {
            gst_element_set_state(overlay, GST_STATE_NULL)
            for p in [src, sink, overlaySink, overlaySrc] { gst_object_unref(UnsafeMutableRawPointer(p)) }
            gst_object_unref(UnsafeMutableRawPointer(overlay))
        }
        guard gst_pad_link(src, overlaySink) == GST_PAD_LINK_OK, gst_pad_link(overlaySrc, sink) == GST_PAD_LINK_OK else {
            throw OverlayBenchError("linking failed")
        }
        gst_pad_set_active(src, 1)
        gst_pad_set_active(sink, 1)
        guard gst_element_set_state(overlay, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE else { throw OverlayBenchError("start failed") }
        _ = gst_pad_push_event(src, gst_event_new_stream_start("overlay-bench"))
        let caps = gst_caps_from_string("video/x-raw,format=\(format),width=\(width),height=\(height),framerate=30/1")!
        _ = gst_pad_push_event(src, gst_event_new_caps(caps))
        var info = GstVideoInfo()
        _ = gst_video_info_from_caps(&info, caps)
        gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self))
        var segment = GstSegment()
        gst_segment_init(&segment, GST_FORMAT_TIME)
        _ = gst_pad_push_event(src, gst_event_new_segment(&segment))

        let base = gst_buffer_new_allocate(nil, info.size, nil)!
        _ = gst_buffer_memset(base, 0, 128, info.size)
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(base).assumingMemoryBound(to: GstMiniObject.self)) }
        var times: [Double] = []
        for i in 0..<frames + 10 {
            let buffer = gst_buffer_copy_deep(base)!
            buffer.pointee.pts = GstClockTime(i) * 33_333_333
            buffer.pointee.duration = 33_333_333
            Buffer(buffer).setBarcodeRegions(codes(frame: i), frameWidth: width, frameHeight: height)
            let t0 = DispatchTime.now().uptimeNanoseconds
            let ret = gst_pad_push(src, buffer)
            let t1 = DispatchTime.now().uptimeNanoseconds
            guard ret == GST_FLOW_OK else { throw OverlayBenchError("push failed: \(ret.rawValue)") }
            // The first frames warm caches (fonts, label tiles): not counted.
            if i >= 10 { times.append(Double(t1 - t0) / 1e6) }
        }
        if meta != (sinkSawMeta > 0) { throw OverlayBenchError("meta mode \(meta) but the sink saw \(sinkSawMeta) metas") }
        return times
    }

    /// 12 tracked codes of 140 px in a 4 × 3 grid, drifting by a fraction of a pixel per frame.
    static func codes(frame: Int) -> [BarcodeRegion] {
        (0..<12).map { k in
            let x = 160 + Double(k % 4) * 440 + Double(frame % 100) * 0.37
            let y = 180 + Double(k / 4) * 320 + Double(frame % 100) * 0.21
            return BarcodeRegion(trackID: UInt64(k + 1), symbology: "QR-Code", payload: Array("https://shop.example/p/\(1000 + k)".utf8),
                                 quad: Quad(Rect(x: x, y: y, width: 140, height: 140)), state: .detected, quality: 1)
        }
    }
}

struct OverlayBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
