import Foundation
import XCTest

/// A WebSocket client for tests, on a blocking socket: enough to be a browser viewer of a
/// camera and to drive Chromium over the DevTools protocol.
final class TestWebSocket {
    private let fd: Int32
    private var pending: [UInt8] = []

    /// Connects to `ws://127.0.0.1:port/path`; throws `refused` with the status line when the
    /// handshake is refused. Every read waits at most `timeoutSeconds`.
    init(port: Int, path: String, headers: [String: String] = [:], timeoutSeconds: Int = 60) throws {
        guard let fd = connectLoopback(port: port, timeoutSeconds: timeoutSeconds) else { throw TestWebSocketError.connect }
        self.fd = fd
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        try write(Array((request + "\r\n").utf8))
        var head: [UInt8] = []
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard let byte = try read(1).first else { throw TestWebSocketError.closed }
            head.append(byte)
        }
        let status = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
        guard status.contains(" 101 ") else { close(fd); throw TestWebSocketError.refused(status) }
    }

    deinit { close(fd) }

    private func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw TestWebSocketError.closed }
            sent += n
        }
    }

    private func read(_ count: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while out.count < count {
            let n = recv(fd, &buffer, min(buffer.count, count - out.count), 0)
            guard n > 0 else { throw n == 0 ? TestWebSocketError.closed : TestWebSocketError.timeout }
            out += buffer[..<n]
        }
        return out
    }

    /// Sends a text message (masked, as a client must).
    func send(text: String) throws {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65536 {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try write(frame)
    }

    /// The next data message (text or binary), continuation frames joined; control frames skipped.
    func receive() throws -> (text: Bool, bytes: [UInt8]) {
        var message: [UInt8] = []
        var text = false
        while true {
            let head = try read(2)
            var length = Int(head[1] & 0x7f)
            if length == 126 {
                let b = try read(2)
                length = Int(b[0]) << 8 | Int(b[1])
            } else if length == 127 {
                length = try read(8).reduce(0) { $0 << 8 | Int($1) }
            }
            let payload = try read(length)
            let opcode = head[0] & 0x0f
            if opcode == 8 { throw TestWebSocketError.closed }
            if opcode >= 8 { continue }
            if opcode != 0 { text = opcode == 1 }
            message += payload
            if head[0] & 0x80 != 0 { return (text, message) }
        }
    }
}

enum TestWebSocketError: Error {
    case connect, closed, timeout
    case refused(String)
}

/// An HTTP/1.1 GET on loopback over a plain socket (`Connection: close`, read to the end):
/// status code, headers (lowercased names) and body; nil when nothing answered.
func httpGet(port: Int, path: String, headers: [String: String] = [:]) -> (status: Int, headers: [String: String], body: Data)? {
    guard let fd = connectLoopback(port: port, timeoutSeconds: 30) else { return nil }
    defer { close(fd) }
    var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for (name, value) in headers { request += "\(name): \(value)\r\n" }
    let bytes = Array((request + "\r\n").utf8)
    guard bytes.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else { return nil }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    // Until the server closes, or the body its Content-Length announces is in (Chromium's
    // DevTools server keeps the connection open despite `Connection: close`).
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { break }
        answer += buffer[..<n]
        if let split = answer.indices.first(where: { answer[$0...].starts(with: [13, 10, 13, 10]) }),
           let range = String(decoding: answer[..<split], as: UTF8.self).range(of: #"(?i)content-length: *\d+"#, options: .regularExpression),
           let length = Int(String(decoding: answer[..<split], as: UTF8.self)[range].split(separator: ":")[1].trimmingCharacters(in: .whitespaces)),
           answer.count - split - 4 >= length {
            break
        }
    }
    guard let split = answer.indices.first(where: { answer[$0...].starts(with: [13, 10, 13, 10]) }) else { return nil }
    let lines = String(decoding: answer[..<split], as: UTF8.self).components(separatedBy: "\r\n")
    guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
    var fields: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    var body = Data(answer[(split + 4)...])
    if let length = fields["content-length"].flatMap(Int.init), body.count > length { body = body.prefix(length) }
    return (status, fields, body)
}

/// A TCP connection to 127.0.0.1:`port` whose reads wait at most `timeoutSeconds`; nil if refused.
func connectLoopback(port: Int, timeoutSeconds: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    guard connected == 0 else { close(fd); return nil }
    return fd
}

/// A browser without a screen, driven by a test: one page.
protocol TestBrowser: AnyObject {
    /// Loads `url` in the page.
    func navigate(_ url: String) throws
    /// Loads the page again.
    func reload() throws
    /// Evaluates `expression` in the page (a promise is awaited) and returns its value as JSON does.
    func evaluate(_ expression: String) throws -> Any?
    /// A left click at (`x`, `y`), CSS pixels of the viewport, as a mouse would make it.
    func click(x: Double, y: Double) throws
}

