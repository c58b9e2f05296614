import ARServe
import Foundation
import XCTest

/// The package's root folder (pipelines/ lives there).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Waits until `done()` or a generous guard time (a hang guard, not a timing assertion).
func waitUntil(seconds: Double = 60, _ done: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if done() { return true }
        usleep(20_000)
    }
    return done()
}

/// Pixels of the overlay's default outline colour (pure green) in an RGB frame.
func greenPixels(_ rgb: [UInt8]) -> Int {
    var n = 0
    var i = 0
    while i + 2 < rgb.count {
        if rgb[i + 1] > 180 && rgb[i] < 110 && rgb[i + 2] < 110 { n += 1 }
        i += 3
    }
    return n
}

/// A child process whose standard output and error are collected as they arrive, so a test can
/// read a running server's log or wait for a line, with a hang guard instead of a timing assertion.
final class ChildProcess: @unchecked Sendable {  // `out`, `err` guarded by `lock`; `process` used on the test's thread only
    let process = Process()
    private let lock = NSLock()
    private var out = Data(), err = Data()

    /// Starts `executable` (a path, or a name looked up in PATH) in `directory` (nil: this one).
    init(_ executable: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
         directory: String? = nil) throws {
        guard let path = executable.contains("/") ? executable : findInPath(executable, environment["PATH"]) else {
            XCTFail("\(executable) is not installed (scripts/deps.sh build installs it)")
            throw CocoaError(.fileNoSuchFile)
        }
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        outPipe.fileHandleForReading.readabilityHandler = { [weak self] h in self?.append(h, toError: false) }
        errPipe.fileHandleForReading.readabilityHandler = { [weak self] h in self?.append(h, toError: true) }
        try process.run()
    }

    private func append(_ handle: FileHandle, toError: Bool) {
        let data = handle.availableData
        if data.isEmpty { handle.readabilityHandler = nil; return }
        lock.lock()
        if toError { err.append(data) } else { out.append(data) }
        lock.unlock()
    }

    /// Everything written to standard output so far.
    var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: out, as: UTF8.self) }
    /// Everything written to standard error so far.
    var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: err, as: UTF8.self) }

    /// Waits for the process to end (killing it after the hang guard); its exit status, nil if killed.
    @discardableResult
    func waitForExit(seconds: Double = 60) -> Int32? {
        if !waitUntil(seconds: seconds, { !process.isRunning }) {
            process.terminate()
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        // Output written just before exit may still be on its way through the pipes.
        _ = waitUntil(seconds: 5) { [self] in
            (process.standardOutput as? Pipe)?.fileHandleForReading.readabilityHandler == nil
                && (process.standardError as? Pipe)?.fileHandleForReading.readabilityHandler == nil
        }
        return process.terminationStatus
    }

    /// Asks the process to stop as Ctrl-C would, and waits for it.
    @discardableResult
    func interrupt() -> Int32? {
        if process.isRunning { kill(process.processIdentifier, SIGINT) }
        return waitForExit()
    }

    deinit {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
    }
}

