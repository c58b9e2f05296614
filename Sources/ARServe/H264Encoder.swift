import CGStreamer

/// The H.264 encoder arserve appends to raw-video pipelines, tuned for low latency.
///
/// Both encode each frame as one slice. rtph264pay (`config-interval=-1`) puts SPS and PPS in
/// front of every IDR slice, so a key frame cut into several slices reaches the viewer as
/// slice, SPS/PPS, slice: GStreamer's decoders cope, but ffmpeg-based players (ffplay, VLC,
/// ffmpeg) take the parameter sets as the start of a new frame, decode each half key frame
/// alone and smear the error over the whole group of pictures.
public enum H264Encoder: String, CaseIterable, Sendable {
    /// x264enc (gstreamer1.0-plugins-ugly): zerolatency, ultrafast, constrained baseline. One
    /// thread: `tune=zerolatency` would turn on sliced threads (one slice per thread), and frame
    /// threads would delay every frame by a frame per thread.
    case x264 = "x264enc"
    /// openh264enc (gstreamer1.0-plugins-bad): low complexity, one slice, one thread.
    case openh264 = "openh264enc"

    /// The first encoder installed, in order of preference; nil when none is.
    public static func available() -> H264Encoder? {
        allCases.first { elementInstalled($0.rawValue) }
    }

    /// Launch text from raw video to an RTP payloader named `pay0`. Key frames every second at
    /// 30 fps so viewers that join late start within a second; SPS/PPS with every key frame.
    public func encodeAndPay(bitrateKbps: Int = 4000) -> String {
        "\(encode(bitrateKbps: bitrateKbps)) ! rtph264pay name=pay0 pt=96 config-interval=-1"
    }

    /// Launch text from raw video to H.264 (byte stream, constrained baseline, one slice a frame).
    public func encode(bitrateKbps: Int = 4000) -> String {
        let encode: String
        switch self {
        case .x264:
            encode = "x264enc tune=zerolatency sliced-threads=false threads=1 speed-preset=ultrafast key-int-max=30 "
                + "bitrate=\(bitrateKbps) ! video/x-h264,profile=constrained-baseline"
        case .openh264:
            encode = "openh264enc complexity=low slice-mode=n-slices num-slices=1 multi-thread=1 gop-size=30 "
                + "bitrate=\(bitrateKbps * 1000) ! h264parse"
        }
        return "videoconvert ! video/x-raw,format=I420 ! \(encode)"
    }
}

/// Whether GStreamer has an element factory named `name` (its plugin installed and loadable).
func elementInstalled(_ name: String) -> Bool {
    guard let factory = gst_element_factory_find(name) else { return false }
    gst_object_unref(UnsafeMutableRawPointer(factory))
    return true
}
