extension CodeMatrix {
    // Patterns for digits 0...9, 7 modules each: L (odd parity, left half), G (even parity, left
    // half; G is R reversed), R (right half; the complement of L).
    private static let eanL = ["0001101", "0011001", "0010011", "0111101", "0100011",
                               "0110001", "0101111", "0111011", "0110111", "0001011"]
    private static let eanG = ["0100111", "0110011", "0011011", "0100001", "0011101",
                               "0111001", "0000101", "0010001", "0001001", "0010111"]
    private static let eanR = ["1110010", "1100110", "1101100", "1000010", "1011100",
                               "1001110", "1010000", "1000100", "1001000", "1110100"]
    /// Parity of digits 2...7 chosen by the first digit (L = odd, G = even).
    private static let eanParity = ["LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG",
                                    "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL"]

    /// The EAN-13 check digit (0...9) for the first 12 digits of `digits` (12 or 13 ASCII digits;
    /// a 13th digit is ignored). Throws `.invalidDigits` otherwise.
    public static func ean13CheckDigit(_ digits: String) throws -> Int {
        let d = try eanDigits(digits)
        var sum = 0
        for i in 0..<12 { sum += d[i] * (i % 2 == 0 ? 1 : 3) }
        return (10 - sum % 10) % 10
    }

    /// The 13 digits of an EAN-13 (12 digits: the check digit is appended; 13: it is verified).
    /// Throws `.invalidDigits` or `.checkDigitMismatch`.
    public static func ean13Normalized(_ digits: String) throws -> String {
        let d = try eanDigits(digits)
        let check = try ean13CheckDigit(digits)
        if d.count == 13, d[12] != check { throw CodeGenError.checkDigitMismatch(expected: check, found: d[12]) }
        return String(d.prefix(12).map { Character(String($0)) }) + String(check)
    }

    /// An EAN-13 barcode, 95 modules wide: start guard 101, six left digits in L/G parity (chosen by
    /// the first digit), centre guard 01010, six right digits in R, end guard 101. Quiet zone 10
    /// modules, symbology "EAN-13". `digits`: 12 digits (check digit computed) or 13 (verified).
    /// Throws `.invalidDigits` or `.checkDigitMismatch`.
    public static func ean13(_ digits: String) throws -> CodeMatrix {
        let all = try ean13Normalized(digits).map { Int(String($0))! }
        let parity = Array(eanParity[all[0]])
        var bits = "101"
        for i in 1...6 { bits += parity[i - 1] == "L" ? eanL[all[i]] : eanG[all[i]] }
        bits += "01010"
        for i in 7...12 { bits += eanR[all[i]] }
        bits += "101"
        return try CodeMatrix(width: bits.count, height: 1, modules: bits.map { $0 == "1" },
                              quietZoneModules: 10, symbology: "EAN-13")
    }

    private static func eanDigits(_ s: String) throws -> [Int] {
        let scalars = Array(s.unicodeScalars)
        guard scalars.count == 12 || scalars.count == 13,
              scalars.allSatisfy({ $0.value >= 48 && $0.value <= 57 }) else {
            throw CodeGenError.invalidDigits(s)
        }
        return scalars.map { Int($0.value - 48) }
    }
}
