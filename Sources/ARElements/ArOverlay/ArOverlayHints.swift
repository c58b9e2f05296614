import ARBridge
import ARCore
import ARGst
import ARRender
import ARVision
import CCairoGObject
import CGStreamer
import Foundation

extension ArOverlay {
    func hintTiles(_ hint: String, s: Settings, state: State, frame: VideoFrame) -> [RenderTile] {
        let label = LabelContent(text: hint, font: state.renderer.sizedFont(s.font ?? "Sans Bold", frameHeight: frame.height),
                                 color: Color(red: 1, green: 1, blue: 1), background: Color(red: 0, green: 0, blue: 0, alpha: 0.6),
                                 padding: 8, radius: 8)
        let size = state.renderer.size(of: label)
        // Centred, a tenth of the frame above its bottom edge.
        let center = Point(x: Double(frame.width) / 2, y: Double(frame.height) * 0.9 - size.height / 2)
        return state.renderer.tiles(for: .label(label, rect: PlacedRect(center: center, width: size.width, height: size.height)),
                                    opacity: 1, frameWidth: frame.width, frameHeight: frame.height)
    }

    /// The `show-stats` panel: the last second's frame rate and time per frame, this frame's codes.
    func statsTiles(_ counts: [(String, Int)], s: Settings, state: State, frame: VideoFrame) -> [RenderTile] {
        let rate = state.panelReport.map { String(format: "%.1f fps, %.1f ms per frame (p95 %.1f)", $0.fps,
                                                  $0.processMedianMilliseconds, $0.processP95Milliseconds) } ?? "measuring..."
        let codes = counts.map { "\($0.1) \($0.0 == "codes" ? "tracked" : $0.0)" }.joined(separator: ", ")
        return cornerLabel(rate + "\n" + codes, corner: "top-left", s: s, state: state, frame: frame)
    }

    /// `text` in a small panel in `corner` (`top-left`, `top-right`, `bottom-left`, `bottom-right`), 8 px in.
    func cornerLabel(_ text: String, corner: String, s: Settings, state: State, frame: VideoFrame) -> [RenderTile] {
        let font = state.renderer.sizedFont(s.font ?? "Sans Bold", frameHeight: frame.height / 2)
        let label = LabelContent(text: text, font: font, color: Color(red: 1, green: 1, blue: 1),
                                 background: Color(red: 0, green: 0, blue: 0, alpha: 0.6), padding: 6, radius: 6)
        let size = state.renderer.size(of: label)
        let x = corner.hasSuffix("left") ? 8 + size.width / 2 : Double(frame.width) - 8 - size.width / 2
        let y = corner.hasPrefix("top") ? 8 + size.height / 2 : Double(frame.height) - 8 - size.height / 2
        return state.renderer.tiles(for: .label(label, rect: PlacedRect(center: Point(x: x, y: y), width: size.width, height: size.height)),
                                    opacity: 1, frameWidth: frame.width, frameHeight: frame.height)
    }
}
