import ARCore
import ARGst
import CGStreamer
import Foundation

private let cat = DebugCategory("arexport", description: "arbarcode JSON Lines metadata writer")

/// `arexport`: writes one JSON line per frame with every code on it (the public schema in
/// `FrameRecord`). Pixels and metadata pass through untouched. Lines are flushed as written.
public final class ArExport: VideoFilterElement {
    public struct Settings {
        /// File path, `-` for standard output, or `udp://HOST:PORT` / `tcp://HOST:PORT`.
        var location: String?
    }

    public static let defaultSettings = Settings()

    public static let metadata = ElementMetadata(
        factoryName: "arexport", typeName: "ArExport", longName: "Barcode metadata exporter",
        klass: "Filter/Analyzer/Video",
        description: "Writes every frame's codes (id, symbology, text, corners, state) as JSON Lines to a file, standard output or a socket",
        caps: "video/x-raw", writesFrame: false)

    public static let properties: [Property<Settings>] = [
        .string("location", "Location",
                "Where to write JSON Lines: a file path (created or truncated), '-' for standard output, "
                    + "udp://HOST:PORT (one datagram per line) or tcp://HOST:PORT (connects at start)",
                \.location, mutableInPlaying: false),
    ]

    private let element: ElementHandle
    private let settings: SettingsStore<Settings>
    private var writer: LineWriter?
    private var frameIndex: UInt64 = 0
    private var droppedLines = 0

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    public func start() throws {
        guard let location = settings.snapshot.location, !location.isEmpty else {
            throw ElementError.openWrite("No location set for arexport: set location to a file path, '-', udp://HOST:PORT or tcp://HOST:PORT")
        }
        do {
            writer = try LineWriter(ExportDestination.parse(location))
        } catch let e as ExportDestinationError {
            throw ElementError.openWrite(e.description)
        }
        frameIndex = 0
        droppedLines = 0
        cat.log(.info, element.object, "writing JSON Lines to \(location)")
    }

    public func stop() {
        writer = nil
    }

    public func transform(_ frame: VideoFrame) throws {
        guard let writer else { return }
        let objects = frame.barcodeRegions.map {
            ObjectRecord(id: $0.trackID ?? 0, symbology: $0.symbology, payload: $0.payload, quad: $0.quad, state: $0.state)
        }
        let record = FrameRecord(frame: frameIndex, ptsNanoseconds: frame.buffer.ptsNanoseconds, width: frame.width,
                                 height: frame.height, objects: objects)
        frameIndex += 1
        let outcome: LineWriter.Outcome
        do {
            outcome = try writer.write(record.jsonLine())
        } catch let e as ExportDestinationError {
            throw ElementError.write(e.description)
        }
        if case .dropped(let why) = outcome {
            // Video goes on; the loss is reported on the bus (first drop, then every 100th).
            droppedLines += 1
            if droppedLines == 1 || droppedLines % 100 == 0 {
                element.postWarning(.write("arexport dropped \(droppedLines) line(s) so far: \(why)"))
            }
        }
    }
}
