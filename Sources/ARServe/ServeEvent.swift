import CGStreamer
import CGstRtspServer
import Foundation

/// What arserve reports while it serves: viewers coming and going, and what the served pipeline
/// said when it failed. `description` is the log line.
public enum ServeEvent: Sendable, Equatable, CustomStringConvertible {
    /// A viewer opened an RTSP connection from `address` (`host:port`).
    case viewerConnected(address: String)
    /// The viewer's connection from `address` closed (it left, or was refused).
    case viewerLeft(address: String)
    /// The served pipeline posted an error or a warning.
    case pipeline(PipelineMessage)

    public var description: String {
        switch self {
        case .viewerConnected(let address): return "viewer \(address) connected"
        case .viewerLeft(let address): return "viewer \(address) left"
        case .pipeline(let m): return "\(m)"
        }
    }

    /// Writes `arserve: <event>` as one line to standard error (one write, so lines from several
    /// threads do not mix). The default `ServeOptions.log`.
    @Sendable public static func writeToStandardError(_ event: ServeEvent) {
        FileHandle.standardError.write(Data("arserve: \(event)\n".utf8))
    }
}

/// An error or warning a served pipeline posted on its bus: which element, why, and GStreamer's
/// debug details (source file, function, element path and the specific reason).
public struct PipelineMessage: Sendable, Equatable, CustomStringConvertible {
    /// Error or warning.
    public enum Severity: String, Sendable { case error, warning }

    public var severity: Severity
    /// The element's name: the one the pipeline file gave it (`name=`), or GStreamer's
    /// (`filesrc1`).
    public var element: String
    /// The element's factory, e.g. `filesrc`; nil when the message came from a bin or the pipeline.
    public var factory: String?
    /// GStreamer's message, e.g. `Resource not found.`.
    public var message: String
    /// GStreamer's debug details on one line, e.g. `gstfilesrc.c(557): gst_file_src_start ():
    /// /GstPipeline:media-pipeline/GstBin:bin1/GstFileSrc:filesrc1: No such file "clip.mp4"`.
    public var debug: String?

    public init(severity: Severity, element: String, factory: String?, message: String, debug: String?) {
        self.severity = severity
        self.element = element
        self.factory = factory
        self.message = message
        self.debug = debug
    }

    /// Reads an ERROR or WARNING message; nil for any other type.
    init?(_ msg: UnsafeMutablePointer<GstMessage>) {
        var err: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        switch msg.pointee.type {
        case GST_MESSAGE_ERROR: severity = .error; gst_message_parse_error(msg, &err, &debug)
        case GST_MESSAGE_WARNING: severity = .warning; gst_message_parse_warning(msg, &err, &debug)
        default: return nil
        }
        defer { g_error_free(err); g_free(debug) }
        message = err.map { String(cString: $0.pointee.message) } ?? "(no message)"
        self.debug = debug.map { String(cString: $0).split(whereSeparator: \.isNewline).joined(separator: " ") }
        let source = msg.pointee.src
        element = source.flatMap { $0.pointee.name }.map { String(cString: $0) } ?? "the pipeline"
        if let source, g_type_check_instance_is_a(UnsafeMutableRawPointer(source).assumingMemoryBound(to: GTypeInstance.self),
                                                    gst_element_get_type()) != 0,
           let f = gst_element_get_factory(UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstElement.self)),
           let name = gst_object_get_name(UnsafeMutableRawPointer(f).assumingMemoryBound(to: GstObject.self)) {
            factory = String(cString: name)
            g_free(name)
        } else {
            factory = nil
        }
    }

    /// `pipeline error from filesrc: Resource not found. (details: …)`; an element the file named
    /// is shown with its name, `v4l2src "camera"`.
    public var description: String {
        let who: String
        if let factory {
            // GStreamer's own names (factory and a counter) change with every retry: show the factory.
            let counter = element.dropFirst(factory.count)
            who = element.hasPrefix(factory) && !counter.isEmpty && counter.allSatisfy(\.isNumber) ? factory : "\(factory) \"\(element)\""
        } else {
            who = "\"\(element)\""
        }
        return "pipeline \(severity.rawValue) from \(who): \(message)" + (debug.map { " (details: \($0))" } ?? "")
    }
}

/// The log the GLib callbacks below reach through their user data.
final class EventLog: Sendable {
    let log: @Sendable (ServeEvent) -> Void
    init(_ log: @escaping @Sendable (ServeEvent) -> Void) { self.log = log }
}

/// A viewer's address, kept from its connection to report its leaving.
private final class ViewerRecord: Sendable {
    let log: EventLog
    let address: String
    init(log: EventLog, address: String) { self.log = log; self.address = address }
}

private let releaseObject: GClosureNotify = { data, _ in
    if let data { Unmanaged<AnyObject>.fromOpaque(data).release() }
}

