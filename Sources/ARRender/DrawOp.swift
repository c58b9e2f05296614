import ARCore

/// The text of a label and how it looks.
public struct LabelContent: Hashable, Sendable {
    public var text: String
    /// Pango font description with a size, e.g. `Sans Bold 18` (points at 96 dpi) or `Sans 24px`.
    public var font: String
    public var color: Color
    /// Background; nil for none.
    public var background: Color?
    /// Padding around the text, pixels.
    public var padding: Double
    /// Background corner radius, pixels.
    public var radius: Double

    public init(text: String, font: String, color: Color, background: Color?, padding: Double, radius: Double) {
        self.text = text
        self.font = font
        self.color = color
        self.background = background
        self.padding = padding
        self.radius = radius
    }
}

/// One overlay with its geometry resolved on the current frame, ready to draw.
public enum DrawOp: Sendable {
    /// The quad stroked with `width` pixels.
    case outline(quad: Quad, color: Color, width: Double)
    /// A filled rectangle with rounded corners (`radius` pixels).
    case box(rect: PlacedRect, color: Color, radius: Double)
    /// A label filling `rect` (its size is the label's size).
    case label(LabelContent, rect: PlacedRect)
    /// An image scaled into `rect`.
    case image(OverlayImage, rect: PlacedRect)
    /// An image drawn in perspective onto `quad` (its corners onto the quad's corners).
    case warp(OverlayImage, quad: Quad)
}

/// A rectangle of overlay pixels: premultiplied ARGB32 in native byte order (BGRA in memory on
/// little-endian machines), placed in whole frame pixels.
public struct RenderTile {
    /// Left and top edges in the frame, pixels (may lie partly outside the frame).
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    /// Opacity to apply when compositing, 0…1 (the pixels are drawn fully opaque).
    public var opacity: Double
    /// Tiles with equal keys have equal pixels: a caller may keep the pixels and skip `draw`.
    public var cacheKey: AnyHashable?
    /// Draws the tile into `pixels` (`width` × `height`, `stride` bytes per row), which it clears first.
    public var draw: (_ pixels: UnsafeMutableRawPointer, _ stride: Int) -> Void

    public init(x: Int, y: Int, width: Int, height: Int, opacity: Double, cacheKey: AnyHashable? = nil,
                draw: @escaping (UnsafeMutableRawPointer, Int) -> Void) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.opacity = opacity
        self.cacheKey = cacheKey
        self.draw = draw
    }
}
