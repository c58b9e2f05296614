import ARServe
import ARWeb
import FlyingFox
import Foundation

/// Where and how `arserve --http` listens.
public struct WebOptions: Sendable {
    /// TCP port; 0 picks a free one.
    public var port: Int = 8080
    /// Address to bind; loopback unless asked otherwise (the RTSP side's `--address`).
    public var address: String = "127.0.0.1"
    /// Basic authentication for every request (the RTSP side's `--user`); nil: none.
    public var credentials: BasicCredentials?

    public init(port: Int = 8080, address: String = "127.0.0.1", credentials: BasicCredentials? = nil) {
        self.port = port
        self.address = address
        self.credentials = credentials
    }
}

/// The browser side of arserve, on FlyingFox:
///
/// - `GET /`: the page (`WebPage`): every camera's video with its codes listed beside it.
/// - `GET /status`: `{"cameras":[…]}`, each camera's `CameraStatus` (state, frames, fps, codes,
///   RTSP and browser viewers, restarts, last error).
/// - `GET /cameras/NAME/ws`: a WebSocket: camera NAME's frames as `BrowserFrame` messages (JPEG and
///   codes), and clicks from the page (`DisplayedClick` JSON) sent into its pipeline.
///   `?video=webrtc`: the video over WebRTC instead, signalled on the socket (see `BrowserViewer`).
///
/// With credentials, every request needs them (`401 Unauthorized` otherwise), as on the RTSP side.
public final class WebServer: @unchecked Sendable {  // `task` guarded by `lock`; the rest immutable
    private let server: HTTPServer
    private let options: WebOptions
    private let lock = NSLock()
    private var task: Task<Void, any Error>?

    /// A server for `cameras` (the `PipelineServer`'s).
    public init(cameras: [Camera], options: WebOptions) throws {
        self.options = options
        let port = UInt16(clamping: options.port)
        let handler = Routes(cameras: cameras, credentials: options.credentials)
        if options.address.contains(":") {
            server = HTTPServer(address: try .inet6(ip6: options.address, port: port), logger: .disabled, handler: handler)
        } else {
            server = HTTPServer(address: try .inet(ip4: options.address, port: port), logger: .disabled, handler: handler)
        }
    }

    /// Starts listening and returns the port bound, once it is. Blocks the calling thread until
    /// then (it must not be one of Swift concurrency's); throws when the address cannot be bound.
    public func start() throws -> Int {
        let server = self.server
        let ended = ResultBox<Bool>()  // set when `run` returns or throws: the address could not be bound
        let task = Task {
            defer { ended.set(true) }
            try await server.run()
        }
        lock.lock()
        self.task = task
        lock.unlock()
        let port = Blocking.run {
            // Listening, or failed: whichever comes first (10 s at most).
            for _ in 0..<1000 where ended.get() == nil {
                switch await server.listeningAddress {
                case .ip4(_, let port), .ip6(_, let port): return Int(port)
                default: try? await Task.sleep(nanoseconds: 10_000_000)
                }
            }
            return -1
        }
        guard port > 0 else {
            task.cancel()
            throw WebServerError.bind(address: options.address, port: options.port)
        }
        return port
    }

    /// Stops listening and closes every connection.
    public func stop() {
        lock.lock()
        let task = self.task
        self.task = nil
        lock.unlock()
        guard let task else { return }
        let server = self.server
        Blocking.run { await server.stop(timeout: 0) }
        task.cancel()
    }
}

/// Why the web server could not start.
public enum WebServerError: Error, Equatable, CustomStringConvertible {
    case bind(address: String, port: Int)

    public var description: String {
        switch self {
        case .bind(let address, let port): return "cannot serve HTTP on \(address):\(port) (in use, or not an address of this machine)"
        }
    }
}

/// Runs async work to its end from a thread outside Swift concurrency, waiting for it.
enum Blocking {
    static func run<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        Task {
            box.set(await work())
            done.signal()
        }
        done.wait()
        return box.get()!
    }
}

/// A value set on one thread and read on another.
private final class ResultBox<T: Sendable>: @unchecked Sendable {  // `value` guarded by `lock`
    private let lock = NSLock()
    private var value: T?
    func set(_ v: T) { lock.lock(); value = v; lock.unlock() }
    func get() -> T? { lock.lock(); defer { lock.unlock() }; return value }
}

/// Every request: authentication first, then the page, the status or a camera's WebSocket.
struct Routes: HTTPHandler {
    let cameras: [Camera]
    let credentials: BasicCredentials?

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let credentials, !credentials.accepts(authorization: request.headers[.authorization]) {
            return HTTPResponse(statusCode: .unauthorized, headers: [HTTPHeader("WWW-Authenticate"): BasicCredentials.challenge],
                                body: Data("authentication needed\n".utf8))
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch (request.method, parts.count, parts.first) {
        case (.GET, 0, _), (.GET, 1, "index.html"):
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                                body: Data(WebPage.html.utf8))
        case (.GET, 1, "status"):
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                                body: try Self.statusJSON(cameras))
        case (.GET, 3, "cameras") where parts[2] == "ws":
            guard let camera = cameras.first(where: { $0.name == parts[1] }), camera.browser != nil else {
                return HTTPResponse(statusCode: .notFound, body: Data("no camera \(parts[1]) to show in a browser\n".utf8))
            }
            let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            let viewer = BrowserViewer(camera: camera, video: BrowserVideo(query: query), codecs: WebRTCCodec.listed(inQuery: query))
            return try await WebSocketHTTPHandler(handler: viewer).handleRequest(request)
        default:
            return HTTPResponse(statusCode: .notFound, body: Data("not found\n".utf8))
        }
    }

    /// `{"cameras":[CameraStatus…]}`.
    static func statusJSON(_ cameras: [Camera]) throws -> Data {
        struct Status: Encodable { var cameras: [CameraStatus] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try encoder.encode(Status(cameras: cameras.map(\.status)))
    }
}