extension TestBrowser {
    /// Waits until `expression` is true in the page, evaluating it every 100 ms for up to `seconds`.
    func waitUntil(seconds: Double = 60, _ expression: String) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try evaluate(expression) as? Bool == true { return true }
            usleep(100_000)
        }
        return false
    }
}

/// Chromium without a screen (Debian's `chromium`), driven over the DevTools protocol: one tab.
final class HeadlessChromium: TestBrowser {
    private let process = Process()
    private let profile: URL
    private let socket: TestWebSocket
    private var nextID = 0

    /// Path of Debian's browser, nil when it is not installed.
    static let executable = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Starts it with a `width` × `height` window and attaches to its tab.
    init(width: Int = 1100, height: Int = 500) throws {
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("arserve-chromium-\(UUID().uuidString)")
        process.executableURL = URL(fileURLWithPath: try XCTUnwrap(Self.executable, "chromium is installed (scripts/deps.sh build)"))
        process.arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                             "--remote-debugging-port=0", "--user-data-dir=\(profile.path)", "--window-size=\(width),\(height)",
                             "about:blank"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/…"
        var text = ""
        var port: Int?
        while port == nil {
            let data = errors.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"ws://127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                port = Int(text[range].dropFirst("ws://127.0.0.1:".count).dropLast())
            }
        }
        let devtools = try XCTUnwrap(port, "chromium printed its DevTools address: \(text)")
        // Keep reading its standard error so it never blocks on a full pipe.
        errors.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
        let list = try XCTUnwrap(httpGet(port: devtools, path: "/json/list"))
        let targets = try XCTUnwrap(JSONSerialization.jsonObject(with: list.body) as? [[String: Any]])
        let page = try XCTUnwrap(targets.first { $0["type"] as? String == "page" }?["webSocketDebuggerUrl"] as? String)
        let path = String(page.drop(while: { $0 != "/" }).dropFirst(2).drop(while: { $0 != "/" }))
        socket = try TestWebSocket(port: devtools, path: path)
        // The viewport itself `width` × `height` (the window's frame takes some of the window).
        try call("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: profile)
    }

    /// Calls DevTools `method` and returns its result.
    @discardableResult
    func call(_ method: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
        nextID += 1
        let id = nextID
        let request = try JSONSerialization.data(withJSONObject: ["id": id, "method": method, "params": params])
        try socket.send(text: String(decoding: request, as: UTF8.self))
        while true {
            let message = try socket.receive()
            guard let object = try JSONSerialization.jsonObject(with: Data(message.bytes)) as? [String: Any],
                  object["id"] as? Int == id else { continue }  // events
            if let error = object["error"] { throw TestWebSocketError.refused("\(method): \(error)") }
            return object["result"] as? [String: Any] ?? [:]
        }
    }

    func navigate(_ url: String) throws {
        try call("Page.navigate", ["url": url])
    }

    func reload() throws {
        try call("Page.reload")
    }

    func evaluate(_ expression: String) throws -> Any? {
        let result = try call("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] { throw TestWebSocketError.refused("\(expression): \(exception)") }
        return (result["result"] as? [String: Any])?["value"]
    }

    func click(x: Double, y: Double) throws {
        for type in ["mousePressed", "mouseReleased"] {
            try call("Input.dispatchMouseEvent", ["type": type, "x": x, "y": y, "button": "left", "clickCount": 1])
        }
    }

    /// The viewport as PNG.
    func screenshot() throws -> Data {
        let result = try call("Page.captureScreenshot", ["format": "png"])
        return try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(result["data"] as? String)))
    }
}

/// Firefox without a screen (Debian's `firefox-esr`), driven over WebDriver BiDi (its built-in
/// remote agent): one tab.
final class HeadlessFirefox: TestBrowser {
    private let process = Process()
    private let profile: URL
    private let socket: TestWebSocket
    private var nextID = 0
    /// The tab's browsing context.
    private var context = ""

