import ARCore
import ARGst
import CGStreamer
import Foundation

/// `arstamp`: paints the current monotonic time (CLOCK_MONOTONIC, microseconds) into the frame's
/// bottom-left corner as a `LatencyStamp`, so a viewer on the same machine can measure
/// glass-to-glass latency after encoding, streaming and decoding (`arbench stream`).
public final class ArStamp: VideoFilterElement {
    public struct Settings: Sendable {
        var blockSize = 12
    }

    public static let defaultSettings = Settings()

    public static let metadata = ElementMetadata(
        factoryName: "arstamp", typeName: "ArStamp", longName: "Latency time stamp",
        klass: "Filter/Effect/Video",
        description: "Writes the capture time into the pixels (a two-row binary strip, bottom left) for latency measurements",
        caps: ElementMetadata.rawVideoCaps(["I420", "YV12", "NV12", "NV21", "Y42B", "Y444", "GRAY8"]), writesFrame: true)

    public static let properties: [Property<Settings>] = [
        .uint("block-size", "Block size", "Side of one bit's block, pixels (the strip is 32 blocks wide, 2 high)",
              \.blockSize, range: 2...64),
    ]

    private let settings: SettingsStore<Settings>

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.settings = settings
    }

    public func transform(_ frame: VideoFrame) throws {
        let stamp = LatencyStamp(blockSize: settings.snapshot.blockSize)
        guard stamp.width <= frame.width, stamp.height <= frame.height else { return }
        let now = DispatchTime.now().uptimeNanoseconds / 1000
        let y0 = frame.height - stamp.height, stride = frame.stride(0)
        let luma = frame.plane(0).assumingMemoryBound(to: UInt8.self)
        for row in 0..<2 {
            for column in 0..<LatencyStamp.bits {
                let level = stamp.level(microseconds: now, row: row, column: column)
                for y in 0..<stamp.blockSize {
                    let line = luma + (y0 + row * stamp.blockSize + y) * stride + column * stamp.blockSize
                    line.update(repeating: level, count: stamp.blockSize)
                }
            }
        }
    }
}
