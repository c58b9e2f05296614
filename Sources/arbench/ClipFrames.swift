import CGStreamer
import CGstApp
import Foundation

/// One clip's frames, rendered once (by arcodesrc, then through H.264 when asked) into a raw I420
/// file, so every row of `arbench track` (ours sync and live, stock zbar, zxing-cpp) sees the same
/// decoded pixels and no row pays for rendering or encoding.
struct ClipFrames {
    var path: String
    var width: Int
    var height: Int
    var count: Int

    /// Bytes of one I420 frame (tightly packed planes, as `filesink` writes them).
    var frameBytes: Int { width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2) }

    /// Runs `source` (a launch fragment ending in raw I420 caps) to its end, through
    /// `x264enc ! avdec_h264` at `h264Kbps` kbit/s when given, into `path`.
    static func render(source: String, width: Int, height: Int, h264Kbps: Int?, path: String) throws -> ClipFrames {
        // A camera or streaming encoder's settings: fast preset, a key frame every 2 s at 30 fps.
        // One encoder and decoder thread: threaded x264 under load gave a different clip now and then.
        let h264 = h264Kbps.map { " ! x264enc threads=1 bitrate=\($0) speed-preset=veryfast key-int-max=60 ! h264parse ! avdec_h264 max-threads=1"
            + " ! videoconvert ! video/x-raw,format=I420,width=\(width),height=\(height)" } ?? ""
        _ = try runCollectingBarcodes(source + h264 + " ! filesink location=\(path)")
        return try existing(path: path, width: width, height: height)
    }

    /// A clip rendered before (`arbench track --keep`), read from `path`.
    static func existing(path: String, width: Int, height: Int) throws -> ClipFrames {
        var clip = ClipFrames(path: path, width: width, height: height, count: 0)
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard size % clip.frameBytes == 0 else {
            throw BenchError.pipeline("\(path): \(size) bytes is not a whole number of \(width)x\(height) I420 frames")
        }
        clip.count = size / clip.frameBytes
        return clip
    }

    /// Calls `body` with each frame's index and luma plane (stride = width), in order.
    func forEachLuma(_ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        try forEachFrame { i, bytes in try body(i, UnsafeRawBufferPointer(rebasing: bytes[0..<(width * height)])) }
    }

    /// Every frame as its own buffer, read into memory before a run so pushing one costs nothing.
    func buffers() throws -> [UnsafeMutablePointer<GstBuffer>] {
        var out: [UnsafeMutablePointer<GstBuffer>] = []
        try forEachFrame { _, bytes in
            let buffer = gst_buffer_new_allocate(nil, gsize(frameBytes), nil)!
            _ = gst_buffer_fill(buffer, 0, bytes.baseAddress, gsize(frameBytes))
            out.append(buffer)
        }
        return out
    }

    /// Calls `body` with each whole I420 frame, in order.
    private func forEachFrame(_ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
        guard let file = FileHandle(forReadingAtPath: path) else { throw BenchError.usage("cannot read \(path)") }
        defer { try? file.close() }
        for i in 0..<count {
            guard let data = try file.read(upToCount: frameBytes), data.count == frameBytes else {
                throw BenchError.pipeline("\(path): frame \(i) is short")
            }
            try data.withUnsafeBytes { try body(i, $0) }
        }
    }
}

/// Pushes prepared buffers into an `appsrc`, on its own thread: at once when not live; live, each
/// when the pipeline clock reaches its timestamp (30 fps from the running time of the first), as a
/// camera delivers frames: the first once the caps reached `negotiated` (a camera source such as
/// `v4l2src` negotiates before it captures). Owns the buffers until each is pushed.
final class ReplayFeeder: @unchecked Sendable {  // the buffers are touched by the feeding thread only, after `start`
    private let appsrc: UnsafeMutablePointer<GstElement>
    private let pipeline: UnsafeMutablePointer<GstElement>
    private var buffers: [UnsafeMutablePointer<GstBuffer>]
    private let live: Bool
    private let negotiated: UnsafeMutablePointer<GstPad>?
    static let frameNanoseconds: UInt64 = 33_333_333

    init(appsrc: UnsafeMutablePointer<GstElement>, pipeline: UnsafeMutablePointer<GstElement>,
         buffers: [UnsafeMutablePointer<GstBuffer>], live: Bool, negotiated: UnsafeMutablePointer<GstPad>? = nil) {
        (self.appsrc, self.pipeline, self.buffers, self.live, self.negotiated) = (appsrc, pipeline, buffers, live, negotiated)
    }

    /// Starts feeding; call once the pipeline was set to PLAYING (the appsrc then accepts buffers).
    func start() {
        Thread { self.feed() }.start()
    }

    private func feed() {
        let src = UnsafeMutableRawPointer(appsrc).assumingMemoryBound(to: GstAppSrc.self)
        var clock: UnsafeMutablePointer<GstClock>?
        var base: GstClockTime = 0, offset: GstClockTime = 0
        if live {
            // A live pipeline selects its clock on reaching PLAYING, without waiting for a frame.
            for _ in 0..<500 where clock == nil {
                clock = gst_element_get_clock(pipeline)
                if clock == nil { usleep(10_000) }
            }
            // appsrc negotiates its caps (set up front) once playing, with no frame pushed yet.
            if let negotiated {
                for _ in 0..<500 where gst_pad_has_current_caps(negotiated) == 0 { usleep(10_000) }
            }
            if let clock {
                base = gst_element_get_base_time(pipeline)
                offset = gst_clock_get_time(clock) &- base
            }
        }
        defer { if let clock { gst_object_unref(UnsafeMutableRawPointer(clock)) } }
        for (i, buffer) in buffers.enumerated() {
            let pts = offset + GstClockTime(i) * GstClockTime(Self.frameNanoseconds)
            if let clock {
                let id = gst_clock_new_single_shot_id(clock, base + pts)
                _ = gst_clock_id_wait(id, nil)
                gst_clock_id_unref(id)
            }
            buffer.pointee.pts = pts
            buffer.pointee.duration = GstClockTime(Self.frameNanoseconds)
            _ = gst_app_src_push_buffer(src, buffer)  // takes the buffer
        }
        buffers = []
        _ = gst_app_src_end_of_stream(src)
    }
}
