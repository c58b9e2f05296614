import ARServe
import CGStreamer
import Foundation
import XCTest

/// The package's root folder (pipelines/ lives there).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A GLib main loop on its own thread, for the RTSP server.
final class BackgroundLoop {
    let context: OpaquePointer
    private let loop: OpaquePointer
    private let thread: Thread

    init() {
        context = g_main_context_new()
        let loop = g_main_loop_new(context, 0)!
        self.loop = loop
        thread = Thread { g_main_loop_run(loop) }
        thread.start()
    }

    func stop() {
        g_main_loop_quit(loop)
        while thread.isExecuting { usleep(1000) }
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }
}

/// Frames an RTSP client decoded: count and the last one as RGB.
final class ClientFrames: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var count = 0
    private(set) var last: [UInt8] = []
    var width = 0, height = 0

    func add(_ bytes: [UInt8]) {
        lock.lock(); defer { lock.unlock() }
        count += 1
        last = bytes
    }

    var snapshot: (count: Int, last: [UInt8]) {
        lock.lock(); defer { lock.unlock() }
        return (count, last)
    }
}

private let onFrame: GstPadProbeCallback = { _, info, data in
    let frames = Unmanaged<ClientFrames>.fromOpaque(data!).takeUnretainedValue()
    if let buffer = info?.pointee.data?.assumingMemoryBound(to: GstBuffer.self) {
        var map = GstMapInfo()
        if gst_buffer_map(buffer, &map, GstMapFlags(rawValue: 1)) != 0 {
            frames.add(Array(UnsafeRawBufferPointer(start: map.data, count: Int(map.size))))
            gst_buffer_unmap(buffer, &map)
        }
    }
    return GST_PAD_PROBE_OK
}

/// An RTSP client in this process: rtspsrc → H.264 decode → RGB frames.
final class RTSPClient {
    let pipeline: UnsafeMutablePointer<GstElement>
    let frames = ClientFrames()

    init(url: String, width: Int, height: Int, credentials: (String, String)? = nil) {
        let auth = credentials.map { " user-id=\($0.0) user-pw=\($0.1)" } ?? ""
        var error: UnsafeMutablePointer<GError>?
        pipeline = gst_parse_launch("rtspsrc location=\(url) latency=0\(auth) ! rtph264depay ! decodebin ! videoconvert "
                                    + "! video/x-raw,format=RGB,width=\(width),height=\(height) ! fakesink name=sink sync=false", &error)!
        frames.width = width
        frames.height = height
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        let sink = gst_bin_get_by_name(bin, "sink")!
        let pad = gst_element_get_static_pad(sink, "sink")!
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, onFrame, Unmanaged.passUnretained(frames).toOpaque(), nil)
        gst_object_unref(UnsafeMutableRawPointer(pad))
        gst_object_unref(UnsafeMutableRawPointer(sink))
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
    }

    /// The first ERROR on the client's bus, if any.
    func error() -> String? {
        let bus = gst_element_get_bus(pipeline)!
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        guard let msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) else { return nil }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(msg).assumingMemoryBound(to: GstMiniObject.self)) }
        var err: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        gst_message_parse_error(msg, &err, &debug)
        defer { g_error_free(err); g_free(debug) }
        return String(cString: err!.pointee.message)
    }

    func stop() {
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
    }
}

/// Waits until `done()` or a generous guard time (a hang guard, not a timing assertion).
func waitUntil(seconds: Double = 60, _ done: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if done() { return true }
        usleep(20_000)
    }
    return done()
}

/// Pixels of the overlay's default outline colour (pure green) in an RGB frame.
func greenPixels(_ rgb: [UInt8]) -> Int {
    var n = 0
    var i = 0
    while i + 2 < rgb.count {
        if rgb[i + 1] > 180 && rgb[i] < 110 && rgb[i + 2] < 110 { n += 1 }
        i += 3
    }
    return n
}
