import ARPipelines
import ARServe
import Foundation
import XCTest

/// ffmpeg as the RTSP viewer: ffplay, VLC and most players decode with libavcodec, which is
/// stricter than GStreamer's decoders about how an H.264 frame is cut into packets.
final class FFmpegClientTests: XCTestCase {
    private func demoServer(encoder: H264Encoder) throws -> PipelineServer {
        var options = ServeOptions()
        options.port = 0
        options.encoder = encoder
        let file = try PipelineFile(contentsOf: packageRoot.appendingPathComponent("pipelines/demo.pipeline").path)
        return try PipelineServer(file: file, options: options, environment: ["WIDTH": "640", "HEIGHT": "360", "CODES": "4"])
    }

    /// 30 frames from the first key frame on, every warning and error counted.
    private func assertFFmpegDecodesCleanly(encoder: H264Encoder, transport: String,
                                            file: StaticString = #filePath, line: UInt = #line) throws {
        let loop = MainLoopThread()
        defer { loop.stop() }
        let server = try demoServer(encoder: encoder)
        defer { server.stop() }
        let url = try server.start(context: loop.context)
        let result = try ffmpegDecode(url, transport: transport, frames: 30)
        XCTAssertEqual(result.status, 0, result.messages, file: file, line: line)
        XCTAssertEqual(result.messages, "", "ffmpeg warned while decoding \(encoder.rawValue) over \(transport)", file: file, line: line)
        XCTAssertEqual(result.framesDecoded, 30, file: file, line: line)
    }

    func testFFmpegDecodesTheX264StreamOverUDPWithoutAWarning() throws {
        try assertFFmpegDecodesCleanly(encoder: .x264, transport: "udp")
    }

    func testFFmpegDecodesTheX264StreamOverTCPWithoutAWarning() throws {
        try assertFFmpegDecodesCleanly(encoder: .x264, transport: "tcp")
    }

    func testFFmpegDecodesTheOpenH264StreamOverUDPWithoutAWarning() throws {
        try assertFFmpegDecodesCleanly(encoder: .openh264, transport: "udp")
    }
}
