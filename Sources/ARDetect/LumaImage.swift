/// An 8-bit luma (grey) image borrowed from a video frame: no copy, valid while the frame is mapped.
public struct LumaImage {
    /// First byte of the top row.
    public let base: UnsafeRawPointer
    /// Visible size, pixels.
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next (≥ width).
    public let stride: Int

    public init(base: UnsafeRawPointer, width: Int, height: Int, stride: Int) {
        precondition(width > 0 && height > 0 && stride >= width, "invalid luma image geometry")
        self.base = base
        self.width = width
        self.height = height
        self.stride = stride
    }
}
