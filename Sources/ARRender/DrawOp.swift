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
    /// The quad filled.
    case fill(quad: Quad, color: Color)
    /// An ellipse filling `rect`.
    case dot(rect: PlacedRect, color: Color)
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
    /// Where the tile has ink, in frame pixels: disjoint rectangles inside the tile, the only parts
    /// a compositor may read and blend (e.g. an outline's four edges out of the box around it).
    /// Nil: the whole tile.
    public var parts: [TileRegion]?
    /// Draws the tile into `pixels` (`width` × `height`, `stride` bytes per row), which it clears
    /// first: the whole tile, or only its `parts` when it has some (pixels outside them are undefined).
    public var draw: (_ pixels: UnsafeMutableRawPointer, _ stride: Int) -> Void
    /// Set when the tile is one colour (an outline): its ink as that colour and an alpha mask, an
    /// alternative to `draw` for compositors that colour the pixels themselves.
    public var solid: SolidInk?

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

    /// The whole tile, in frame pixels.
    public var bounds: TileRegion { TileRegion(x: x, y: y, width: width, height: height) }

    /// What to blend: `parts`, or the whole tile.
    public var regions: [TileRegion] { parts ?? [bounds] }
}

/// A tile's ink as one colour (straight alpha) and where it lies: `drawAlpha` draws each pixel's
/// alpha (the colour's alpha times the pixel's coverage, 0…255) into `alpha`, one byte per pixel
/// (`width` × `height`, `stride` bytes per row, a multiple of 4), clearing first like `draw` (only
/// the tile's parts when it has some). The same pixels as `draw`, unpremultiplied.
public struct SolidInk {
    public var color: Color
    public var drawAlpha: (_ alpha: UnsafeMutableRawPointer, _ stride: Int) -> Void

    public init(color: Color, drawAlpha: @escaping (UnsafeMutableRawPointer, Int) -> Void) {
        self.color = color
        self.drawAlpha = drawAlpha
    }
}

/// A rectangle of whole pixels.
public struct TileRegion: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var area: Int { width * height }

    /// The overlap, or nil when there is none.
    public func intersection(_ other: TileRegion) -> TileRegion? {
        let x0 = max(x, other.x), y0 = max(y, other.y), x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        return x1 > x0 && y1 > y0 ? TileRegion(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }

    /// Disjoint rectangles covering exactly the union of `regions` (each pixel once), in rows
    /// from top to bottom: horizontal bands between the regions' top and bottom edges, each split
    /// into its covered runs, and equal runs of neighbouring bands merged.
    public static func disjointCover(_ regions: [TileRegion]) -> [TileRegion] {
        let rs = regions.filter { $0.width > 0 && $0.height > 0 }
        let ys = Set(rs.flatMap { [$0.y, $0.maxY] }).sorted()
        var result: [TileRegion] = []
        var previous: [Int] = []  // indices in `result` of the runs of the band above
        for (y0, y1) in zip(ys, ys.dropFirst()) {
            let spans = rs.filter { $0.y <= y0 && $0.maxY >= y1 }.map { ($0.x, $0.maxX) }.sorted { $0.0 < $1.0 }
            var runs: [(x0: Int, x1: Int)] = []
            for s in spans {
                if let last = runs.last, s.0 <= last.x1 { runs[runs.count - 1].x1 = max(last.x1, s.1) } else { runs.append(s) }
            }
            var current: [Int] = []
            for run in runs {
                if let i = previous.first(where: { result[$0].x == run.x0 && result[$0].maxX == run.x1 && result[$0].maxY == y0 }) {
                    result[i].height += y1 - y0
                    current.append(i)
                } else {
                    result.append(TileRegion(x: run.x0, y: y0, width: run.x1 - run.x0, height: y1 - y0))
                    current.append(result.count - 1)
                }
            }
            previous = current
        }
        return result
    }
}
