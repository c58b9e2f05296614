import ARCore
import ARGst
import ARLines
import ARMQTT
import CGStreamer
import Foundation

private let cat = DebugCategory("arexport", description: "arbarcode JSON Lines metadata writer")

/// What `arexport` writes a line (or an MQTT message) for.
public enum ExportRecords: Int32, PropertyEnum {
    /// One line per frame, with or without codes.
    case frames = 0
    /// One line per frame with at least one code.
    case codeFrames = 1
    /// One line per track added or removed (`"event":"added"`/`"removed"`, the track in `objects`).
    case events = 2

    public var nick: String { ["frames", "code-frames", "events"][Int(rawValue)] }
    public var label: String {
        ["One line per frame", "One line per frame with at least one code",
         "One line per track added or removed (\"event\": \"added\" or \"removed\")"][Int(rawValue)]
    }
}

/// `arexport`: writes one JSON line per frame with every code on it (the public schema in
/// `FrameRecord`), or only frames with codes, or one line per track added or removed (`records`).
/// Pixels and metadata pass through untouched. Lines are flushed as written.
///
/// A line reaches the destination whole or not at all (`LineWriter`): a slow TCP consumer gets
/// whole lines from a bounded queue (`max-queued-lines`), the oldest dropped when it is full.
/// `mqtt://HOST:PORT/TOPIC` publishes each line as one MQTT message through an on-disk queue that
/// keeps them across broker outages (`MQTTPublisher`). Lines not delivered are counted, reported
/// in a WARNING (the first, then every 100th) and in the `arexport-stats` element message, posted
/// with each such warning and at EOS.
public final class ArExport: VideoFilterElement {
    public struct Settings: Sendable {
        /// File path, `-` for standard output, `udp://HOST:PORT`, `tcp://HOST:PORT` or `mqtt://HOST:PORT/TOPIC`.
        var location: String?
        /// Most lines waiting for a TCP consumer.
        var maxQueuedLines = ArExport.defaultMaxQueuedLines
        var records = ExportRecords.frames
        /// MQTT quality of service, 0, 1 or 2.
        var qos = 1
        /// MQTT on-disk queue directory; nil: `defaultQueueDirectory`.
        var queueDirectory: String?
        /// Most bytes in the MQTT on-disk queue.
        var queueMaxBytes = ArExport.defaultQueueMaxBytes
        /// MQTT status topic; nil: `TOPIC/status`.
        var statusTopic: String?
        /// MQTT client id; nil: `arexport-HOSTNAME-TOPIC`.
        var clientID: String?
        /// MQTT credentials and TLS; nil: from the environment (`environmentNames`), else none.
        var username: String?
        var password: String?
        var tlsCAFile: String?
    }

    /// Default `max-queued-lines`: 10 s of a 30 fps stream.
    public static let defaultMaxQueuedLines = 300
    /// Default `queue-max-bytes`: 100 MiB (about a day of 30 fps frames with one code).
    public static let defaultQueueMaxBytes = 100 << 20
    /// How long EOS waits for a TCP consumer or an MQTT broker to take the waiting lines, seconds.
    public static let eosDrainSeconds = 10.0
    /// How long stopping waits for a TCP consumer to take the rest of the line being sent, or for
    /// an MQTT broker to take the `offline` status, seconds.
    public static let stopSeconds = 1.0
    /// Name of the statistics element message.
    public static let statsMessageName = "arexport-stats"
    /// Environment variables read when the matching property is not set.
    public static let environmentNames = (username: "AREXPORT_MQTT_USERNAME", password: "AREXPORT_MQTT_PASSWORD",
                                          tlsCAFile: "AREXPORT_MQTT_CA_FILE")

    public static let defaultSettings = Settings()

    public static let metadata = ElementMetadata(
        factoryName: "arexport", typeName: "ArExport", longName: "Barcode metadata exporter",
        klass: "Filter/Analyzer/Video",
        description: "Writes every frame's codes (id, symbology, text, corners, state) as JSON Lines to a file, standard output, a socket or an MQTT topic",
        caps: "video/x-raw", writesFrame: false)

