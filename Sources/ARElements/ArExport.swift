import ARCore
import ARGst
import CGStreamer
import Foundation

private let cat = DebugCategory("arexport", description: "arbarcode JSON Lines metadata writer")

/// `arexport`: writes one JSON line per frame with every code on it (the public schema in
/// `FrameRecord`). Pixels and metadata pass through untouched. Lines are flushed as written.
public final class ArExport: VideoFilterElement {
    public struct Settings {
        /// File path, or `-` for standard output.
        var location: String?
    }

    public static let defaultSettings = Settings()

    public static let metadata = ElementMetadata(
        factoryName: "arexport", typeName: "ArExport", longName: "Barcode metadata exporter",
        klass: "Filter/Analyzer/Video",
        description: "Writes every frame's codes (id, symbology, text, corners, state) as JSON Lines",
        caps: "video/x-raw", writesFrame: false)

    public static let properties: [Property<Settings>] = [
        .string("location", "Location", "File to write JSON Lines to (created or truncated), or '-' for standard output",
                \.location, mutableInPlaying: false),
    ]

    private let element: ElementHandle
    private let settings: SettingsStore<Settings>
    private var file: UnsafeMutablePointer<FILE>?
    private var ownsFile = false
    private var frameIndex: UInt64 = 0

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    public func start() throws {
        guard let location = settings.snapshot.location, !location.isEmpty else {
            throw ElementError.openWrite("No location set for arexport: set location to a file path or '-' for standard output")
        }
        if location == "-" {
            file = stdout
            ownsFile = false
        } else {
            guard let f = fopen(location, "w") else {
                throw ElementError.openWrite("Could not open '\(location)' for writing: \(String(cString: strerror(errno)))")
            }
            file = f
            ownsFile = true
        }
        frameIndex = 0
        cat.log(.info, element.object, "writing JSON Lines to \(location)")
    }

    public func stop() {
        if ownsFile, let file { fclose(file) }
        file = nil
    }

    public func transform(_ frame: VideoFrame) throws {
        guard let file else { return }
        let objects = frame.barcodeRegions.map {
            ObjectRecord(id: $0.trackID ?? 0, symbology: $0.symbology, payload: $0.payload, quad: $0.quad, state: $0.state)
        }
        let record = FrameRecord(frame: frameIndex, ptsNanoseconds: frame.buffer.ptsNanoseconds, width: frame.width,
                                 height: frame.height, objects: objects)
        frameIndex += 1
        let line = record.jsonLine() + "\n"
        if fputs(line, file) < 0 || fflush(file) != 0 {
            throw ElementError.write("Could not write to '\(settings.snapshot.location ?? "")': \(String(cString: strerror(errno)))")
        }
    }
}
