import ARCore
import Foundation

/// A real photo shown in a `CodeClip` as a moving card: with a code (its expected payload known, its
/// exact corners not) or without one (a distractor, which gets no ground truth).
public struct ClipPhoto: Hashable, Sendable {
    /// The photo, gray levels.
    public var image: LumaPlane
    /// The bytes a decoder should read from the code in the photo; nil for a photo without a code.
    public var payload: [UInt8]?
    /// Symbology name for the truth (zbar's name when the folder name says it, else "photo").
    public var symbology: String
    /// Where it came from (for messages), e.g. the file's path.
    public var name: String

    /// A photo; see the properties.
    public init(image: LumaPlane, payload: [UInt8]?, symbology: String = "photo", name: String = "") {
        self.image = image
        self.payload = payload
        self.symbology = symbology
        self.name = name
    }

    /// The expected payload from the contents of a photo's `.txt` file: UTF-8 text with `\r\n`
    /// normalised to `\n` (a `.bin` file's bytes are used as they are).
    public static func payload(text bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for (i, b) in bytes.enumerated() where !(b == 0x0D && i + 1 < bytes.count && bytes[i + 1] == 0x0A) {
            out.append(b)
        }
        return out
    }

    /// Whether photos in a folder with this name have no code (distractors): names starting with
    /// `falsepositives`.
    public static func isDistractorFolder(_ folderName: String) -> Bool {
        folderName.lowercased().hasPrefix("falsepositives")
    }

    /// zbar's symbology name for a folder named after one (`qrcode-1` → "QR-Code", `ean13-2` →
    /// "EAN-13", `code128` → "CODE-128"; also EAN-8, UPC-A, UPC-E, Code 39, Code 93, Codabar, ITF,
    /// PDF417, DataBar); "photo" when the name says none of these.
    public static func symbology(forFolder folderName: String) -> String {
        // Strip a trailing "-N" / "_N" and separators: "qrcode-2" → "qrcode", "ean_13" → "ean13".
        var name = folderName.lowercased()
        if let dash = name.lastIndex(where: { $0 == "-" || $0 == "_" }),
           name[name.index(after: dash)...].allSatisfy(\.isNumber), name.index(after: dash) < name.endIndex {
            name = String(name[..<dash])
        }
        name.removeAll { $0 == "-" || $0 == "_" || $0 == " " }
        let known: [String: String] = [
            "qrcode": "QR-Code", "qr": "QR-Code", "ean13": "EAN-13", "ean8": "EAN-8", "upca": "UPC-A", "upce": "UPC-E",
            "code128": "CODE-128", "code39": "CODE-39", "code93": "CODE-93", "codabar": "CODABAR", "itf": "I2/5",
            "i25": "I2/5", "pdf417": "PDF417", "databar": "DataBar", "rss14": "DataBar", "isbn13": "ISBN-13",
            "isbn10": "ISBN-10",
        ]
        return known[name] ?? "photo"
    }

    /// Which of `available` photos (indices into a sorted list) to show, `count` of them, chosen by
    /// `seed`: a seeded shuffle, cycled when `count` exceeds `available`. `stream` separates
    /// independent choices from the same seed (photos with codes, distractors).
    public static func choose(_ count: Int, of available: Int, seed: UInt64, stream: UInt64) -> [Int] {
        guard count > 0, available > 0 else { return [] }
        var rng = SeededRandom(seed: SeededRandom.mix(seed, 0xF070_0000 &+ stream))
        var order = Array(0..<available)
        for i in stride(from: available - 1, to: 0, by: -1) { order.swapAt(i, rng.next(in: 0...i)) }
        return (0..<count).map { order[$0 % available] }
    }
}
