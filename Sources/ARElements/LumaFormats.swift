import ARDetect
import ARGst
import CGStreamer

/// Raw video formats whose first plane is 8-bit luma: the detector reads it in place.
enum LumaFormats {
    static let names = ["I420", "YV12", "NV12", "NV21", "Y42B", "Y444", "Y41B", "NV16", "NV24", "A420", "GRAY8"]

    static var caps: String { ElementMetadata.rawVideoCaps(names) }
}

extension VideoFrame {
    /// The luma plane, borrowed (no copy). Only for `LumaFormats`.
    var luma: LumaImage {
        LumaImage(base: UnsafeRawPointer(plane(0)), width: width, height: height, stride: stride(0))
    }
}