    public static let properties: [Property<Settings>] = [
        .string("location", "Location",
                "Where to write JSON Lines: a file path (created or truncated), '-' for standard output, "
                    + "udp://HOST:PORT (one datagram per line), tcp://HOST:PORT (connects at start) or "
                    + "mqtt://HOST[:PORT]/TOPIC (one message per line, port 1883 by default; kept in an on-disk queue while the broker is away)",
                \.location, mutableInPlaying: false),
        .int("max-queued-lines", "Max queued lines",
             "Lines kept waiting for a tcp:// consumer that reads slower than they come; when full the oldest waiting "
                 + "line is dropped (counted in the warnings and the arexport-stats message). Lines are sent whole or not at all",
             \.maxQueuedLines, range: 1...100_000, mutableInPlaying: false),
        .enumeration("records", "Records", "What a line (an MQTT message) is written for: every frame, frames with codes, "
                         + "or each track added or removed", typeName: "ArExportRecords", \.records, mutableInPlaying: false),
        .int("qos", "MQTT QoS",
             "mqtt://: 0 = at most once (a message leaves the on-disk queue when written to the socket), 1 = at least once "
                 + "(when the broker acknowledges it; after a broker restart a message may come twice), 2 = exactly once "
                 + "(when the broker completes the exchange)",
             \.qos, range: 0...2, mutableInPlaying: false),
        .string("queue-dir", "MQTT queue directory",
                "mqtt://: directory of the on-disk queue (one file per message, kept across restarts; one arexport at a time); "
                    + "default /var/tmp/arexport-UID/HOST_PORT_TOPIC",
                \.queueDirectory, mutableInPlaying: false),
        .uint("queue-max-bytes", "MQTT queue size",
              "mqtt://: most bytes of messages waiting in the on-disk queue, in bytes; past it new messages are dropped "
                  + "(counted in the warnings and the arexport-stats message)",
              \.queueMaxBytes, range: 1024...UInt32.max, mutableInPlaying: false),
        .string("status-topic", "MQTT status topic",
                "mqtt://: topic of the retained status: 'online' once connected, 'offline' when stopped and as the last will "
                    + "(published by the broker if the connection is lost); default TOPIC/status",
                \.statusTopic, mutableInPlaying: false),
        .string("client-id", "MQTT client id",
                "mqtt://: client id, the same on every connection; default arexport-HOSTNAME-TOPIC",
                \.clientID, mutableInPlaying: false),
        .string("username", "MQTT user name", "mqtt://: user name; default: $\(environmentNames.username), else none",
                \.username, mutableInPlaying: false),
        .string("password", "MQTT password",
                "mqtt://: password; default: $\(environmentNames.password), else none (the variable keeps it out of pipeline text)",
                \.password, mutableInPlaying: false),
        .string("tls-ca-file", "MQTT TLS CA file",
                "mqtt://: PEM file of the certificate authorities to trust; when set the connection uses TLS; "
                    + "default: $\(environmentNames.tlsCAFile), else plain TCP",
                \.tlsCAFile, mutableInPlaying: false),
    ]

    /// Where lines go: a line stream (file, standard output, UDP, TCP) or an MQTT topic.
    private enum Output {
        case lines(LineWriter)
        case mqtt(MQTTPublisher)

        var name: String {
            switch self {
            case .lines(let w): w.name
            case .mqtt(let p): p.name
            }
        }
    }

    /// One run's state: made in `start`, dropped in `stop`.
    private struct State {
        let output: Output
        let records: ExportRecords
        var changes = TrackChanges()
        var frameIndex: UInt64 = 0
        /// Lines made so far (one per frame, or per event).
        var lineCount: UInt64 = 0
        /// Lines dropped so far, and why the last one was.
        var droppedLines: UInt64 = 0
        var lastDropReason = ""
    }

