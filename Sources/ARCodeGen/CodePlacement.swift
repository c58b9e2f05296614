import ARCore

/// Where and how a code is drawn in a frame.
///
/// The symbol (dark-module area, quiet zone excluded) is centred on `center`, scaled to
/// `moduleSize` pixels per module, rotated by `rotationDegrees` clockwise on screen about its
/// centre, and optionally keystoned by `perspective`.
public struct CodePlacement: Hashable, Sendable {
    /// Where the centre of the symbol (module-space centre) lands, frame pixels.
    public var center: Point
    /// Size of one module (narrowest bar for 1D codes), pixels; > 0.
    public var moduleSize: Double
    /// Rotation clockwise on screen (y down), degrees. At 90° the code's own top-left corner is at
    /// the screen's top-right.
    public var rotationDegrees: Double
    /// Height of the bars of a 1D code, pixels; > 0. Ignored for 2D codes.
    public var barHeight: Double
    /// Mild keystone (a projective tilt about the code's horizontal axis), unitless: the code's top
    /// edge is `(1 + p) / (1 - p)` times as long as its bottom edge; 0 = none, negative = bottom
    /// wider. The quiet zone must stay well in front of the vanishing line: |p| × (half symbol
    /// height + quiet zone) / half symbol height ≤ 0.9, else the renderer throws
    /// `.perspectiveTooStrong` (for QR that is |p| ≤ about 0.65). zbar reliably decodes QR codes
    /// up to about |p| = 0.15 (checked with zbarimg: 0.15 decodes, 0.25 does not).
    public var perspective: Double

    /// A placement; see the properties for units. `barHeight` defaults to 60 px.
    public init(center: Point, moduleSize: Double, rotationDegrees: Double = 0, barHeight: Double = 60,
                perspective: Double = 0) {
        self.center = center
        self.moduleSize = moduleSize
        self.rotationDegrees = rotationDegrees
        self.barHeight = barHeight
        self.perspective = perspective
    }
}
