import ARCore

extension CodeMatrix {
    /// The Code 128 symbol values (Code Set B) for `text`: Start B (104), one value per character
    /// (ASCII code − 32), the checksum ((104 + Σ position × value) mod 103), Stop (106).
    /// Throws `.emptyPayload`, `.unsupportedCharacter` (outside ASCII 32...127), `.payloadTooLong`
    /// (more than 1000 characters).
    public static func code128Values(_ text: String) throws -> [Int] {
        guard !text.isEmpty else { throw CodeGenError.emptyPayload }
        var values = [104]
        for (offset, ch) in text.enumerated() {
            let scalars = ch.unicodeScalars
            guard scalars.count == 1, let v = scalars.first?.value, v >= 32, v <= 127 else {
                throw CodeGenError.unsupportedCharacter(String(ch), offset: offset)
            }
            values.append(Int(v) - 32)
        }
        guard values.count <= 1_001 else { throw CodeGenError.payloadTooLong(count: values.count - 1) }
        var sum = 104
        for (i, v) in values.enumerated().dropFirst() { sum += i * v }
        values.append(sum % 103)
        values.append(106)
        return values
    }

    /// A Code 128 barcode in Code Set B (ASCII 32...127) with start, checksum and stop:
    /// 11 modules per symbol, 13 for the stop, so 11 × (count + 2) + 13 modules wide. Quiet zone 10
    /// modules, symbology "CODE-128". Throws like `code128Values(_:)`.
    public static func code128(_ text: String) throws -> CodeMatrix {
        let values = try code128Values(text)
        let widths = values.flatMap { Code128Patterns.widths[$0] }
        return try CodeMatrix(linearWidths: widths, symbology: "CODE-128")
    }
}