    /// Path of Debian's browser, nil when it is not installed.
    static let executable = ["/usr/bin/firefox-esr", "/usr/bin/firefox"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Preferences of the test profile: WebRTC between processes on this machine (loopback
    /// candidates, real host addresses), no first-run pages or updates.
    static let preferences = [
        "media.peerconnection.ice.loopback": "true",
        "media.peerconnection.ice.obfuscate_host_addresses": "false",
        "browser.shell.checkDefaultBrowser": "false",
        "app.update.enabled": "false",
        "datareporting.policy.dataSubmissionEnabled": "false",
        "toolkit.telemetry.reportingpolicy.firstRun": "false",
    ]

    /// Starts it with a `width` × `height` viewport and attaches to its tab.
    init(width: Int = 1100, height: Int = 500) throws {
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("arserve-firefox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let prefs = Self.preferences.sorted { $0.key < $1.key }.map { "user_pref(\"\($0.key)\", \($0.value));" }.joined(separator: "\n")
        try Data((prefs + "\n").utf8).write(to: profile.appendingPathComponent("user.js"))
        let port = try XCTUnwrap(freeLoopbackPort(), "a free port for Firefox's remote agent")
        process.executableURL = URL(fileURLWithPath: try XCTUnwrap(Self.executable, "firefox-esr is installed (scripts/deps.sh build)"))
        process.arguments = ["--headless", "--no-remote", "--profile", profile.path, "--remote-debugging-port", "\(port)", "about:blank"]
        var environment = ProcessInfo.processInfo.environment
        environment["MOZ_HEADLESS_WIDTH"] = "\(width)"
        environment["MOZ_HEADLESS_HEIGHT"] = "\(height)"
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // "WebDriver BiDi listening on ws://127.0.0.1:PORT"
        var text = ""
        while !text.contains("WebDriver BiDi listening") {
            let data = errors.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            text += String(decoding: data, as: UTF8.self)
        }
        XCTAssertTrue(text.contains("WebDriver BiDi listening"), "firefox started its remote agent: \(text)")
        errors.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
        socket = try TestWebSocket(port: port, path: "/session")
        try call("session.new", ["capabilities": [String: Any]()])
        let tree = try call("browsingContext.getTree", ["maxDepth": 0])
        context = try XCTUnwrap((tree["contexts"] as? [[String: Any]])?.first?["context"] as? String, "a tab: \(tree)")
        try call("browsingContext.setViewport", ["context": context, "viewport": ["width": width, "height": height]])
    }

    deinit {
        _ = try? call("session.end")
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: profile)
    }

    /// Sends BiDi command `method` and returns its result.
    @discardableResult
    func call(_ method: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
        nextID += 1
        let id = nextID
        let request = try JSONSerialization.data(withJSONObject: ["id": id, "method": method, "params": params])
        try socket.send(text: String(decoding: request, as: UTF8.self))
        while true {
            let message = try socket.receive()
            guard let object = try JSONSerialization.jsonObject(with: Data(message.bytes)) as? [String: Any],
                  object["id"] as? Int == id else { continue }  // events
            if object["type"] as? String == "error" {
                throw TestWebSocketError.refused("\(method): \(object["error"] ?? "") \(object["message"] ?? "")")
            }
            return object["result"] as? [String: Any] ?? [:]
        }
    }

    func navigate(_ url: String) throws {
        try call("browsingContext.navigate", ["context": context, "url": url, "wait": "complete"])
    }

    func reload() throws {
        try call("browsingContext.reload", ["context": context, "wait": "complete"])
    }

    func evaluate(_ expression: String) throws -> Any? {
        let result = try call("script.evaluate", ["expression": expression, "target": ["context": context], "awaitPromise": true,
                                                  "resultOwnership": "none"])
        guard result["type"] as? String == "success" else {
            throw TestWebSocketError.refused("\(expression): \(result["exceptionDetails"] ?? result)")
        }
        return Self.value(result["result"])
    }

    func click(x: Double, y: Double) throws {
        let pointer: [[String: Any]] = [["type": "pointerMove", "x": Int(x.rounded()), "y": Int(y.rounded())],
                                        ["type": "pointerDown", "button": 0], ["type": "pointerUp", "button": 0]]
        try call("input.performActions", ["context": context, "actions": [
            ["type": "pointer", "id": "mouse", "parameters": ["pointerType": "mouse"], "actions": pointer],
        ]])
    }

    /// A BiDi remote value (`{"type": …, "value": …}`) as JSON would give it.
    static func value(_ remote: Any?) -> Any? {
        guard let remote = remote as? [String: Any], let type = remote["type"] as? String else { return nil }
        switch type {
        case "string", "number", "boolean": return remote["value"]
        case "array": return (remote["value"] as? [Any] ?? []).map { value($0) ?? NSNull() }
        case "object":
            var out: [String: Any] = [:]
            for pair in remote["value"] as? [[Any]] ?? [] {
                if pair.count == 2, let key = pair[0] as? String { out[key] = value(pair[1]) ?? NSNull() }
            }
            return out
        default: return nil
        }
    }
}

/// A TCP port free on loopback now (bound, then released).
func freeLoopbackPort() -> Int? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
}
