import ARCore

/// What to draw for one code: its outline and a text label centred above it.
public struct OverlayItem: Hashable, Sendable {
    /// The code's corners in frame pixels.
    public var quad: Quad
    /// Label text; empty for no label.
    public var label: String
    public var outlineColor: Color
    /// Outline width, pixels.
    public var outlineWidth: Double
    public var textColor: Color
    public var backgroundColor: Color
    /// Opacity multiplier for the whole item, 0…1 (for fades).
    public var opacity: Double

    public init(quad: Quad, label: String, outlineColor: Color = Color(red: 0, green: 1, blue: 0),
                outlineWidth: Double = 3, textColor: Color = Color(red: 1, green: 1, blue: 1),
                backgroundColor: Color = Color(red: 0, green: 0, blue: 0, alpha: 0.7), opacity: Double = 1) {
        self.quad = quad
        self.label = label
        self.outlineColor = outlineColor
        self.outlineWidth = outlineWidth
        self.textColor = textColor
        self.backgroundColor = backgroundColor
        self.opacity = opacity
    }
}

/// A rectangle of overlay pixels to draw, in whole frame pixels.
public struct OverlayTile: Hashable, Sendable {
    /// Left edge in the frame, pixels (may be negative: the tile is clipped later).
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
}
