import ARCore
import ARDetect
import ARGst
import ARVision
import CGStreamer

/// Raw video formats whose plane 0 is 8-bit luma: the tracking elements read it in place.
enum TrackLuma {
    static let names = ["I420", "YV12", "NV12", "NV21", "Y42B", "Y444", "Y41B", "NV16", "NV24", "A420", "GRAY8"]

    static var caps: String { ElementMetadata.rawVideoCaps(names) }

    static func hasLumaPlane(_ format: GstVideoFormat) -> Bool {
        names.contains(String(cString: gst_video_format_to_string(format)))
    }
}

extension VideoFrame {
    /// Plane 0 as luma, borrowed (no copy); nil for formats without a luma plane.
    var trackLuma: LumaImage? {
        guard TrackLuma.hasLumaPlane(format) else { return nil }
        return LumaImage(base: UnsafeRawPointer(plane(0)), width: width, height: height, stride: stride(0))
    }
}

