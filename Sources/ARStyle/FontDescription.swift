/// The size a pango font description names (`Sans Bold 18`, `Sans 24px`), read the way pango
/// reads it: the last word (before any `@variations`), a number, optionally followed by `px`.
public enum FontDescription {
    /// A font size: points at 96 dpi, or pixels.
    public struct Size: Hashable, Sendable {
        public var value: Double
        /// Whether `value` is in pixels (`px`) rather than points.
        public var pixels: Bool

        public init(value: Double, pixels: Bool) {
            self.value = value
            self.pixels = pixels
        }

        /// The size in pixels at 96 dpi.
        public var pixelValue: Double { pixels ? value : value * 96 / 72 }
    }

    /// The size `description` names, or nil when it names none (the size then follows the frame).
    public static func size(_ description: String) -> Size? {
        var words = description.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "," })
        // Font variations (`@wght=600`) come after the size.
        if let last = words.last, last.hasPrefix("@") { words.removeLast() }
        guard let last = words.last else { return nil }
        if last.hasSuffix("px"), let v = Double(last.dropLast(2)) { return Size(value: v, pixels: true) }
        if let v = Double(last) { return Size(value: v, pixels: false) }
        return nil
    }

    /// Why `description`'s size is refused (outside `StyleLimits.fontSize`), or nil when it has
    /// none or an accepted one.
    public static func sizeProblem(_ description: String) -> String? {
        guard let size = size(description) else { return nil }
        let r = StyleLimits.fontSize
        guard !r.contains(size.value) else { return nil }
        let unit = size.pixels ? "px" : "points"
        return "font size \(StyleNode.format(size.value)) \(unit) is out of range "
            + "\(StyleNode.format(r.lowerBound))…\(StyleNode.format(r.upperBound)) (points, or pixels with 'px')"
    }
}
