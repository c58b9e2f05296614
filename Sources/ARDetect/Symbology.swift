import CZBar

/// A barcode symbology zbar can decode, with the name used in the `symbologies` property.
public struct Symbology: Hashable, Sendable {
    /// Property name, e.g. `qrcode`, `ean13`.
    public let name: String
    let type: zbar_symbol_type_t

    /// Every symbology zbar supports, in the order gst-inspect lists them.
    public static let all: [Symbology] = [
        Symbology(name: "qrcode", type: ZBAR_QRCODE),
        Symbology(name: "ean13", type: ZBAR_EAN13),
        Symbology(name: "ean8", type: ZBAR_EAN8),
        Symbology(name: "upca", type: ZBAR_UPCA),
        Symbology(name: "upce", type: ZBAR_UPCE),
        Symbology(name: "isbn10", type: ZBAR_ISBN10),
        Symbology(name: "isbn13", type: ZBAR_ISBN13),
        Symbology(name: "i25", type: ZBAR_I25),
        Symbology(name: "code39", type: ZBAR_CODE39),
        Symbology(name: "code93", type: ZBAR_CODE93),
        Symbology(name: "code128", type: ZBAR_CODE128),
        Symbology(name: "codabar", type: ZBAR_CODABAR),
        Symbology(name: "databar", type: ZBAR_DATABAR),
        Symbology(name: "databar-exp", type: ZBAR_DATABAR_EXP),
        Symbology(name: "sqcode", type: ZBAR_SQCODE),
    ]

    /// Parses a comma-separated list such as `qrcode,ean13`; `all` or an empty string selects every symbology.
    public static func parseList(_ list: String) throws -> [Symbology] {
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        if names.isEmpty || names == ["all"] { return all }
        return try names.map { name in
            guard let s = all.first(where: { $0.name == name }) else {
                throw DetectorError.unknownSymbology(name, known: all.map(\.name))
            }
            return s
        }
    }

    /// zbar's display name for a decoded symbol type, e.g. `QR-Code`, `EAN-13`.
    static func displayName(_ type: zbar_symbol_type_t) -> String {
        String(cString: zbar_get_symbol_name(type))
    }
}

/// Errors from setting up the detector.
public enum DetectorError: Error, Equatable, CustomStringConvertible {
    /// A name in the symbology list is not one zbar knows.
    case unknownSymbology(String, known: [String])
    /// zbar could not create its scanner.
    case scannerUnavailable

    public var description: String {
        switch self {
        case .unknownSymbology(let name, let known):
            return "unknown symbology '\(name)' (known: \(known.joined(separator: ", ")))"
        case .scannerUnavailable:
            return "zbar could not create an image scanner"
        }
    }
}

import Foundation
