import CGStreamer
import CGstRtspServer
import Foundation

/// Where the GLib callbacks below report `ServeEvent`s (their user data): viewers through the
/// server's and clients' signals, the errors of viewers' media through their buses. It also
/// tells each camera who plays it.
final class EventLog: Sendable {
    let log: @Sendable (ServeEvent) -> Void
    /// The served cameras, to find the one a request's URL names.
    let cameras: [Camera]
    init(_ log: @escaping @Sendable (ServeEvent) -> Void, cameras: [Camera]) { self.log = log; self.cameras = cameras }

    /// The camera mounted at `path` (a request's path: the mount, or a stream below it).
    func camera(at path: String) -> Camera? {
        cameras.first { path == $0.path || path.hasPrefix($0.path.hasSuffix("/") ? $0.path : $0.path + "/") }
    }
}

/// A viewer's address, kept from its connection to report its leaving, and a number that stands
/// for it in the cameras' viewer counts.
private final class ViewerRecord: Sendable {
    let log: EventLog
    let address: String
    let id: Int
    init(log: EventLog, address: String, id: Int) { self.log = log; self.address = address; self.id = id }
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

    /// Reports the errors and warnings of every media `factory` builds (one for the viewers of a
    /// camera while any watch), as they are posted, before the viewer is answered.
    func watchPipelines(of factory: UnsafeMutablePointer<GstRTSPMediaFactory>) {
        connect(UnsafeMutableRawPointer(factory), "media-constructed", unsafeBitCast(onMediaConstructed, to: GCallback.self), self)
    }

    /// Has `camera` feed every media `factory` configures (or refuse it while failed).
    func feedMedia(of factory: UnsafeMutablePointer<GstRTSPMediaFactory>, from camera: Camera) {
        connect(UnsafeMutableRawPointer(factory), "media-configure", unsafeBitCast(onMediaConfigure, to: GCallback.self), camera)
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
    let viewer = ViewerRecord(log: log, address: address, id: Int(bitPattern: client))
    connect(UnsafeMutableRawPointer(client), "closed", unsafeBitCast(onClientClosed, to: GCallback.self), viewer)
    connect(UnsafeMutableRawPointer(client), "play-request", unsafeBitCast(onPlay, to: GCallback.self), viewer)
    connect(UnsafeMutableRawPointer(client), "teardown-request", unsafeBitCast(onTeardown, to: GCallback.self), viewer)
}

private let onClientClosed: @convention(c) (UnsafeMutablePointer<GstRTSPClient>?, UnsafeMutableRawPointer?) -> Void = { _, data in
    guard let data else { return }
    let viewer = Unmanaged<ViewerRecord>.fromOpaque(data).takeUnretainedValue()
    for camera in viewer.log.cameras { camera.viewerStopped(viewer.id) }
    viewer.log.log(.viewerLeft(address: viewer.address))
}

/// The path of a request's URL, e.g. `/cam1` or `/cam1/stream=0`.
private func requestPath(_ ctx: UnsafeMutablePointer<GstRTSPContext>?) -> String? {
    ctx?.pointee.uri?.pointee.abspath.map { String(cString: $0) }
}

private let onPlay: @convention(c) (UnsafeMutablePointer<GstRTSPClient>?, UnsafeMutablePointer<GstRTSPContext>?,
                                    UnsafeMutableRawPointer?) -> Void = { _, ctx, data in
    guard let data, let path = requestPath(ctx) else { return }
    let viewer = Unmanaged<ViewerRecord>.fromOpaque(data).takeUnretainedValue()
    viewer.log.camera(at: path)?.viewerStarted(viewer.id)
}

private let onTeardown: @convention(c) (UnsafeMutablePointer<GstRTSPClient>?, UnsafeMutablePointer<GstRTSPContext>?,
                                        UnsafeMutableRawPointer?) -> Void = { _, ctx, data in
    guard let data, let path = requestPath(ctx) else { return }
    let viewer = Unmanaged<ViewerRecord>.fromOpaque(data).takeUnretainedValue()
    viewer.log.camera(at: path)?.viewerStopped(viewer.id)
}

/// One viewer media's log: a pipeline stops at its first error, and the errors that follow
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

private let onMediaConfigure: @convention(c) (UnsafeMutablePointer<GstRTSPMediaFactory>?, UnsafeMutablePointer<GstRTSPMedia>?,
                                              UnsafeMutableRawPointer?) -> Void = { _, media, data in
    guard let media, let data else { return }
    Unmanaged<Camera>.fromOpaque(data).takeUnretainedValue().attach(media)
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
    guard let msg, let data, let message = PipelineMessage(msg), !Camera.isRefusal(message) else { return }
    Unmanaged<PipelineLog>.fromOpaque(data).takeUnretainedValue().report(message)
}
