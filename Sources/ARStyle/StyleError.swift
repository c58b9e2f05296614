/// Why a style file was refused: which file, where in it, and what is wrong.
public struct StyleError: Error, Equatable, CustomStringConvertible {
    /// Path of the style file (or `<inline>`).
    public var file: String
    /// Where: a key path such as `rules[0].overlays[1].anchor`, or `line 3` for syntax errors.
    public var place: String
    /// What is wrong, in words.
    public var reason: String

    public init(file: String, place: String, reason: String) {
        self.file = file
        self.place = place
        self.reason = reason
    }

    public var description: String { "\(file): \(place): \(reason)" }
}
