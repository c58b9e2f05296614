// arbench: speed and accuracy measurements. Build in release: swift run -c release arbench <command> ...
import Foundation

/// One benchmark command: `arbench <name> [arguments]`.
struct BenchCommand: Sendable {
    var name: String
    var summary: String
    var run: @Sendable ([String]) throws -> Void
}

/// The word after `flag` in `args`, or `fallback` when the flag is absent or last.
func flagValue(_ args: [String], _ flag: String, _ fallback: String) -> String {
    guard let i = args.firstIndex(of: flag), i + 1 < args.count else { return fallback }
    return args[i + 1]
}

let commands: [BenchCommand] = [
    OverlayBench.command,
    BenchCommand(name: "stream", summary: "[--seconds 10]: RTSP glass-to-glass latency and arserve CPU, 1 and 2 viewers", run: StreamBench.run),
    BenchCommand(name: "accuracy", summary: "CORPUS [prop=value…]: per-folder reads, stock zbar vs arbarcodedetect vs zxing-cpp", run: Accuracy.run),
    BenchCommand(name: "zbar-read", summary: "IMAGE: the stock zbar element's codes (used by accuracy)", run: Accuracy.zbarRead),
    BenchCommand(name: "detect", summary: "[frames] [--sizes WxH,…] [--codes N]: ms/frame (one thread), stock zbar vs arbarcodedetect", run: SpeedBench.run),
    trackCommand,
    LocateCommand.command,
    SoakBench.command,
    RectBench.command,
    NotesBench.command,
]

let args = Array(CommandLine.arguments.dropFirst())
guard let name = args.first, let command = commands.first(where: { $0.name == name }) else {
    var usage = "usage: arbench <command> [options]\ncommands:\n"
    for c in commands { usage += "  \(c.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(c.summary)\n" }
    FileHandle.standardError.write(Data(usage.utf8))
    exit(args.isEmpty ? 0 : 2)
}
do {
    try command.run(Array(args.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("arbench \(name): \(error)\n".utf8))
    exit(1)
}
