/// The ranges a style's numbers, fonts and texts must lie in. A value outside is refused when the
/// style loads (a `StyleError` naming the key and the range); whatever passes is still clamped when
/// drawn to what can be visible on the frame.
public enum StyleLimits {
    /// Sizes in `px`, pixels.
    public static let sizePixels: ClosedRange<Double> = 0...16384
    /// Sizes in `code`, multiples of the code's size on that axis.
    public static let sizeCodes: ClosedRange<Double> = 0...100
    /// Sizes in `ratio`, multiples of the other axis.
    public static let sizeRatio: ClosedRange<Double> = 0...100
    /// Offsets in `px`, pixels.
    public static let offsetPixels: ClosedRange<Double> = -16384...16384
    /// Offsets in `code` or `self`, multiples of the code's or the overlay's size on that axis.
    public static let offsetMultiples: ClosedRange<Double> = -100...100
    /// Font sizes in a font description: points (at 96 dpi), or pixels with `px`.
    public static let fontSize: ClosedRange<Double> = 1...1000
    /// Longest label or hint, in characters (longer text ends in `…`); also the largest `max-chars`.
    public static let labelCharacters = 1000
    /// Longest label or hint, in Unicode scalars: bounds text whose characters carry many
    /// combining marks each.
    public static let labelScalars = 4 * labelCharacters
    /// Longest payload a rule's `data` expression sees, in UTF-16 code units (characters outside
    /// the BMP count 2): a longer payload is matched on its first 8192 only. Every QR code's
    /// payload fits (at most 7089 digits).
    public static let matchedTextUTF16 = 8192
    /// A rule's `data` match is abandoned (counted as no match) after this many progress reports
    /// of the regular-expression engine; ICU reports every 10 000 steps of its matcher, so about a
    /// million steps, a few milliseconds. A plain pattern on a QR payload takes one or none.
    public static let matchProgressReports = 100

    /// The accepted range of a size in `unit`.
    public static func size(_ unit: SizeUnit) -> ClosedRange<Double> {
        switch unit {
        case .px: return sizePixels
        case .code: return sizeCodes
        case .ratio: return sizeRatio
        }
    }

    /// The accepted range of an offset in `unit`.
    public static func offset(_ unit: OffsetUnit) -> ClosedRange<Double> {
        unit == .px ? offsetPixels : offsetMultiples
    }

    /// `text` cut to at most `maxCharacters` characters (never more than `labelCharacters`) and
    /// `labelScalars` Unicode scalars; cut text ends in `…`, which counts as one of them.
    public static func boundedLabel(_ text: String, maxCharacters: Int = labelCharacters) -> String {
        let limit = max(1, min(maxCharacters, labelCharacters))
        var characters = 0, scalars = 0
        var keep = text.startIndex, index = text.startIndex
        for c in text {
            let n = c.unicodeScalars.count
            if characters + 1 > limit || scalars + n > labelScalars {
                return String(text[..<keep]) + "…"
            }
            characters += 1
            scalars += n
            index = text.index(after: index)
            // What a cut keeps: room for the ellipsis in both counts.
            if characters < limit, scalars < labelScalars { keep = index }
        }
        return text
    }
}
