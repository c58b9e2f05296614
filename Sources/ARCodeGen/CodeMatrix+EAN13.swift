import ARCore

extension CodeMatrix {
    /// The EAN-13 check digit (0...9) for the first 12 digits of `digits` (12 or 13 ASCII digits;
    /// a 13th digit is ignored). Throws `.invalidDigits` otherwise.
    public static func ean13CheckDigit(_ digits: String) throws -> Int {
        EANPatterns.checkDigit(try eanDigits(digits))
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
        let parity = Array(EANPatterns.parity[all[0]])
        var bits = "101"
        for i in 1...6 { bits += parity[i - 1] == "L" ? EANPatterns.l[all[i]] : EANPatterns.g[all[i]] }
        bits += "01010"
        for i in 7...12 { bits += EANPatterns.r[all[i]] }
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
