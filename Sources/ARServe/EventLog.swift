import CGStreamer
import CGstRtspServer
import Foundation

/// Where the GLib callbacks below report `ServeEvent`s (their user data): viewers through the
/// server's and clients' signals, pipeline errors through each served pipeline's bus.
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
