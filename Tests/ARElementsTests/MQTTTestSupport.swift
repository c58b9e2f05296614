import Foundation
import XCTest

/// A free TCP port on loopback (bound, read back and released).
func freeLoopbackPort() -> UInt16 {
    let (fd, port) = loopbackSocket(Int32(SOCK_STREAM.rawValue))
    close(fd)
    return port
}

/// Waits until `condition` holds, checking every 20 ms; false if it still does not after
/// `guardSeconds` (a guard against a hung test, not a timing assertion).
func waitUntil(guardSeconds: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: guardSeconds)
    while !condition() {
        if Date() > deadline { return false }
        usleep(20_000)
    }
    return true
}

/// Debian's `mosquitto` broker on a free loopback port of its own (not the system service's 1883),
/// with persistence in a temporary directory so that sessions and retained messages survive a
/// restart.
final class TestBroker {
    let port: UInt16
    let directory: String
    private var process: Process?

    static let executable = "/usr/sbin/mosquitto"

    /// A broker on `port` (a free one when nil); `listenerOptions` are mosquitto.conf lines for its
    /// listener (TLS files, password file).
    init(port: UInt16? = nil, listenerOptions: [String] = ["allow_anonymous true"]) throws {
        self.port = port ?? freeLoopbackPort()
        directory = temporaryPath("broker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Run as root, mosquitto would switch to the `mosquitto` user, who cannot write here.
        let user = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
        let config = (["user \(user)", "listener \(self.port) 127.0.0.1"] + listenerOptions + [
            "persistence true",
            // QoS 0 messages wait for a persistent subscriber that is not connected yet, like the others.
            "queue_qos0_messages true",
            "persistence_location \(directory)/",
            "log_dest file \(directory)/broker.log",
        ]).joined(separator: "\n") + "\n"
        try config.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The broker's log so far (for failure messages).
    var log: String { (try? String(contentsOfFile: directory + "/broker.log", encoding: .utf8)) ?? "" }

    /// Starts the broker and waits until it accepts connections.
    func start() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.executable)
        p.arguments = ["-c", directory + "/mosquitto.conf"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        process = p
        let port = self.port
        guard waitUntil(guardSeconds: 10, { Self.accepts(port) }) else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "mosquitto did not start on port \(port)"])
        }
    }

    /// Stops the broker as a service manager does (SIGTERM: it saves its state and closes).
    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Freezes the broker (SIGSTOP): connections stay open, nothing is read or answered.
    func pause() {
        if let process { kill(process.processIdentifier, SIGSTOP) }
    }

    /// Lets a paused broker go on (SIGCONT).
    func resume() {
        if let process { kill(process.processIdentifier, SIGCONT) }
    }

    private static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = port.bigEndian
        return withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// The retained message on `topic` (nil when there is none), read with `mosquitto_sub`.
    func retained(_ topic: String) -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        // -W: a retained message arrives at once; the wait only ends the read when there is none.
        p.arguments = ["-h", "127.0.0.1", "-p", String(port), "-t", topic, "-C", "1", "-W", "1", "-q", "1"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
        return text.isEmpty ? nil : text
    }
}

/// `mosquitto_sub` with a persistent session (QoS `qos`, clean session off, fixed client id), writing
/// `topic payload` lines to a file. The session is made before the subscriber runs (`-E`), so
/// messages published from then on reach it even if it connects later or the broker restarts.
final class TestSubscriber {
    let output: String
    private let process = Process()

    init(broker: TestBroker, topics: [String], qos: Int = 1, host: String = "127.0.0.1", options: [String] = [],
         clientID: String = "test-sub-\(UUID().uuidString.prefix(8))") throws {
        output = temporaryPath("sub-\(clientID).txt")
        let common = ["-h", host, "-p", String(broker.port), "-q", String(qos), "-c", "-i", clientID]
            + options + topics.flatMap { ["-t", $0] }
        let session = Process()
        session.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        session.arguments = common + ["-E"]
        try session.run()
        session.waitUntilExit()
        XCTAssertEqual(session.terminationStatus, 0, "mosquitto_sub -E")
        guard FileManager.default.createFile(atPath: output, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        process.arguments = common + ["-v"]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: output)
    }

    /// The messages received so far on `topic`, in order.
    func messages(_ topic: String) -> [String] {
        var text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        // A line still being written is not a message yet.
        if let end = text.lastIndex(of: "\n") { text = String(text[...end]) } else { text = "" }
        let prefix = topic + " "
        return text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }
}

/// Runs `executable` with `arguments` and fails the test unless it exits with 0.
func runTool(_ executable: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    XCTAssertEqual(p.terminationStatus, 0, "\(executable) \(arguments.joined(separator: " "))", file: file, line: line)
}

/// A certificate authority and a server certificate for `localhost` it signed (PEM files in a
/// temporary folder, made with openssl), and a mosquitto password file with one user.
struct TestCredentials {
    let directory = temporaryPath("tls-\(UUID().uuidString)")
    var ca: String { directory + "/ca.pem" }
    var listenerOptions: [String] {
        ["cafile \(ca)", "certfile \(directory)/server.pem", "keyfile \(directory)/server.key",
         "password_file \(directory)/passwords", "allow_anonymous false"]
    }

    init(user: String, password: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let d = directory, openssl = "/usr/bin/openssl"
        try runTool(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(d)/ca.key", "-out", "\(d)/ca.pem",
                              "-days", "2", "-subj", "/CN=arbarcode test CA"])
        try runTool(openssl, ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(d)/server.key", "-out", "\(d)/server.csr",
                              "-subj", "/CN=localhost"])
        try "subjectAltName=DNS:localhost\n".write(toFile: "\(d)/san.ext", atomically: true, encoding: .utf8)
        try runTool(openssl, ["x509", "-req", "-in", "\(d)/server.csr", "-CA", "\(d)/ca.pem", "-CAkey", "\(d)/ca.key",
                              "-CAcreateserial", "-out", "\(d)/server.pem", "-days", "2", "-extfile", "\(d)/san.ext"])
        try runTool("/usr/bin/mosquitto_passwd", ["-c", "-b", "\(d)/passwords", user, password])
    }
}