    private let element: ElementHandle
    private let settings: SettingsStore<Settings>
    private var state: State?

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    public func start() throws {
        let s = settings.snapshot
        guard let location = s.location, !location.isEmpty else {
            throw ElementError.openWrite("No location set for arexport: set location to a file path, '-', udp://HOST:PORT, "
                                         + "tcp://HOST:PORT or mqtt://HOST:PORT/TOPIC")
        }
        let output: Output
        do {
            let destination = try ExportDestination.parse(location)
            if case .mqtt(let host, let port, let topic) = destination {
                output = .mqtt(try MQTTPublisher(Self.mqttOptions(s, host: host, port: port, topic: topic),
                                                 onEvent: { [element] in Self.report($0, element: element, location: location) }))
            } else {
                output = .lines(try LineWriter(destination, maxQueuedLines: s.maxQueuedLines))
            }
        } catch let e as ExportDestinationError {
            throw ElementError.openWrite(e.description)
        }
        state = State(output: output, records: s.records)
        cat.log(.info, element.object, "writing JSON Lines to \(location)")
    }

    /// The MQTT options from the settings, the environment and the defaults.
    static func mqttOptions(_ s: Settings, host: String, port: UInt16, topic: String) -> MQTTOptions {
        let env = ProcessInfo.processInfo.environment
        let safeTopic = String(topic.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })
        let directory = s.queueDirectory.flatMap { $0.isEmpty ? nil : $0 } ?? "/var/tmp/arexport-\(getuid())/\(host)_\(port)_\(safeTopic)"
        var o = MQTTOptions(host: host, port: port, topic: topic,
                            clientID: s.clientID ?? "arexport-\(hostName())-\(safeTopic)",
                            queueDirectory: directory, queueMaxBytes: s.queueMaxBytes)
        o.qos = Int32(s.qos)
        if let status = s.statusTopic, !status.isEmpty { o.statusTopic = status }
        o.username = s.username ?? env[environmentNames.username]
        o.password = s.password ?? env[environmentNames.password]
        o.caFile = s.tlsCAFile ?? env[environmentNames.tlsCAFile]
        return o
    }

    /// This machine's name (gethostname: no name service lookup).
    private static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "localhost" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Logs a connection and warns of an outage (once per outage), from the network thread.
    private static func report(_ event: MQTTPublisher.Event, element: ElementHandle, location: String) {
        switch event {
        case .connected:
            cat.log(.info, element.object, "connected to \(location)")
        case .unavailable(let reason):
            element.postWarning(.write("arexport: \(location) is unavailable (\(reason)); messages wait in the on-disk queue"))
        }
    }

    public func stop() {
        switch state?.output {
        case .lines(let writer):
            if writer.close(timeoutSeconds: Self.stopSeconds) > 0 {
                cat.log(.info, element.object, "stopped with lines not sent to \(writer.name)")
            }
        case .mqtt(let publisher):
            let left = publisher.close(timeoutSeconds: Self.stopSeconds)
            if left > 0 {
                cat.log(.info, element.object, "stopped with \(left) message(s) for \(publisher.name) kept in \(publisher.options.queueDirectory)")
            }
        case nil:
            break
        }
        state = nil
    }

    /// At EOS, waits (up to `eosDrainSeconds`) for a TCP consumer or an MQTT broker to take the
    /// waiting lines, then reports what was dropped and posts the final statistics.
    public func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool {
        if event.customDownstreamName == ArOverlay.countSummaryName, let json = event.string("json"), state != nil {
            // aroverlay's count summary (at EOS, or asked for with its `count-summary` action): a line of its own.
            state?.lineCount += 1
            do { try write(json) } catch { element.post(.write("\(error)")) }
            return true
        }
        guard event.typeName == "eos", let output = state?.output else { return true }
        switch output {
        case .lines(let writer):
            do {
                let n = try writer.drain(timeoutSeconds: Self.eosDrainSeconds)
                if n > 0 { dropped(n, "\(writer.name) did not take them within \(Int(Self.eosDrainSeconds)) s of the end of the stream") }
            } catch {
                element.post(.write("\(error)"))
                return true
            }
        case .mqtt(let publisher):
            let left = publisher.drain(timeoutSeconds: Self.eosDrainSeconds)
            if left > 0 {
                element.postWarning(.write("arexport: \(left) message(s) for \(publisher.name) were not delivered within "
                                           + "\(Int(Self.eosDrainSeconds)) s of the end of the stream; they stay in "
                                           + "\(publisher.options.queueDirectory) for the next start"))
            }
        }
        if let state, state.droppedLines > 0 {
            element.postWarning(.write("arexport dropped \(state.droppedLines) of \(state.lineCount) line(s): \(state.lastDropReason)"))
        }
        if let state { postStats(state) }
        return true
    }

    /// Posts the `arexport-stats` element message: `lines` (made: one per frame, or per event),
    /// `lines-written` (delivered whole; MQTT: acknowledged by the broker, or written to the socket
    /// with QoS 0), `lines-dropped`, `lines-queued` (waiting for a TCP consumer or being sent; MQTT:
    /// waiting in the on-disk queue).
    private func postStats(_ state: State) {
        let s = OwnedStructure(name: Self.statsMessageName)
        s.set("location", string: state.output.name)
        s.set("lines", uint64: state.lineCount)
        switch state.output {
        case .lines(let writer):
            let stats = writer.stats
            s.set("lines-written", uint64: stats.written)
            s.set("lines-queued", uint64: UInt64(stats.unsent))
        case .mqtt(let publisher):
            let stats = publisher.stats
            s.set("lines-written", uint64: stats.delivered)
            s.set("lines-queued", uint64: UInt64(stats.queued))
            s.set("connected", bool: stats.connected)
        }
        s.set("lines-dropped", uint64: state.droppedLines)
        element.postElementMessage(s)
    }

    /// Counts `count` dropped lines; the first drop and every 100th are reported.
    private func dropped(_ count: Int, _ why: String) {
        guard var state else { return }
        let before = state.droppedLines
        state.droppedLines += UInt64(count)
        state.lastDropReason = why
        self.state = state
        guard before == 0 || before / 100 != state.droppedLines / 100 else { return }
        element.postWarning(.write("arexport dropped \(state.droppedLines) line(s) so far: \(why)"))
        postStats(state)
    }

    public func transform(_ frame: VideoFrame) throws {
        guard var state else { return }
        let objects = frame.barcodeRegions.map(\.record)
        var record = FrameRecord(frame: state.frameIndex, ptsNanoseconds: frame.buffer.ptsNanoseconds, width: frame.width,
                                 height: frame.height, objects: objects)
        state.frameIndex += 1
        var lines: [String] = []
        switch state.records {
        case .frames:
            lines = [record.jsonLine()]
        case .codeFrames:
            if !objects.isEmpty { lines = [record.jsonLine()] }
        case .events:
            let (added, removed) = state.changes.next(objects)
            for (kind, list) in [(TrackEventKind.added, added), (.removed, removed)] {
                for object in list {
                    record.objects = [object]
                    lines.append(record.jsonLine(event: kind))
                }
            }
        }
        self.state = state
        for line in lines {
            self.state?.lineCount += 1
            try write(line)
        }
    }

    /// Sends one line to the run's output; a drop is counted in the state.
    private func write(_ line: String) throws {
        guard let output = state?.output else { return }
        do {
            switch output {
            case .lines(let writer):
                if case .dropped(let count, let why) = try writer.write(line) {
                    // Video goes on; the loss is reported on the bus (first drop, then every 100th).
                    dropped(count, why)
                }
            case .mqtt(let publisher):
                if try !publisher.publish(Array(line.utf8)) {
                    dropped(1, "the on-disk queue \(publisher.options.queueDirectory) is full "
                                + "(\(publisher.options.queueMaxBytes) bytes, queue-max-bytes)")
                }
            }
        } catch let e as ExportDestinationError {
            throw ElementError.write(e.description)
        }
    }
}
