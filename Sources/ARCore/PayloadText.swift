import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The text a payload stands for, while `Detection.payload` keeps the exact bytes: UTF-8 when the
/// bytes are valid UTF-8; for QR codes, Shift JIS when they are valid Shift JIS (Japanese QR codes
/// without an ECI); otherwise ISO 8859-1 (the QR default). Valid Shift JIS is read as Windows and
/// zxing-cpp read it (CP932), bytes below 0x80 as ASCII: strict Shift JIS (zbar's text mode) reads
/// `\` as `¥` and `~` as `‾`, so a URL's `~user` or a MEBKM's escaped `\:` came out changed.
/// Validity is strict Shift JIS's: CP932 also takes lead bytes Latin-1 text is full of (`ö` is
/// 0xF6), and would read "Björk" as a private-use character.
public enum PayloadText {
    public static func text(_ payload: [UInt8], symbology: String) -> String {
        if let s = String(validatingUTF8Bytes: payload) { return s }
        if symbology == "QR-Code", convert(payload, from: "SHIFT_JIS") != nil, let s = convert(payload, from: "CP932") { return s }
        return String(payload.map { Character(Unicode.Scalar($0)) })
    }

    /// `bytes` in `encoding` as a String, or nil when they are not valid in it.
    static func convert(_ bytes: [UInt8], from encoding: String) -> String? {
        let cd = iconv_open("UTF-8", encoding)
        guard cd != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(cd) }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 4 + 4)
        let capacity = output.count
        let produced: Int? = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                var inPtr: UnsafeMutablePointer<CChar>? = inBuf.baseAddress
                var outPtr: UnsafeMutablePointer<CChar>? = outBuf.baseAddress
                var inLeft = inBuf.count, outLeft = capacity
                guard iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft) != -1, inLeft == 0 else { return nil }
                return capacity - outLeft
            }
        }
        guard let produced else { return nil }
        return String(validatingUTF8Bytes: output[..<produced].map { UInt8(bitPattern: $0) })
    }
}

extension String {
    /// The bytes as text when they are valid UTF-8 (NUL bytes included); nil otherwise.
    public init?(validatingUTF8Bytes bytes: [UInt8]) {
        var decoded = ""
        var iterator = bytes.makeIterator()
        var codec = UTF8()
        while true {
            switch codec.decode(&iterator) {
            case .scalarValue(let v): decoded.unicodeScalars.append(v)
            case .emptyInput: self = decoded; return
            case .error: return nil
            }
        }
    }
}
