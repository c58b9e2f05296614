extension CodeMatrix {
    /// Code 128 symbol patterns for values 0...106 as bar/space widths in modules (bar first);
    /// 103...105 are Start A/B/C, 106 is Stop (13 modules, ends with a 2-module bar).
    static let code128Widths: [String] = [
        "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
        "221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
        "221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
        "212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
        "231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
        "231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
        "314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
        "112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
        "111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
        "214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
        "114131", "311141", "411131", "211412", "211214", "211232", "2331112",
    ]

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
        let widths = values.flatMap { code128Widths[$0].map { Int(String($0))! } }
        return try CodeMatrix(linearWidths: widths, symbology: "CODE-128")
    }
}
