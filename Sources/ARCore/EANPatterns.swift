/// EAN-13's digit patterns and check digit: one table for the generator that draws codes and the
/// check that reads them.
public enum EANPatterns {
    /// Digits 0...9 as L patterns (odd parity, left half): 7 modules each, "1" dark.
    public static let l = ["0001101", "0011001", "0010011", "0111101", "0100011",
                           "0110001", "0101111", "0111011", "0110111", "0001011"]
    /// R patterns (right half): the complement of L.
    public static let r: [String] = l.map { String($0.map { $0 == "0" ? "1" : "0" }) }
    /// G patterns (even parity, left half): R reversed.
    public static let g: [String] = r.map { String($0.reversed()) }
    /// Parity of the left half's six digits (L odd, G even) chosen by the first digit.
    public static let parity = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG",
                                "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]

    /// The check digit (0...9) of the first 12 of `digits` (each 0...9).
    public static func checkDigit<C: Collection>(_ digits: C) -> Int where C.Element == Int {
        let sum = digits.prefix(12).enumerated().map { $0.offset % 2 == 0 ? $0.element : 3 * $0.element }.reduce(0, +)
        return (10 - sum % 10) % 10
    }

    /// The widths of `pattern`'s runs of equal modules, in modules, from its first.
    public static func widths(_ pattern: String) -> [Int] {
        var widths: [Int] = [], last: Character?
        for c in pattern {
            if c == last { widths[widths.count - 1] += 1 } else { widths.append(1) }
            last = c
        }
        return widths
    }
}
