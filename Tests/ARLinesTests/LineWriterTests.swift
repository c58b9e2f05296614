import ARLines
import Foundation
import XCTest

/// A loopback socket of `type` bound to a free port, with a receive buffer of `receiveBuffer`
/// bytes when given (set before `listen`, so an accepted connection has it too).
func boundSocket(_ type: Int32, receiveBuffer: Int32? = nil) -> (fd: Int32, port: UInt16) {
    let fd = socket(AF_INET, type, 0)
    precondition(fd >= 0)
    if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &addr) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
    }
    precondition(ok)
    // Reads must not hang a failing test forever (a guard, not a timing assertion).
    var timeout = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return (fd, UInt16(bigEndian: addr.sin_port))
}

/// The most bytes the kernel may hold for one loopback TCP connection on its sending side
/// (`net.ipv4.tcp_wmem`'s maximum): a consumer that reads nothing holds up lines after that.
func kernelSendBufferMax() -> Int {
    let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_wmem", encoding: .utf8)) ?? ""
    return text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).last.flatMap { Int($0) } ?? 4 << 20
}

/// A TCP consumer that reads `chunk` bytes per call, once `start` is signalled, until the
/// connection closes.
final class SlowConsumer: @unchecked Sendable {  // `received` is written by the thread before `finished` is signalled, read after.
    let start = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private(set) var received: [UInt8] = []

    init(listening fd: Int32, chunk: Int) {
        Thread { [self] in
            let conn = accept(fd, nil, nil)
            start.wait()
            var buffer = [UInt8](repeating: 0, count: chunk)
            while conn >= 0 {
                let n = recv(conn, &buffer, chunk, 0)
                if n <= 0 { break }
                received += buffer[0..<n]
            }
            if conn >= 0 { close(conn) }
            finished.signal()
        }.start()
    }

    /// Waits for the connection to close; returns the bytes received.
    func wait() -> [UInt8] {
        finished.wait()
        return received
    }
}

final class LineWriterTests: XCTestCase {
    func testASlowTCPConsumerGetsOnlyWholeLinesAndEveryMissingLineIsCounted() throws {
        let (fd, port) = boundSocket(Int32(SOCK_STREAM.rawValue), receiveBuffer: 4096)
        defer { close(fd) }
        XCTAssertEqual(listen(fd, 1), 0)
        let consumer = SlowConsumer(listening: fd, chunk: 7)
        let writer = try LineWriter(.tcp(host: "127.0.0.1", port: port), maxQueuedLines: 4)
        // More than the kernel can hold while the consumer reads nothing: lines must be dropped.
        let lineBytes = 64 << 10
        let total = (kernelSendBufferMax() + (1 << 20)) / lineBytes + 8
        var dropped = 0
        for i in 0..<total {
            let line = "{\"frame\":\(i),\"pad\":\"" + String(repeating: "x", count: lineBytes) + "\"}"
            if case .dropped(let n, let why) = try writer.write(line) {
                dropped += n
                XCTAssertTrue(why.contains("not reading fast enough"), why)
            }
        }
        XCTAssertGreaterThan(dropped, 0)
        consumer.start.signal()
        dropped += try writer.drain(timeoutSeconds: 120)
        XCTAssertEqual(writer.stats.unsent, 0)
        dropped += writer.close(timeoutSeconds: 5)
        let received = consumer.wait()

        XCTAssertEqual(received.last, 0x0a, "the last line is whole")
        var frames: [Int] = []
        for line in received.split(separator: 0x0a, omittingEmptySubsequences: false).dropLast() {
            let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            let frame = try XCTUnwrap(object?["frame"] as? Int, "not a whole line: \(line.prefix(40))…")
            XCTAssertEqual((object?["pad"] as? String)?.count, lineBytes)
            frames.append(frame)
        }
        XCTAssertGreaterThan(frames.count, 4, "the queued lines at least")
        XCTAssertEqual(frames, frames.sorted())
        XCTAssertEqual(Set(frames).count, frames.count)
        XCTAssertEqual(frames.count + dropped, total, "every line is received or counted as dropped")
        XCTAssertEqual(writer.stats.written, UInt64(frames.count))
        XCTAssertEqual(writer.stats.dropped, UInt64(dropped))
    }