/// Connects `handler` to `signal` of `instance`, handing it `object`, which the connection keeps
/// alive until the instance is finalized.
private func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: GCallback, _ object: AnyObject) {
    _ = g_signal_connect_data(instance, signal, handler, Unmanaged.passRetained(object).toOpaque(), releaseObject,
                              GConnectFlags(rawValue: 0))
}

extension EventLog {
    /// Reports every viewer connecting to `server` and leaving it.
    func watchViewers(of server: UnsafeMutablePointer<GstRTSPServer>) {
        connect(UnsafeMutableRawPointer(server), "client-connected", unsafeBitCast(onClientConnected, to: GCallback.self), self)
    }

    /// Reports the errors and warnings of every pipeline `factory` builds (one per first viewer
    /// and per retry after a failure), as they are posted, before the viewer is answered.
    func watchPipelines(of factory: UnsafeMutablePointer<GstRTSPMediaFactory>) {
        connect(UnsafeMutableRawPointer(factory), "media-constructed", unsafeBitCast(onMediaConstructed, to: GCallback.self), self)
    }
}

/// `host:port` of the viewer's end of the RTSP connection.
private func viewerAddress(_ client: UnsafeMutablePointer<GstRTSPClient>) -> String {
    guard let connection = gst_rtsp_client_get_connection(client) else { return "(unknown)" }
    let ip = gst_rtsp_connection_get_ip(connection).map { String(cString: $0) } ?? "(unknown)"
    guard let socket = gst_rtsp_connection_get_read_socket(connection),
          let remote = g_socket_get_remote_address(socket, nil) else { return ip }
    defer { g_object_unref(UnsafeMutableRawPointer(remote)) }
    let port = g_inet_socket_address_get_port(UnsafeMutableRawPointer(remote).assumingMemoryBound(to: GInetSocketAddress.self))
    return ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
}

private let onClientConnected: @convention(c) (UnsafeMutablePointer<GstRTSPServer>?, UnsafeMutablePointer<GstRTSPClient>?,
                                               UnsafeMutableRawPointer?) -> Void = { _, client, data in
    guard let client, let data else { return }
    let log = Unmanaged<EventLog>.fromOpaque(data).takeUnretainedValue()
    let address = viewerAddress(client)
    log.log(.viewerConnected(address: address))
    connect(UnsafeMutableRawPointer(client), "closed", unsafeBitCast(onClientClosed, to: GCallback.self),
            ViewerRecord(log: log, address: address))
}

private let onClientClosed: @convention(c) (UnsafeMutablePointer<GstRTSPClient>?, UnsafeMutableRawPointer?) -> Void = { _, data in
    guard let data else { return }
    let viewer = Unmanaged<ViewerRecord>.fromOpaque(data).takeUnretainedValue()
    viewer.log.log(.viewerLeft(address: viewer.address))
}

/// One served pipeline's log: a pipeline stops at its first error, and the errors that follow
/// (a failed state change, an internal data stream error) only repeat it, so only the first is
/// reported; a warning is reported once.
private final class PipelineLog: @unchecked Sendable {  // `reported` is guarded by `lock`
    let log: EventLog
    private let lock = NSLock()
    private var reported: [PipelineMessage] = []
    init(_ log: EventLog) { self.log = log }

    func report(_ message: PipelineMessage) {
        lock.lock()
        let first = !reported.contains(message) && !(message.severity == .error && reported.contains { $0.severity == .error })
        if first { reported.append(message) }
        lock.unlock()
        if first { log.log(.pipeline(message)) }
    }
}

private let onMediaConstructed: @convention(c) (UnsafeMutablePointer<GstRTSPMediaFactory>?, UnsafeMutablePointer<GstRTSPMedia>?,
                                                UnsafeMutableRawPointer?) -> Void = { _, media, data in
    guard let media, let data, let element = gst_rtsp_media_get_element(media) else { return }
    defer { gst_object_unref(UnsafeMutableRawPointer(element)) }
    // The media's pipeline holds the launch bin; its bus is the one the media watches. Sync
    // messages are emitted to every handler, beside (not instead of) the media's own watch.
    guard let pipeline = gst_object_get_parent(UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self)) else { return }
    defer { gst_object_unref(UnsafeMutableRawPointer(pipeline)) }
    guard let bus = gst_element_get_bus(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstElement.self)) else { return }
    defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
    gst_bus_enable_sync_message_emission(bus)
    let log = PipelineLog(Unmanaged<EventLog>.fromOpaque(data).takeUnretainedValue())
    for signal in ["sync-message::error", "sync-message::warning"] {
        connect(UnsafeMutableRawPointer(bus), signal, unsafeBitCast(onBusMessage, to: GCallback.self), log)
    }
}

private let onBusMessage: @convention(c) (UnsafeMutablePointer<GstBus>?, UnsafeMutablePointer<GstMessage>?,
                                          UnsafeMutableRawPointer?) -> Void = { _, msg, data in
    guard let msg, let data, let message = PipelineMessage(msg) else { return }
    Unmanaged<PipelineLog>.fromOpaque(data).takeUnretainedValue().report(message)
}