/// The first executable called `name` in the colon-separated `path` (as `which` finds it).
func findInPath(_ name: String, _ path: String?) -> String? {
    (path ?? "").split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// What ffmpeg saw as an RTSP client: frames decoded, and every warning and error it printed.
struct FFmpegResult {
    var status: Int32?
    var framesDecoded: Int
    var messages: String
}

/// Decodes `frames` video frames of `url` with ffmpeg, RTP over `transport` (`udp` or `tcp`),
/// printing warnings and errors (`-v warning`): what ffplay and VLC's decoder would meet.
func ffmpegDecode(_ url: String, transport: String, frames: Int) throws -> FFmpegResult {
    let ffmpeg = try ChildProcess("ffmpeg", ["-nostdin", "-hide_banner", "-nostats", "-v", "warning", "-progress", "pipe:1",
                                             "-rtsp_transport", transport, "-i", url, "-frames:v", String(frames),
                                             // Frames keep the stream's timestamps: no frame-rate conversion
                                             // for the null output (it would warn about a live camera's jitter).
                                             "-fps_mode", "passthrough", "-f", "null", "-"])
    let status = ffmpeg.waitForExit()
    // -progress writes key=value blocks; the last frame= is the total.
    let decoded = ffmpeg.stdout.split(separator: "\n").filter { $0.hasPrefix("frame=") }.last.flatMap { Int($0.dropFirst(6)) } ?? 0
    // The null output's own complaints (two frames of a live camera's jitter landing on one tick of
    // its time base) are about ffmpeg's writing, not about decoding: a player has no such output.
    // ffmpeg folds repeats of a line into "Last message repeated N times", which goes with it.
    var kept: [Substring] = [], droppedLast = false
    for line in ffmpeg.stderr.split(separator: "\n") {
        if line.hasPrefix("[null @") || droppedLast && line.contains("Last message repeated") {
            droppedLast = true
        } else {
            kept.append(line)
            droppedLast = false
        }
    }
    let messages = kept.joined(separator: "\n")
    return FFmpegResult(status: status, framesDecoded: decoded, messages: messages.trimmingCharacters(in: .whitespacesAndNewlines))
}

/// The arserve executable built beside the tests.
let arserveBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arserve").path

/// Starts arserve (`binary`: the one built beside the tests, or another copy) with `arguments` and
/// waits for its "watch with" line; the child and the URL it serves.
func startArserve(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
                  directory: String? = nil, binary: String = arserveBinary) throws -> (arserve: ChildProcess, url: String) {
    let arserve = try ChildProcess(binary, arguments, environment: environment, directory: directory)
    XCTAssertTrue(waitUntil { arserve.stdout.contains("watch with") || !arserve.process.isRunning }, arserve.stderr)
    guard let range = arserve.stdout.range(of: #"rtsp://[0-9.]+:[0-9]+/\S*"#, options: .regularExpression) else {
        XCTFail("arserve \(arguments) printed no URL: \(arserve.stdout) \(arserve.stderr)")
        throw CocoaError(.featureUnsupported)
    }
    return (arserve, String(arserve.stdout[range]))
}

/// The lines arserve logged on standard error that contain `text`.
func logLines(_ arserve: ChildProcess, containing text: String) -> [Substring] {
    arserve.stderr.split(separator: "\n").filter { $0.contains(text) }
}

/// A restart timer the test fires by hand: a failed camera restarts exactly when the test says,
/// and the delays its backoff asked for are kept.
final class ManualRestartTimer: RestartTimer, @unchecked Sendable {  // `pending` and `requests` guarded by `lock`
    private let lock = NSLock()
    private var pending: [@Sendable () -> Void] = []
    private var requests: [(camera: String, seconds: Double)] = []

    func schedule(camera: String, afterSeconds seconds: Double, _ restart: @escaping @Sendable () -> Void) {
        lock.lock()
        pending.append(restart)
        requests.append((camera, seconds))
        lock.unlock()
    }

    /// Every delay asked for so far by `camera`, seconds, in order.
    func delays(of camera: String) -> [Double] {
        lock.lock()
        defer { lock.unlock() }
        return requests.filter { $0.camera == camera }.map(\.seconds)
    }

    /// Restarts not fired yet.
    var pendingCount: Int { lock.lock(); defer { lock.unlock() }; return pending.count }

    /// Runs the oldest pending restart, on this thread.
    func fireNext() {
        lock.lock()
        let restart = pending.isEmpty ? nil : pending.removeFirst()
        lock.unlock()
        restart?()
    }
}

/// The `ServeEvent`s a server reported, in order (`ServeOptions.log`).
final class EventRecorder: @unchecked Sendable {  // `events` guarded by `lock`
    private let lock = NSLock()
    private var recorded: [ServeEvent] = []

    var log: @Sendable (ServeEvent) -> Void { { [self] event in lock.lock(); recorded.append(event); lock.unlock() } }

    var events: [ServeEvent] { lock.lock(); defer { lock.unlock() }; return recorded }

    /// The states camera `name` went through, in order.
    func states(of name: String) -> [CameraState] {
        events.compactMap { if case .camera(name, let state) = $0 { return state } else { return nil } }
    }
}