    func testAUDPLineLongerThanADatagramIsDroppedWholeAndCounted() throws {
        let (fd, port) = boundSocket(Int32(SOCK_DGRAM.rawValue))
        defer { close(fd) }
        let writer = try LineWriter(.udp(host: "127.0.0.1", port: port))
        let long = String(repeating: "y", count: LineWriter.maxDatagramBytes)  // one byte too many with its newline
        guard case .dropped(1, let why) = try writer.write(long) else { return XCTFail("sent") }
        XCTAssertTrue(why.contains("a 65508-byte line is longer than the 65507 bytes a datagram"), why)
        XCTAssertEqual(try writer.write(String(long.dropFirst())), .written)
        XCTAssertEqual(try writer.write("short"), .written)
        var buffer = [UInt8](repeating: 0, count: 70000)
        XCTAssertEqual(recv(fd, &buffer, buffer.count, 0), LineWriter.maxDatagramBytes)
        XCTAssertEqual(recv(fd, &buffer, buffer.count, 0), 6)
        XCTAssertEqual(writer.stats, LineWriter.Stats(written: 2, dropped: 1, unsent: 0))
    }

    func testAConsumerThatGoesAwayFailsTheNextWrite() throws {
        let (fd, port) = boundSocket(Int32(SOCK_STREAM.rawValue))
        XCTAssertEqual(listen(fd, 1), 0)
        let writer = try LineWriter(.tcp(host: "127.0.0.1", port: port))
        let conn = accept(fd, nil, nil)
        close(conn)
        close(fd)
        // The sender notices when a send fails; the write after that reports it.
        var failure: Error?
        for i in 0..<10_000 where failure == nil {
            do {
                _ = try writer.write("{\"frame\":\(i)}")
                _ = try writer.drain(timeoutSeconds: 10)
            } catch {
                failure = error
            }
        }
        XCTAssertTrue("\(failure.map { "\($0)" } ?? "no error")".contains("Could not send to tcp://127.0.0.1:\(port)"))
    }

    func testDestinationsParseFromTheLocation() throws {
        XCTAssertEqual(try ExportDestination.parse("-"), .standardOutput)
        XCTAssertEqual(try ExportDestination.parse("tcp://[::1]:5000"), .tcp(host: "::1", port: 5000))
        XCTAssertEqual(try ExportDestination.parse("out.jsonl"), .file("out.jsonl"))
        XCTAssertThrowsError(try ExportDestination.parse("udp://host"))
    }

    func testMQTTDestinationsParseWithTopicAndDefaultPort() throws {
        XCTAssertEqual(try ExportDestination.parse("mqtt://broker:1884/site/cam1"), .mqtt(host: "broker", port: 1884, topic: "site/cam1"))
        XCTAssertEqual(try ExportDestination.parse("mqtt://broker/codes"), .mqtt(host: "broker", port: 1883, topic: "codes"))
        XCTAssertEqual(try ExportDestination.parse("mqtt://[::1]:2000/t"), .mqtt(host: "::1", port: 2000, topic: "t"))
        XCTAssertEqual(try ExportDestination.parse("mqtt://[::1]/t"), .mqtt(host: "::1", port: 1883, topic: "t"))
    }

    func testMalformedMQTTLocationsNameWhatIsWrong() {
        for (location, expected) in [("mqtt://broker:1883", "needs a topic"), ("mqtt://broker:1883/", "needs a topic"),
                                     ("mqtt://broker:x/t", "bad port 'x'"), ("mqtt://broker:0/t", "bad port '0'"),
                                     ("mqtt://broker:70000/t", "bad port '70000'"), ("mqtt://:1883/t", "needs a host"),
                                     ("mqtt://broker/a/#", "cannot hold '#'"), ("mqtt://broker/a/+/b", "cannot hold '+'")] {
            XCTAssertThrowsError(try ExportDestination.parse(location), location) {
                XCTAssertTrue("\($0)".contains(expected), "\(location): \($0)")
            }
        }
    }
}
