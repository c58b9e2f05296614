import ARServe
import ARWeb
import FlyingFox
import Foundation

/// One browser watching a camera over its WebSocket: the camera's frames out, newest first (a
/// browser that falls behind skips frames, it never makes them pile up), and its clicks in.
struct BrowserViewer: WSHandler {
    let camera: Camera

    func makeFrames(for client: AsyncThrowingStream<WSFrame, any Error>) async throws -> AsyncStream<WSFrame> {
        guard let feed = camera.browser else { return AsyncStream { $0.finish() } }
        // Two: the frame being written keeps one more in line; anything older is dropped.
        let (frames, out) = AsyncStream<WSFrame>.makeStream(bufferingPolicy: .bufferingNewest(2))
        let viewer = feed.subscribe { frame in
            out.yield(WSFrame(fin: true, opcode: .binary, mask: nil, payload: Data(frame.encoded())))
        }
        let camera = self.camera
        let reader = Task {
            do {
                for try await frame in client {
                    switch frame.opcode {
                    case .text:
                        Self.click(String(decoding: frame.payload, as: UTF8.self), on: camera)
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
