/// Code 39 full ASCII: the shift characters `$`, `%`, `/` and `+`, each followed by a letter,
/// stand for the ASCII characters plain Code 39 lacks (`+A` → `a`, `/A` → `!`, `%U` → NUL,
/// `$M` → CR). zbar reports the plain characters (its full ASCII setting does nothing for
/// Code 39); this reads them as zxing-cpp does.
public enum Code39 {
    /// Plain Code 39's characters, in check-character order.
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%".utf8)

    /// The shift characters.
    private static let shifts = Array("$%/+".utf8)

    /// What `%A` … `%Z` stand for.
    private static let percent: [UInt8] = [27, 28, 29, 30, 31,  // ESC … US
                                           59, 60, 61, 62, 63,  // ; < = > ?
                                           91, 92, 93, 94, 95,  // [ \ ] ^ _
                                           123, 124, 125, 126, 127,  // { | } ~ DEL
                                           0, 64, 96,  // NUL @ `
                                           127, 127, 127]

    /// The full ASCII text of a plain Code 39 `payload`, or nil when it holds no shift character
    /// or one not followed by a letter (then it is plain Code 39). A last character that is the
    /// mod-43 check character of the others is kept as it is, outside the decoding (zxing-cpp's rule).
    public static func fullASCII(_ payload: [UInt8]) -> [UInt8]? {
        var body = payload[...], check: [UInt8] = []
        if let last = payload.last, payload.count > 1, let expected = checkCharacter(payload.dropLast()), expected == last {
            body = payload.dropLast()
            check = [last]
        }
        guard body.contains(where: shifts.contains) else { return nil }
        var out: [UInt8] = []
        var i = body.startIndex
        while i < body.endIndex {
            let c = body[i]
            guard shifts.contains(c) else { out.append(c); i += 1; continue }
            let n = body.index(after: i)
            guard n < body.endIndex, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(body[n]) else { return nil }
            let letter = body[n]
            switch c {
            case UInt8(ascii: "$"): out.append(letter - 64)  // $A … $Z: SOH … SUB
            case UInt8(ascii: "%"): out.append(percent[Int(letter - UInt8(ascii: "A"))])
            case UInt8(ascii: "/"): out.append(letter - 32)  // /A … /O: ! … /, /Z: :
            default: out.append(letter + 32)  // +A … +Z: a … z
            }
            i = body.index(after: n)
        }
        return out + check
    }

    /// The mod-43 check character of `text`, or nil when a character is not plain Code 39.
    static func checkCharacter(_ text: ArraySlice<UInt8>) -> UInt8? {
        var sum = 0
        for c in text {
            guard let v = alphabet.firstIndex(of: c) else { return nil }
            sum += v
        }
        return alphabet[sum % 43]
    }
}
