import ARServe
import ARWeb
import FlyingFox
import Foundation

/// One browser watching a camera over its WebSocket, the video either way (`BrowserVideo`):
///
/// - JPEG: the camera's frames out, newest first (a browser that falls behind skips frames, it
///   never makes them pile up);
/// - WebRTC: the offer and ICE candidates out and the page's answer and candidates in
///   (`SignalMessage`), then each frame's codes out (`VideoRecord`) as it leaves for the browser.
///
/// Its clicks come in either way.
struct BrowserViewer: WSHandler {
    let camera: Camera
    let video: BrowserVideo
    /// The codecs the page says its browser decodes (nil: it does not say).
    let codecs: [WebRTCCodec]?

    func makeFrames(for client: AsyncThrowingStream<WSFrame, any Error>) async throws -> AsyncStream<WSFrame> {
        guard let feed = camera.browser else { return AsyncStream { $0.finish() } }
        let (frames, out): (AsyncStream<WSFrame>, AsyncStream<WSFrame>.Continuation)
        let viewer: Int
        switch video {
        case .jpeg:
            // Two: the frame being written keeps one more in line; anything older is dropped.
            (frames, out) = AsyncStream<WSFrame>.makeStream(bufferingPolicy: .bufferingNewest(2))
            viewer = feed.subscribe { frame in
                out.yield(WSFrame(fin: true, opcode: .binary, mask: nil, payload: Data(frame.encoded())))
            }
        case .webrtc:
            // Signalling must not be dropped; a second of records at most waits behind it.
            (frames, out) = AsyncStream<WSFrame>.makeStream(bufferingPolicy: .bufferingNewest(64))
            guard let id = feed.subscribeWebRTC(codecs: codecs, { text in
                out.yield(WSFrame(fin: true, opcode: .text, mask: nil, payload: Data(text.utf8)))
            }) else {
                out.yield(WSFrame(fin: true, opcode: .close, mask: nil, payload: Data([0x03, 0xF3])))  // 1011: cannot serve
                out.finish()
                return frames
            }
            viewer = id
        }
        let camera = self.camera
        let reader = Task {
            do {
                for try await frame in client {
                    switch frame.opcode {
                    case .text:
                        let text = String(decoding: frame.payload, as: UTF8.self)
                        if let signal = SignalMessage(json: text) {
                            feed.signal(viewer, signal)
                        } else {
                            Self.click(text, on: camera)
                        }
                    case .ping:
                        out.yield(WSFrame(fin: true, opcode: .pong, mask: nil, payload: frame.payload))
                    case .close:
                        out.yield(WSFrame(fin: true, opcode: .close, mask: nil, payload: frame.payload.prefix(2)))
                        out.finish()
                        return
                    default:
                        break
                    }
                }
            } catch {}
            out.finish()
        }
        out.onTermination = { _ in
            feed.unsubscribe(viewer)
            reader.cancel()
        }
        return frames
    }

    /// A click message from the page, mapped to the camera's frame pixels and sent into its pipeline.
    static func click(_ message: String, on camera: Camera) {
        guard let click = DisplayedClick(json: message), let size = camera.browser?.frameSize,
              let point = click.framePoint(frameWidth: size.width, frameHeight: size.height) else { return }
        camera.click(x: point.x, y: point.y)
    }
}
