/// A time stamp written into video pixels, to measure glass-to-glass latency: `arstamp` paints
/// it when a frame is captured; a viewer reads it back after encoding, streaming and decoding.
///
/// Layout: two rows of 32 square blocks at the frame's bottom-left corner. The top row holds the
/// 32 low bits of the time in microseconds (bit 31 first, dark = 0, light = 1); the bottom row
/// holds the same bits inverted, so damaged or covered stamps are rejected instead of misread.
public struct LatencyStamp: Sendable {
    /// Bits in the stamp.
    public static let bits = 32
    /// Side of one block, pixels: large enough to survive H.264 at a few Mbit/s.
    public let blockSize: Int

    public init(blockSize: Int = 12) {
        self.blockSize = blockSize
    }

    /// Width and height of the stamp, pixels.
    public var width: Int { Self.bits * blockSize }
    public var height: Int { 2 * blockSize }

    /// Luma (0…255) of the block at `column` (0…31) in `row` (0 or 1) for `microseconds`.
    public func level(microseconds: UInt64, row: Int, column: Int) -> UInt8 {
        let bit = (UInt32(truncatingIfNeeded: microseconds) >> UInt32(Self.bits - 1 - column)) & 1
        return (bit == 1) != (row == 1) ? 235 : 16
    }

    /// Reads a stamp through `luma(x, y)` (0…255) for a frame `frameHeight` pixels tall, sampling
    /// each block's centre. Returns the 32 low bits of the time in microseconds, or nil when the
    /// two rows disagree (no stamp, or damaged).
    public func read(frameHeight: Int, luma: (Int, Int) -> Int) -> UInt32? {
        let top = frameHeight - height
        guard top >= 0 else { return nil }
        var value: UInt32 = 0
        for column in 0..<Self.bits {
            let x = column * blockSize + blockSize / 2
            let a = luma(x, top + blockSize / 2) >= 128, b = luma(x, top + blockSize + blockSize / 2) >= 128
            guard a != b else { return nil }
            value = value << 1 | (a ? 1 : 0)
        }
        return value
    }

    /// Microseconds from a stamp's 32 low bits to `nowMicroseconds` (wrap-around handled for
    /// delays under an hour).
    public static func elapsed(stamp: UInt32, nowMicroseconds: UInt64) -> UInt64 {
        UInt64(UInt32(truncatingIfNeeded: nowMicroseconds) &- stamp)
    }
}
