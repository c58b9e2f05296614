// arserve: serves pipeline files over RTSP (gst-rtsp-server), one camera each. See `arserve --help`.
import ARPipelines
import ARServe
import ARServeWeb
import ARWeb
import CGStreamer
import CGstRtspServer
import Foundation

let usage = """
    usage: arserve FILE|FOLDER... [--port 8554] [--path /ar] [--address 127.0.0.1] [--user NAME] [--encoder x264enc|openh264enc]
                         [--http PORT]
      FILE       a pipeline file (pipelines/*.pipeline) ending in raw video (arserve adds H.264
                 encoding and RTP payloading) or in an RTP payloader named pay0
      FOLDER     every *.pipeline file in it
                 One file is served at --path; several (or a folder) are one camera each, served at
                 /NAME after the file's name (cam1.pipeline: rtsp://HOST:PORT/cam1)
      --port     TCP port (default 8554; 0 picks a free one)
      --path     mount path of a single FILE (default /ar)
      --address  address to bind (default 127.0.0.1, loopback only; 0.0.0.0 for every interface)
      --user     require basic authentication as NAME; the password comes from $ARSERVE_PASSWORD
      --encoder  H.264 encoder (default: x264enc when installed, else openh264enc)
      --http     also serve a browser page on PORT (same --address and --user): every camera's
                 video (WebRTC, or JPEG over the WebSocket when WebRTC does not connect within 5 s)
                 with its codes listed beside it, a click on the video taps the code there;
                 /status answers each camera's state, fps, codes and viewers as JSON
    Variables ${NAME} / ${NAME:-default} in FILE come from the environment.
    Each camera's pipeline runs from start to stop, watched or not, and is shared by its viewers.
    A camera that fails (an error, or the end of its stream) is started again after 1 s, 2 s,
    4 s ... up to 30 s, the others going on. Each camera's state (running / failed: reason;
    restarting in N s), viewers connecting and leaving, and warnings are logged on standard error.
    Stops cleanly on Ctrl-C (SIGINT) or SIGTERM.
    """

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("arserve: \(message)\n".utf8))
    if status == 2 { FileHandle.standardError.write(Data((usage + "\n").utf8)) }
    exit(status)
}

var options = ServeOptions()
var files: [String] = []
var path: String?
var httpPort: Int?
var args = Array(CommandLine.arguments.dropFirst())
while !args.isEmpty {
    let a = args.removeFirst()
    func value() -> String {
        guard !args.isEmpty else { fail("\(a) needs a value", status: 2) }
        return args.removeFirst()
    }
    switch a {
    case "-h", "--help": print(usage); exit(0)
    case "--port":
        let v = value()
        guard let p = Int(v), (0...65535).contains(p) else { fail("--port takes a number from 0 to 65535, not '\(v)'", status: 2) }
        options.port = p
    case "--path":
        let v = value()
        guard v.hasPrefix("/") else { fail("--path must start with '/', not '\(v)'", status: 2) }
        path = v
    case "--http":
        let v = value()
        guard let p = Int(v), (0...65535).contains(p) else { fail("--http takes a port number from 0 to 65535, not '\(v)'", status: 2) }
        httpPort = p
    case "--address": options.address = value()
    case "--user":
        let v = value()
        guard !v.isEmpty else { fail("--user needs a name (an empty one would let anyone in)", status: 2) }
        options.user = v
    case "--encoder":
        let v = value()
        guard let e = H264Encoder(rawValue: v) else { fail("--encoder takes x264enc or openh264enc, not '\(v)'", status: 2) }
        options.encoder = e
    default:
        if a.hasPrefix("-") { fail("unknown option \(a)", status: 2) }
        files.append(a)
    }
}
if files.isEmpty { fail("no pipeline file given", status: 2) }
if options.user != nil {
    guard let password = ProcessInfo.processInfo.environment["ARSERVE_PASSWORD"], !password.isEmpty else {
        fail("--user needs the password in the ARSERVE_PASSWORD environment variable", status: 2)
    }
    options.password = password
}

let cameras: [CameraSpec]
do {
    cameras = try CameraSpec.resolve(files, singlePath: path)
} catch ServeError.options(let message) {
    fail(message, status: 2)
} catch {
    fail("\(error)", status: 1)
}
let server: PipelineServer
let url: String
do {
    server = try PipelineServer(cameras: cameras, options: options)
    url = try server.start()
} catch {
    fail("\(error)", status: 1)
}

var web: WebServer?
if let httpPort {
    do {
        let credentials = options.user.map { BasicCredentials(user: $0, password: options.password ?? "") }
        let server = try WebServer(cameras: server.cameras, options: WebOptions(port: httpPort, address: options.address,
                                                                                credentials: credentials))
        let port = try server.start()
        let host = options.address.contains(":") ? "[\(options.address)]" : options.address
        print("arserve: browser page at http://\(host):\(port)/ (status: /status)")
        web = server
    } catch {
        server.stop()
        fail("\(error)", status: 1)
    }
}

let loop = g_main_loop_new(nil, 0)!
let quit: GSourceFunc = { data in
    g_main_loop_quit(OpaquePointer(data))
    return 0
}
g_unix_signal_add(SIGINT, quit, UnsafeMutableRawPointer(loop))
g_unix_signal_add(SIGTERM, quit, UnsafeMutableRawPointer(loop))
for camera in server.cameras {
    let file = cameras.first { $0.name == camera.name }?.file.path ?? camera.name
    print("arserve: serving \(file) at \(server.url(of: camera))" + (server.cameras.count > 1 ? " (camera \(camera.name))" : ""))
}
print("arserve: H.264 \(server.encoder.map { "from \($0.rawValue)" } ?? "from the file's own pay0")\(options.user != nil ? ", basic authentication as \(options.user!)" : "")")
print("arserve: \(ViewerSuggestion.line(url: url)); Ctrl-C stops")
fflush(nil)  // every C stream (stdout among them)
g_main_loop_run(loop)
web?.stop()
server.stop()
print("arserve: stopped")
