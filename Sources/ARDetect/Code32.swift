/// Code 32 (Italian pharmacode): a 9-digit number (8 digits and a mod-10 check digit) printed as
/// 6 Code 39 characters in base 32 (digits and consonants, no vowels). Reported as zxing-cpp
/// reports it: symbology `CODE-32`, text `A` followed by the 9 digits.
public enum Code32 {
    /// The symbology name of a Code 32 reading.
    public static let symbologyName = "CODE-32"

    private static let alphabet = Array("0123456789BCDFGHJKLMNPQRSTUVWXYZ".utf8)

    /// The Code 32 text (`A` and 9 digits) a Code 39 payload stands for, or nil when it is not one:
    /// not 6 base-32 characters, a number past 9 digits, or a wrong check digit.
    public static func text(fromCode39 payload: [UInt8]) -> [UInt8]? {
        guard payload.count == 6 else { return nil }
        var value = 0
        for c in payload {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            value = value * 32 + v
        }
        guard value <= 999_999_999 else { return nil }
        var digits = [Int](repeating: 0, count: 9)
        for i in stride(from: 8, through: 0, by: -1) {
            digits[i] = value % 10
            value /= 10
        }
        // Digits in odd places (from 0) count twice, their digits summed.
        var sum = 0
        for (i, d) in digits.prefix(8).enumerated() {
            let w = i % 2 == 1 ? d * 2 : d
            sum += w > 9 ? w - 9 : w
        }
        guard sum % 10 == digits[8] else { return nil }
        return Array("A".utf8) + digits.map { UInt8(ascii: "0") + UInt8($0) }
    }
}
