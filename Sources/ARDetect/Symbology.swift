import CZBar

/// A barcode symbology zbar can decode, with the name used in the `symbologies` property.
public struct Symbology: Hashable, Sendable {
    /// Property name, e.g. `qrcode`, `ean13`.
    public let name: String
    let type: zbar_symbol_type_t

    /// Every symbology zbar supports (this build of zbar has no working PDF417), in the order
    /// gst-inspect lists them.
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
        // Read by the Code 39 decoder; see `Code32`.
        Symbology(name: "code32", type: ZBAR_CODE39),
        Symbology(name: "code93", type: ZBAR_CODE93),
        Symbology(name: "code128", type: ZBAR_CODE128),
        Symbology(name: "codabar", type: ZBAR_CODABAR),
        Symbology(name: "databar", type: ZBAR_DATABAR),
        Symbology(name: "databar-exp", type: ZBAR_DATABAR_EXP),
        Symbology(name: "sqcode", type: ZBAR_SQCODE),
        Symbology(name: "ean2", type: ZBAR_EAN2),
        Symbology(name: "ean5", type: ZBAR_EAN5),
    ]

    /// What `all` selects: every symbology except those that only relabel or extend another one
    /// and must be asked for by name: `isbn10`/`isbn13` (would report book EAN-13 codes as ISBN)
    /// and the EAN add-ons `ean2`/`ean5`.
    public static let allByDefault: [Symbology] = all.filter { !optIn.contains($0.name) }

    private static let optIn: Set<String> = ["isbn10", "isbn13", "ean2", "ean5"]

    /// Parses a comma-separated list such as `qrcode,ean13`; `all` or an empty string selects
    /// `allByDefault`; `all` may be combined with opt-in names (`all,isbn13`).
    public static func parseList(_ list: String) throws -> [Symbology] {
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        if names.isEmpty { return allByDefault }
        var out: [Symbology] = []
        for name in names {
            if name == "all" {
                out += allByDefault
                continue
            }
            guard let s = all.first(where: { $0.name == name }) else {
                throw DetectorError.unknownSymbology(name, known: all.map(\.name))
            }
            out.append(s)
        }
        var seen = Set<String>()
        return out.filter { seen.insert($0.name).inserted }
    }

    /// Whether zbar decodes symbols of `type` half by half (EAN/UPC and the ISBNs read as EAN-13),
    /// keeping a decoded half between scan lines and images, so halves of two codes can pair up.
    static func decodedInHalves(_ type: zbar_symbol_type_t) -> Bool {
        [ZBAR_EAN13, ZBAR_UPCA, ZBAR_EAN8, ZBAR_UPCE, ZBAR_ISBN10, ZBAR_ISBN13].contains(type)
    }

    /// zbar's display name for a decoded symbol type, e.g. `QR-Code`, `EAN-13`.
    static func displayName(_ type: zbar_symbol_type_t) -> String {
        String(cString: zbar_get_symbol_name(type))
    }
}

import Foundation
