import ARCore
import Foundation
import XCTest

/// arexport's socket destinations, with a consumer in this process on loopback.
final class ExportSocketTests: XCTestCase {
    /// A loopback socket of `type` bound to a free port; returns the descriptor and the port.
    private func boundSocket(_ type: Int32) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, type, 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        XCTAssertTrue(ok)
        // Reads must not hang a failing test forever.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return (fd, UInt16(bigEndian: addr.sin_port))
    }

    private let source = "videotestsrc num-buffers=3 ! video/x-raw,format=I420,width=64,height=48,framerate=30/1"

    func testUDPSendsOneDatagramPerFrame() throws {
        let (fd, port) = try boundSocket(Int32(SOCK_DGRAM.rawValue))
        defer { close(fd) }
        XCTAssertNil(runPipeline("\(source) ! arexport location=udp://127.0.0.1:\(port) ! fakesink"))
        var buffer = [UInt8](repeating: 0, count: 65536)
        for i in 0..<3 {
            let n = recv(fd, &buffer, buffer.count, 0)
            XCTAssertGreaterThan(n, 0)
            let line = String(decoding: buffer[0..<max(0, n)], as: UTF8.self)
            XCTAssertTrue(line.hasSuffix("\n"))
            let record = try FrameRecord(jsonLine: String(line.dropLast()))
            XCTAssertEqual(record.frame, UInt64(i))
            XCTAssertEqual(record.width, 64)
        }
    }

    func testTCPStreamsLinesToAListeningConsumer() throws {
        let (fd, port) = try boundSocket(Int32(SOCK_STREAM.rawValue))
        defer { close(fd) }
        XCTAssertEqual(listen(fd, 1), 0)
        XCTAssertNil(runPipeline("\(source) ! arexport location=tcp://127.0.0.1:\(port) ! fakesink"))
        let conn = accept(fd, nil, nil)
        XCTAssertGreaterThanOrEqual(conn, 0)
        defer { close(conn) }
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(conn, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data += buffer[0..<n]
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(try lines.map { try FrameRecord(jsonLine: String($0)).frame }, [0, 1, 2])
    }

    func testRefusedTCPConnectionFailsAtStartNamingTheDestination() {
        let error = runPipeline("\(source) ! arexport location=tcp://127.0.0.1:9 ! fakesink")
        XCTAssertTrue(error?.message.contains("Could not connect to tcp://127.0.0.1:9") ?? false, "\(String(describing: error))")
    }

    func testMalformedDestinationsAreRejected() {
        for (location, expected) in [("udp://127.0.0.1", "needs a port"), ("tcp://:5000", "needs a host"),
                                     ("http://x:1", "unknown scheme")] {
            let error = runPipeline("\(source) ! arexport location=\(location) ! fakesink")
            XCTAssertTrue(error?.message.contains(expected) ?? false, "\(location): \(String(describing: error))")
        }
    }
}
