import ARBridge
import ARPipelines
import CGStreamer
import CGstRtspServer
import Foundation

/// Where and how arserve listens.
public struct ServeOptions: Sendable {
    /// TCP port; 0 picks a free one.
    public var port: Int = 8554
    /// Mount path, e.g. `/ar`.
    public var path: String = "/ar"
    /// Address to bind; loopback unless asked otherwise.
    public var address: String = "127.0.0.1"
    /// Basic authentication: both or neither.
    public var user: String?
    public var password: String?
    /// Encoder for raw-video pipelines; nil: the first available.
    public var encoder: H264Encoder?
    /// Where viewers connecting and leaving, and the served pipeline's errors and warnings, are
    /// reported; called on GLib and streaming threads. Default: one line each on standard error.
    public var log: @Sendable (ServeEvent) -> Void = ServeEvent.writeToStandardError

    public init() {}
}

/// Why a pipeline cannot be served.
public enum ServeError: Error, Equatable, CustomStringConvertible {
    case pipeline(PipelineFileError)
    /// GStreamer's parser refused the description; `message` names the offending element.
    case parse(path: String, message: String)
    /// The pipeline writes to its own sinks, so there is no stream to serve.
    case notServable(path: String)
    case noEncoder
    case bind(address: String, port: Int)
    case options(String)

    public var description: String {
        switch self {
        case .pipeline(let e): return "\(e)"
        case .parse(let path, let message): return "\(path): the pipeline does not parse: \(message)"
        case .notServable(let path):
            return "\(path): the pipeline ends in its own sink; arserve needs one ending in raw video or in an RTP payloader named pay0"
        case .noEncoder: return "no H.264 encoder installed: install gstreamer1.0-plugins-ugly (x264enc) or gstreamer1.0-plugins-bad (openh264enc)"
        case .bind(let address, let port): return "cannot listen on \(address):\(port) (in use, or not an address of this machine)"
        case .options(let m): return m
        }
    }
}

/// Serves one pipeline file over RTSP: one shared pipeline for every viewer.
public final class PipelineServer {
    /// The launch text handed to the media factory (without the enclosing parentheses).
    public let launch: String
    /// The encoder appended, nil when the file brought its own payloader.
    public let encoder: H264Encoder?
    private let options: ServeOptions
    private var server: UnsafeMutablePointer<GstRTSPServer>?
    private var sourceID: guint = 0
    private var context: OpaquePointer?

    /// Initialises GStreamer and registers the arbarcode elements in this process, once.
    public static let initialize: Void = {
        gst_init(nil, nil)
        _ = ar_plugin_register_static()
    }()

    /// Prepares `file` for serving: expands it, appends encoding when it ends in raw video, and
    /// checks that GStreamer can parse it (the error names the offending element).
    public init(file: PipelineFile, options: ServeOptions, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        _ = Self.initialize
        if (options.user == nil) != (options.password == nil) || options.password == "" {
            throw ServeError.options("basic authentication needs both a user and a non-empty password")
        }
        self.options = options
        let description: String
        do {
            description = try file.description(environment: environment)
        } catch let e as PipelineFileError {
            throw ServeError.pipeline(e)
        }
        switch PipelineFile.output(of: description) {
        case .payloaded:
            launch = description
            encoder = nil
        case .complete:
            throw ServeError.notServable(path: file.path)
        case .rawVideo:
            guard let e = options.encoder ?? H264Encoder.available() else { throw ServeError.noEncoder }
            encoder = e
            launch = description + " ! " + e.encodeAndPay()
        }
        try Self.checkParses(launch, path: file.path)
    }

    private static func checkParses(_ launch: String, path: String) throws {
        var error: UnsafeMutablePointer<GError>?
        let bin = gst_parse_launch_full(launch, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        if let bin { gst_object_unref(UnsafeMutableRawPointer(bin)) }
        if let error {
            defer { g_error_free(error) }
            throw ServeError.parse(path: path, message: String(cString: error.pointee.message))
        }
    }

    /// Starts listening on `context` (nil: the default main context). Returns the stream's URL.
    public func start(context: OpaquePointer? = nil) throws -> String {
        let server = gst_rtsp_server_new()!
        gst_rtsp_server_set_address(server, options.address)
        gst_rtsp_server_set_service(server, String(options.port))

        let factory = gst_rtsp_media_factory_new()!
        gst_rtsp_media_factory_set_launch(factory, "( \(launch) )")
        gst_rtsp_media_factory_set_shared(factory, 1)
        gst_rtsp_media_factory_set_latency(factory, 0)
        let log = EventLog(options.log)
        log.watchViewers(of: server)
        log.watchPipelines(of: factory)
        if let user = options.user, let password = options.password {
            let auth = gst_rtsp_auth_new()!
            let token = gst_rtsp_token_new_empty()!
            let ts = gst_rtsp_token_writable_structure(token)
            var role = GValue()
            g_value_init(&role, ar_value_gtype(AR_VALUE_STRING))
            g_value_set_string(&role, "viewer")
            gst_structure_take_value(ts, "media.factory.role", &role)
            let basic = gst_rtsp_auth_make_basic(user, password)
            gst_rtsp_auth_add_basic(auth, basic, token)
            g_free(basic)
            gst_mini_object_unref(UnsafeMutableRawPointer(token).assumingMemoryBound(to: GstMiniObject.self))
            gst_rtsp_server_set_auth(server, auth)
            g_object_unref(UnsafeMutableRawPointer(auth))

            let permissions = gst_rtsp_permissions_new()!
            let allowed = gst_structure_new_empty("viewer")!
            for key in ["media.factory.access", "media.factory.construct"] {
                var v = GValue()
                g_value_init(&v, ar_value_gtype(AR_VALUE_BOOLEAN))
                g_value_set_boolean(&v, 1)
                gst_structure_take_value(allowed, key, &v)
            }
            gst_rtsp_permissions_add_role_from_structure(permissions, allowed)
            gst_structure_free(allowed)
            gst_rtsp_media_factory_set_permissions(factory, permissions)
            gst_mini_object_unref(UnsafeMutableRawPointer(permissions).assumingMemoryBound(to: GstMiniObject.self))
        }
        let mounts = gst_rtsp_server_get_mount_points(server)!
        gst_rtsp_mount_points_add_factory(mounts, options.path, factory)  // takes the factory
        g_object_unref(UnsafeMutableRawPointer(mounts))

        let id = gst_rtsp_server_attach(server, context)
        guard id != 0 else {
            g_object_unref(UnsafeMutableRawPointer(server))
            throw ServeError.bind(address: options.address, port: options.port)
        }
        self.server = server
        sourceID = id
        self.context = context
        return url
    }

    /// The port actually bound (useful with port 0); -1 before `start`.
    public var boundPort: Int {
        server.map { Int(gst_rtsp_server_get_bound_port($0)) } ?? -1
    }

    /// The stream's URL, e.g. `rtsp://127.0.0.1:8554/ar`.
    public var url: String {
        let host = options.address.contains(":") ? "[\(options.address)]" : options.address
        return "rtsp://\(host):\(boundPort)\(options.path)"
    }

    /// Stops listening, disconnects every viewer and releases the server.
    public func stop() {
        guard let server else { return }
        if sourceID != 0 {
            if let source = g_main_context_find_source_by_id(context, sourceID) { g_source_destroy(source) }
            sourceID = 0
        }
        gst_rtsp_server_client_filter(server, { _, _, _ in GST_RTSP_FILTER_REMOVE }, nil)
        g_object_unref(UnsafeMutableRawPointer(server))
        self.server = nil
        context = nil
    }

    deinit {
        stop()
    }
}
