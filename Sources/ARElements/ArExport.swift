import ARCore
import ARGst
import ARLines
import CGStreamer
import Foundation

private let cat = DebugCategory("arexport", description: "arbarcode JSON Lines metadata writer")

/// `arexport`: writes one JSON line per frame with every code on it (the public schema in
/// `FrameRecord`). Pixels and metadata pass through untouched. Lines are flushed as written.
///
/// A line reaches the destination whole or not at all (`LineWriter`): a slow TCP consumer gets
/// whole lines from a bounded queue (`max-queued-lines`), the oldest dropped when it is full.
/// Lines not delivered are counted, reported in a WARNING (the first, then every 100th) and in
/// the `arexport-stats` element message, posted with each such warning and at EOS.
public final class ArExport: VideoFilterElement {
    public struct Settings: Sendable {
        /// File path, `-` for standard output, or `udp://HOST:PORT` / `tcp://HOST:PORT`.
        var location: String?
        /// Most lines waiting for a TCP consumer.
        var maxQueuedLines = ArExport.defaultMaxQueuedLines
    }

    /// Default `max-queued-lines`: 10 s of a 30 fps stream.
    public static let defaultMaxQueuedLines = 300
    /// How long EOS waits for a TCP consumer to take the waiting lines, seconds.
    public static let eosDrainSeconds = 10.0
    /// How long stopping waits for a TCP consumer to take the rest of the line being sent, seconds.
    public static let stopSeconds = 1.0
    /// Name of the statistics element message.
    public static let statsMessageName = "arexport-stats"

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
        .int("max-queued-lines", "Max queued lines",
             "Lines kept waiting for a tcp:// consumer that reads slower than they come; when full the oldest waiting "
                 + "line is dropped (counted in the warnings and the arexport-stats message). Lines are sent whole or not at all",
             \.maxQueuedLines, range: 1...100_000, mutableInPlaying: false),
    ]

    private let element: ElementHandle
    private let settings: SettingsStore<Settings>
    private var writer: LineWriter?
    private var frameIndex: UInt64 = 0
    /// Lines dropped so far, and why the last one was.
    private var droppedLines: UInt64 = 0
    private var lastDropReason = ""

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    public func start() throws {
        guard let location = settings.snapshot.location, !location.isEmpty else {
            throw ElementError.openWrite("No location set for arexport: set location to a file path, '-', udp://HOST:PORT or tcp://HOST:PORT")
        }
        do {
            writer = try LineWriter(ExportDestination.parse(location), maxQueuedLines: settings.snapshot.maxQueuedLines)
        } catch let e as ExportDestinationError {
            throw ElementError.openWrite(e.description)
        }
        frameIndex = 0
        droppedLines = 0
        lastDropReason = ""
        cat.log(.info, element.object, "writing JSON Lines to \(location)")
    }

    public func stop() {
        if let writer, writer.close(timeoutSeconds: Self.stopSeconds) > 0 {
            cat.log(.info, element.object, "stopped with lines not sent to \(writer.name)")
        }
        writer = nil
    }

    /// At EOS, waits (up to `eosDrainSeconds`) for a TCP consumer to take the waiting lines, then
    /// reports what was dropped and posts the final statistics.
    public func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool {
        guard event.typeName == "eos", let writer else { return true }
        do {
            let n = try writer.drain(timeoutSeconds: Self.eosDrainSeconds)
            if n > 0 { dropped(n, "\(writer.name) did not take them within \(Int(Self.eosDrainSeconds)) s of the end of the stream") }
        } catch {
            element.post(.write("\(error)"))
            return true
        }
        if droppedLines > 0 {
            element.postWarning(.write("arexport dropped \(droppedLines) of \(frameIndex) line(s): \(lastDropReason)"))
        }
        postStats(writer)
        return true
    }

    /// Posts the `arexport-stats` element message: `lines` (made, one per frame), `lines-written`
    /// (delivered whole), `lines-dropped`, `lines-queued` (waiting for a TCP consumer or being sent).
    private func postStats(_ writer: LineWriter) {
        let stats = writer.stats
        let s = OwnedStructure(name: Self.statsMessageName)
        s.set("location", string: writer.name)
        s.set("lines", uint64: frameIndex)
        s.set("lines-written", uint64: stats.written)
        s.set("lines-dropped", uint64: droppedLines)
        s.set("lines-queued", uint64: UInt64(stats.unsent))
        element.postElementMessage(s)
    }

    /// Counts `count` dropped lines; the first drop and every 100th are reported.
    private func dropped(_ count: Int, _ why: String) {
        let before = droppedLines
        droppedLines += UInt64(count)
        lastDropReason = why
        guard before == 0 || before / 100 != droppedLines / 100, let writer else { return }
        element.postWarning(.write("arexport dropped \(droppedLines) line(s) so far: \(why)"))
        postStats(writer)
    }

    public func transform(_ frame: VideoFrame) throws {
        guard let writer else { return }
        let objects = frame.barcodeRegions.map(\.record)
        let record = FrameRecord(frame: frameIndex, ptsNanoseconds: frame.buffer.ptsNanoseconds, width: frame.width,
                                 height: frame.height, objects: objects)
        frameIndex += 1
        let outcome: LineWriter.Outcome
        do {
            outcome = try writer.write(record.jsonLine())
        } catch let e as ExportDestinationError {
            throw ElementError.write(e.description)
        }
        if case .dropped(let count, let why) = outcome {
            // Video goes on; the loss is reported on the bus (first drop, then every 100th).
            dropped(count, why)
        }
    }
}
