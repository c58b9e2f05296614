import ARBridge
import ARPipelines
import CGStreamer
import CGstRtspServer
import Foundation

/// Where and how arserve listens.
public struct ServeOptions: Sendable {
    /// TCP port; 0 picks a free one.
    public var port: Int = 8554
    /// Mount path of a server of one file (`PipelineServer(file:options:)`), e.g. `/ar`.
    public var path: String = "/ar"
    /// Address to bind; loopback unless asked otherwise.
    public var address: String = "127.0.0.1"
    /// Basic authentication: both or neither.
    public var user: String?
    public var password: String?
    /// Encoder for raw-video pipelines; nil: the first available.
    public var encoder: H264Encoder?
    /// Where each camera's state (running, failed and why, restarting), its pipeline's warnings,
    /// viewers connecting and leaving, and the errors of viewers' media are reported; called on
    /// GLib, streaming and timer threads. Default: one line each on standard error.
    public var log: @Sendable (ServeEvent) -> Void = ServeEvent.writeToStandardError
    /// How long a failed camera waits before it starts again (1 s doubling up to 30 s).
    public var restartBackoff = RestartBackoff()
    /// What waits out that delay: the clock, or a timer a test steps.
    public var restartTimer: any RestartTimer = DispatchRestartTimer()

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

/// Serves pipeline files over RTSP, one camera each: every camera's pipeline runs on its own from
/// `start` to `stop`, restarted with backoff when it fails, and its viewers share one media fed
/// from it (see `Camera`).
public final class PipelineServer {
    /// The cameras, in the order they were given.
    public let cameras: [Camera]
    /// The encoder appended to raw-video pipelines; nil when every file brought its own payloader.
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

    /// Prepares `cameras` for serving: expands each file, appends encoding for viewers when it
    /// ends in raw video, and checks that GStreamer can parse it (the error names the offending
    /// element). Mount paths must differ.
    public init(cameras specs: [CameraSpec], options: ServeOptions,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        _ = Self.initialize
        if (options.user == nil) != (options.password == nil) || options.password == "" {
            throw ServeError.options("basic authentication needs both a user and a non-empty password")
        }
        guard !specs.isEmpty else { throw ServeError.options("no pipeline file given") }
        for (i, spec) in specs.enumerated() where specs[..<i].contains(where: { $0.path == spec.path }) {
            throw ServeError.options("two cameras at \(spec.path)")
        }
        self.options = options
        var encoder: H264Encoder?
        var cameras: [Camera] = []
        for spec in specs {
            let description: String
            do {
                description = try spec.file.description(environment: environment)
            } catch let e as PipelineFileError {
                throw ServeError.pipeline(e)
            }
            let cameraEncoder: H264Encoder?
            switch PipelineFile.output(of: description) {
            case .payloaded:
                cameraEncoder = nil
            case .complete:
                // An element GStreamer does not know is named rather than taken for the file's own sink.
                if let message = Camera.parseError(description) { throw ServeError.parse(path: spec.file.path, message: message) }
                throw ServeError.notServable(path: spec.file.path)
            case .rawVideo:
                guard let e = options.encoder ?? H264Encoder.available() else { throw ServeError.noEncoder }
                cameraEncoder = e
                encoder = e
            }
            cameras.append(try Camera(name: spec.name, path: spec.path, description: description, encoder: cameraEncoder,
                                      file: spec.file.path, backoff: options.restartBackoff, timer: options.restartTimer,
                                      log: options.log))
        }
        self.cameras = cameras
        self.encoder = encoder
    }

    /// Prepares one file, served at `options.path` as a camera named after the file.
    public convenience init(file: PipelineFile, options: ServeOptions,
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        try self.init(cameras: [CameraSpec(name: CameraSpec.name(ofFile: file.path), path: options.path, file: file)],
                      options: options, environment: environment)
    }

    /// Starts every camera, then listens on `context` (nil: the default main context), where the
    /// cameras' buses are read too. Returns the first camera's URL.
    public func start(context: OpaquePointer? = nil) throws -> String {
        let server = gst_rtsp_server_new()!
        gst_rtsp_server_set_address(server, options.address)
        gst_rtsp_server_set_service(server, String(options.port))
        // A thread per client: a viewer waiting for a camera that is starting holds up no one else.
        if let pool = gst_rtsp_server_get_thread_pool(server) {
            gst_rtsp_thread_pool_set_max_threads(pool, -1)
            g_object_unref(UnsafeMutableRawPointer(pool))
        }
        let log = EventLog(options.log, cameras: cameras)
        log.watchViewers(of: server)
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
        }
        let mounts = gst_rtsp_server_get_mount_points(server)!
        for camera in cameras {
            let factory = gst_rtsp_media_factory_new()!
            gst_rtsp_media_factory_set_launch(factory, "( \(camera.mediaLaunch) )")
            gst_rtsp_media_factory_set_shared(factory, 1)
            gst_rtsp_media_factory_set_latency(factory, 0)
            log.watchPipelines(of: factory)
            log.feedMedia(of: factory, from: camera)
            if options.user != nil { Self.allowViewers(factory) }
            gst_rtsp_mount_points_add_factory(mounts, camera.path, factory)  // takes the factory
        }
        g_object_unref(UnsafeMutableRawPointer(mounts))

        for camera in cameras { camera.start(context: context) }
        let id = gst_rtsp_server_attach(server, context)
        guard id != 0 else {
            for camera in cameras { camera.stop() }
            g_object_unref(UnsafeMutableRawPointer(server))
            throw ServeError.bind(address: options.address, port: options.port)
        }
        self.server = server
        sourceID = id
        self.context = context
        return url
    }

    /// Lets the authenticated role `viewer` see and play what `factory` serves.
    private static func allowViewers(_ factory: UnsafeMutablePointer<GstRTSPMediaFactory>) {
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

    /// The port actually bound (useful with port 0); -1 before `start`.
    public var boundPort: Int {
        server.map { Int(gst_rtsp_server_get_bound_port($0)) } ?? -1
    }

    /// The first camera's URL, e.g. `rtsp://127.0.0.1:8554/ar`.
    public var url: String { url(of: cameras[0]) }

    /// `camera`'s URL, e.g. `rtsp://127.0.0.1:8554/cam1`.
    public func url(of camera: Camera) -> String {
        let host = options.address.contains(":") ? "[\(options.address)]" : options.address
        return "rtsp://\(host):\(boundPort)\(camera.path)"
    }

    /// The camera named `name`, nil if none is.
    public func camera(named name: String) -> Camera? { cameras.first { $0.name == name } }

    /// Every camera's status, in the cameras' order: what a `/status` page shows.
    public var status: [CameraStatus] { cameras.map(\.status) }

    /// Stops every camera, stops listening, disconnects every viewer and releases the server.
    public func stop() {
        guard let server else { return }
        for camera in cameras { camera.stop() }
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
