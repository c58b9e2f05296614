import ARCore
import ARGst
import CGStreamer
import CGstCheck
import Foundation
import XCTest

/// A loopback socket of `type` bound to a free port, with a receive buffer of `receiveBuffer`
/// bytes when given (set before `listen`, so an accepted connection has it too).
func loopbackSocket(_ type: Int32, receiveBuffer: Int32? = nil) -> (fd: Int32, port: UInt16) {
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

/// A TCP consumer reading `chunk` bytes per call, once `start` is signalled, until the connection closes.
private final class SlowReader: @unchecked Sendable {  // `received` is written by the thread before `finished` is signalled, read after.
    let start = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private var received: [UInt8] = []

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

    func wait() -> [UInt8] {
        finished.wait()
        return received
    }
}

/// arexport to consumers that cannot keep up: lines arrive whole or not at all, and every line
/// not delivered is counted in warnings and in the `arexport-stats` message.
final class ExportSlowConsumerTests: XCTestCase {
    private let quad = Quad(Rect(x: 10, y: 10, width: 40, height: 40))

    /// The last `arexport-stats` message's counts: lines, written, dropped, queued; nil without one.
    private func lastStats(_ bus: BusLog) -> [UInt64]? {
        guard let s = bus.elementMessages("arexport-stats").last else { return nil }
        return ["lines", "lines-written", "lines-dropped", "lines-queued"].map { StructureView(s.borrowed).uint64($0) ?? .max }
    }

    func testASlowTCPConsumerGetsOnlyWholeLinesAndTheMissingOnesAreCounted() throws {
        let (fd, port) = loopbackSocket(Int32(SOCK_STREAM.rawValue), receiveBuffer: 4096)
        defer { close(fd) }
        XCTAssertEqual(listen(fd, 1), 0)
        let reader = SlowReader(listening: fd, chunk: 7)
        var h: OverlayHarness? = OverlayHarness("arexport location=tcp://127.0.0.1:\(port) max-queued-lines=4")
        let bus = BusLog(h!.element("arexport"))
        // 64 KiB lines, more than the kernel holds for a consumer that reads nothing yet.
        let wmem = (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_wmem", encoding: .utf8))?
            .split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) } ?? 4 << 20
        let total = (wmem + (1 << 20)) / (64 << 10) + 8
        func payload(_ i: Int) -> String { "\(i):" + String(repeating: "p", count: 64 << 10) }
        for i in 0..<total {
            XCTAssertNotNil(h!.push(h!.black, codes: [code(payload(i), quad: quad)], seconds: Double(i) * 0.04))
        }
        reader.start.signal()
        // EOS waits for the consumer to take what is queued.
        XCTAssertTrue(gst_harness_push_event(h!.h, gst_event_new_eos()) != 0)
        let stats = lastStats(bus)
        let warnings = bus.warnings
        h = nil  // stops the element: the connection closes
        let received = reader.wait()

        XCTAssertEqual(received.last, 0x0a, "the last line is whole")
        var frames: [UInt64] = []
        var broken = 0
        for line in received.split(separator: 0x0a) {
            guard let record = try? FrameRecord(jsonLine: String(decoding: line, as: UTF8.self)),
                  record.objects.first.map({ String(decoding: $0.payload, as: UTF8.self) }) == payload(Int(record.frame)) else {
                broken += 1
                continue
            }
            frames.append(record.frame)
        }
        XCTAssertEqual(broken, 0, "lines cut or glued to the next")
        XCTAssertGreaterThan(frames.count, 4)
        XCTAssertEqual(frames, frames.sorted())
        XCTAssertEqual(stats, [UInt64(total), UInt64(frames.count), UInt64(total - frames.count), 0], "lines, written, dropped, queued")
        XCTAssertTrue(warnings.contains { $0.contains("arexport dropped 1 line(s) so far") && $0.contains("not reading fast enough") },
                      "\(warnings)")
        XCTAssertTrue(warnings.contains { $0.contains("arexport dropped \(total - frames.count) of \(total) line(s)") }, "\(warnings)")
    }

    func testAUDPLineTooLongForADatagramIsCountedNeverCut() throws {
        let (fd, port) = loopbackSocket(Int32(SOCK_DGRAM.rawValue))
        defer { close(fd) }
        let h = OverlayHarness("arexport location=udp://127.0.0.1:\(port)")
        let bus = BusLog(h.element("arexport"))
        XCTAssertNotNil(h.push(h.black, codes: [code(String(repeating: "u", count: 70_000), quad: quad)], seconds: 0))
        XCTAssertNotNil(h.push(h.black, codes: [code("short", quad: quad)], seconds: 0.04))
        XCTAssertTrue(gst_harness_push_event(h.h, gst_event_new_eos()) != 0)
        var buffer = [UInt8](repeating: 0, count: 100_000)
        let n = recv(fd, &buffer, buffer.count, 0)
        let record = try FrameRecord(jsonLine: String(decoding: buffer[0..<max(0, n - 1)], as: UTF8.self))
        XCTAssertEqual(record.frame, 1, "the long line is not sent at all")
        XCTAssertEqual(lastStats(bus), [2, 1, 1, 0])
        XCTAssertTrue(bus.warnings.contains { $0.contains("is longer than the 65507 bytes a datagram") })
    }
}
