// arserve: serves a pipeline file over RTSP (gst-rtsp-server). See `arserve --help`.
import ARPipelines
import ARServe
import CGStreamer
import CGstRtspServer
import Foundation

let usage = """
    usage: arserve FILE [--port 8554] [--path /ar] [--address 127.0.0.1] [--user NAME] [--encoder x264enc|openh264enc]
      FILE       a pipeline file (pipelines/*.pipeline) ending in raw video (arserve adds H.264
                 encoding and RTP payloading) or in an RTP payloader named pay0
      --port     TCP port (default 8554; 0 picks a free one)
      --path     mount path (default /ar)
      --address  address to bind (default 127.0.0.1, loopback only; 0.0.0.0 for every interface)
      --user     require basic authentication as NAME; the password comes from $ARSERVE_PASSWORD
      --encoder  H.264 encoder (default: x264enc when installed, else openh264enc)
    Variables ${NAME} / ${NAME:-default} in FILE come from the environment.
    One shared pipeline serves every viewer. Viewers connecting and leaving, and the pipeline's
    errors and warnings (element, reason, details), are logged on standard error.
    Stops cleanly on Ctrl-C (SIGINT) or SIGTERM.
    """

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("arserve: \(message)\n".utf8))
    if status == 2 { FileHandle.standardError.write(Data((usage + "\n").utf8)) }
    exit(status)
}

var options = ServeOptions()
var file: String?
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
        options.path = v
    case "--address": options.address = value()
    case "--user": options.user = value()
    case "--encoder":
        let v = value()
        guard let e = H264Encoder(rawValue: v) else { fail("--encoder takes x264enc or openh264enc, not '\(v)'", status: 2) }
        options.encoder = e
    default:
        if a.hasPrefix("-") { fail("unknown option \(a)", status: 2) }
        if file != nil { fail("one pipeline file only", status: 2) }
        file = a
    }
}
guard let file else { fail("no pipeline file given", status: 2) }
if options.user != nil {
    guard let password = ProcessInfo.processInfo.environment["ARSERVE_PASSWORD"], !password.isEmpty else {
        fail("--user needs the password in the ARSERVE_PASSWORD environment variable", status: 2)
    }
    options.password = password
}

let server: PipelineServer
let url: String
do {
    server = try PipelineServer(file: try PipelineFile(contentsOf: file), options: options)
    url = try server.start()
} catch let error as PipelineFileError {
    fail("\(error)", status: 1)
} catch {
    fail("\(error)", status: 1)
}

let loop = g_main_loop_new(nil, 0)!
let quit: GSourceFunc = { data in
    g_main_loop_quit(OpaquePointer(data))
    return 0
}
g_unix_signal_add(SIGINT, quit, UnsafeMutableRawPointer(loop))
g_unix_signal_add(SIGTERM, quit, UnsafeMutableRawPointer(loop))
print("arserve: serving \(file) at \(url)")
print("arserve: H.264 \(server.encoder.map { "from \($0.rawValue)" } ?? "from the file's own pay0")\(options.user != nil ? ", basic authentication as \(options.user!)" : "")")
print("arserve: \(ViewerSuggestion.line(url: url)); Ctrl-C stops")
fflush(nil)  // every C stream (stdout among them)
g_main_loop_run(loop)
server.stop()
print("arserve: stopped")
