import CGStreamer

/// The negotiated video format of a stream.
public struct VideoInfo: Equatable {
    public var format: GstVideoFormat
    /// Frame size, pixels.
    public var width: Int
    public var height: Int
    /// Frame rate as a fraction (0/1 when unknown or variable).
    public var fpsNumerator: Int
    public var fpsDenominator: Int

    public init(_ info: UnsafePointer<GstVideoInfo>) {
        format = info.pointee.finfo.pointee.format
        width = Int(info.pointee.width)
        height = Int(info.pointee.height)
        fpsNumerator = Int(info.pointee.fps_n)
        fpsDenominator = Int(info.pointee.fps_d)
    }

    /// The format's GStreamer name, e.g. `I420`.
    public var formatName: String { String(cString: gst_video_format_to_string(format)) }

    /// Duration of one frame in nanoseconds from the frame rate; nil when the rate is unknown.
    public var frameDurationNanoseconds: UInt64? {
        guard fpsNumerator > 0, fpsDenominator > 0 else { return nil }
        return UInt64(1_000_000_000) * UInt64(fpsDenominator) / UInt64(fpsNumerator)
    }
}

/// A buffer passing through an element. Unretained: valid during the call that hands it out.
public struct Buffer {
    public let pointer: UnsafeMutablePointer<GstBuffer>

    public init(_ pointer: UnsafeMutablePointer<GstBuffer>) {
        self.pointer = pointer
    }

    /// Presentation timestamp, nanoseconds; nil when the buffer has none.
    public var ptsNanoseconds: UInt64? {
        let t = pointer.pointee.pts
        return t == GstClockTime.max ? nil : UInt64(t)
    }

    /// Duration, nanoseconds; nil when unknown.
    public var durationNanoseconds: UInt64? {
        let t = pointer.pointee.duration
        return t == GstClockTime.max ? nil : UInt64(t)
    }

    /// Whether the buffer follows a discontinuity (seek, lost data).
    public var isDiscont: Bool {
        pointer.pointee.mini_object.flags & GST_BUFFER_FLAG_DISCONT.rawValue != 0
    }
}

/// A mapped video frame: planes and strides of the buffer's pixels. Valid during `transform`.
public struct VideoFrame {
    public let raw: UnsafeMutablePointer<GstVideoFrame>
    public let buffer: Buffer

    public init(_ raw: UnsafeMutablePointer<GstVideoFrame>, buffer: UnsafeMutablePointer<GstBuffer>) {
        self.raw = raw
        self.buffer = Buffer(buffer)
    }

    public var format: GstVideoFormat { raw.pointee.info.finfo.pointee.format }
    /// Frame size, pixels.
    public var width: Int { Int(raw.pointee.info.width) }
    public var height: Int { Int(raw.pointee.info.height) }
    public var planeCount: Int { Int(raw.pointee.info.finfo.pointee.n_planes) }

    /// Start of plane `index`.
    public func plane(_ index: Int) -> UnsafeMutableRawPointer {
        withUnsafeBytes(of: raw.pointee.data) { $0.load(fromByteOffset: index * MemoryLayout<UnsafeMutableRawPointer?>.stride,
                                                           as: UnsafeMutableRawPointer?.self)! }
    }

    /// Bytes per row of plane `index`.
    public func stride(_ index: Int) -> Int {
        withUnsafeBytes(of: raw.pointee.info.stride) { Int($0.load(fromByteOffset: index * 4, as: Int32.self)) }
    }

    /// The GstVideoInfo the frame was mapped with.
    public var info: UnsafeMutablePointer<GstVideoInfo> {
        UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstVideoInfo.self)
    }
}
