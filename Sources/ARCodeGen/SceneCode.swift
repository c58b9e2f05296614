import ARCore

/// One code moving in a `SyntheticScene`: what it encodes and how it moves.
///
/// Motion is a closed-form function of time (no state), so any frame can be rendered on its own:
/// the centre moves at `velocity` and bounces off the edges of `bounds` (keeping the whole quiet
/// zone inside); the rotation grows at `angularVelocity`, bouncing inside `rotationRange` when one
/// is given; the scale (a factor on module size and bar height, 1 at time 0) changes at
/// `scaleRate` and bounces inside `scaleRange`.
public struct SceneCode: Hashable, Sendable {
    /// The bytes a decoder should report (for EAN-13 the 13 digits, check digit included).
    public var payload: [UInt8]
    /// The modules drawn.
    public var matrix: CodeMatrix
    /// Placement at time 0 (centre, module size px, rotation deg, bar height px, keystone).
    public var placement: CodePlacement
    /// Velocity of the centre, pixels per second (x right, y down).
    public var velocity: Point
    /// Rotation speed, degrees per second, clockwise on screen.
    public var angularVelocity: Double
    /// If set, the rotation (degrees) bounces inside this range instead of spinning freely.
    public var rotationRange: ClosedRange<Double>?
    /// Rate of change of the scale factor, per second (0.1 = grows by 10 % of the start size per
    /// second); 0 keeps the start size.
    public var scaleRate: Double
    /// Range of the scale factor (> 0), unitless; the factor starts at 1 (clamped into the range).
    public var scaleRange: ClosedRange<Double>
    /// Area the code's quiet zone must stay in, frame pixels; nil = the whole frame. Codes with
    /// overlapping bounds may occlude each other (later codes are drawn on top).
    public var bounds: Rect?

    /// zbar's symbology name, from the matrix ("QR-Code", "EAN-13", "CODE-128").
    public var symbology: String { matrix.symbology }

    /// A moving code; see the properties for units.
    public init(payload: [UInt8], matrix: CodeMatrix, placement: CodePlacement,
                velocity: Point = Point(x: 0, y: 0), angularVelocity: Double = 0,
                rotationRange: ClosedRange<Double>? = nil, scaleRate: Double = 0,
                scaleRange: ClosedRange<Double> = 0.8...1.25, bounds: Rect? = nil) {
        self.payload = payload
        self.matrix = matrix
        self.placement = placement
        self.velocity = velocity
        self.angularVelocity = angularVelocity
        self.rotationRange = rotationRange
        self.scaleRate = scaleRate
        self.scaleRange = scaleRange
        self.bounds = bounds
    }

    /// A moving QR code holding the UTF-8 bytes of `text`. Throws like `CodeMatrix.qr(text:)`.
    public static func qr(_ text: String, errorCorrection: QRErrorCorrection = .medium, placement: CodePlacement,
                          velocity: Point = Point(x: 0, y: 0), angularVelocity: Double = 0,
                          rotationRange: ClosedRange<Double>? = nil, scaleRate: Double = 0,
                          scaleRange: ClosedRange<Double> = 0.8...1.25, bounds: Rect? = nil) throws -> SceneCode {
        SceneCode(payload: Array(text.utf8), matrix: try .qr(text: text, errorCorrection: errorCorrection),
                  placement: placement, velocity: velocity, angularVelocity: angularVelocity,
                  rotationRange: rotationRange, scaleRate: scaleRate, scaleRange: scaleRange, bounds: bounds)
    }

    /// A moving EAN-13 (12 digits: check digit appended to the payload; 13: verified).
    /// Throws like `CodeMatrix.ean13(_:)`.
    public static func ean13(_ digits: String, placement: CodePlacement,
                             velocity: Point = Point(x: 0, y: 0), angularVelocity: Double = 0,
                             rotationRange: ClosedRange<Double>? = nil, scaleRate: Double = 0,
                             scaleRange: ClosedRange<Double> = 0.8...1.25, bounds: Rect? = nil) throws -> SceneCode {
        let full = try CodeMatrix.ean13Normalized(digits)
        return SceneCode(payload: Array(full.utf8), matrix: try .ean13(full), placement: placement,
                         velocity: velocity, angularVelocity: angularVelocity, rotationRange: rotationRange,
                         scaleRate: scaleRate, scaleRange: scaleRange, bounds: bounds)
    }

    /// A moving Code 128 (Code Set B) holding `text`. Throws like `CodeMatrix.code128(_:)`.
    public static func code128(_ text: String, placement: CodePlacement,
                               velocity: Point = Point(x: 0, y: 0), angularVelocity: Double = 0,
                               rotationRange: ClosedRange<Double>? = nil, scaleRate: Double = 0,
                               scaleRange: ClosedRange<Double> = 0.8...1.25, bounds: Rect? = nil) throws -> SceneCode {
        SceneCode(payload: Array(text.utf8), matrix: try .code128(text), placement: placement,
                  velocity: velocity, angularVelocity: angularVelocity, rotationRange: rotationRange,
                  scaleRate: scaleRate, scaleRange: scaleRange, bounds: bounds)
    }
}
