/// Why a style file was refused: which file, where in it, and what is wrong.
///
/// Text taken from the style (keys, values, patterns) is cut to `quotedCharacters` characters when
/// quoted, and each field to `maxCharacters`, so a hostile file (a 10 MB key) gives a short message.
public struct StyleError: Error, Equatable, CustomStringConvertible {
    /// Most characters of style text quoted in a message; longer text ends in `…`.
    public static let quotedCharacters = 80
    /// Most characters of `place` and of `reason` (what is longer ends in `…`).
    public static let maxCharacters = 600

    /// Path of the style file (or `<inline>`).
    public var file: String
    /// Where: a key path such as `rules[0].overlays[1].anchor`, or `line 3` for syntax errors.
    public var place: String
    /// What is wrong, in words.
    public var reason: String

    public init(file: String, place: String, reason: String) {
        self.file = StyleError.cut(file, StyleError.maxCharacters)
        self.place = StyleError.cut(place, StyleError.maxCharacters)
        self.reason = StyleError.cut(reason, StyleError.maxCharacters)
    }

    public var description: String { "\(file): \(place): \(reason)" }

    /// `text` in single quotes, cut to `quotedCharacters` characters (then ending in `…`).
    public static func quote(_ text: String) -> String { "'\(cut(text, quotedCharacters))'" }

    /// `text` cut to at most `limit` characters, the last being `…` when cut. Looks at no more than
    /// `limit + 1` characters of `text`.
    public static func cut(_ text: String, _ limit: Int) -> String {
        var end = text.startIndex
        for n in 0...limit {
            if end == text.endIndex { return text }
            if n == limit { break }
            end = text.index(after: end)
        }
        return String(text[..<text.index(before: end)]) + "…"
    }
}
