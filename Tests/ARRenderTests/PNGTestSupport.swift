import Foundation

/// PNG files made in memory for tests: uncompressed (stored) deflate blocks, real CRCs.
enum TestPNG {
    /// A `width` × `height` PNG of one RGBA colour.
    static func solid(width: Int, height: Int, rgba: [UInt8] = [255, 0, 0, 255]) -> [UInt8] {
        var raw: [UInt8] = []
        for _ in 0..<height { raw.append(0); for _ in 0..<width { raw += rgba } }
        return header(width: width, height: height) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    /// The signature and IHDR chunk of an 8-bit RGBA PNG declaring `width` × `height` pixels.
    static func header(width: Int, height: Int) -> [UInt8] {
        [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + chunk("IHDR", be32(width) + be32(height) + [8, 6, 0, 0, 0])
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(data.count) + body + be32(Int(crc32(body)))
    }

    private static func be32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }

    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, data.count - i)
            out += [i + n == data.count ? 1 : 0, UInt8(n & 0xff), UInt8(n >> 8), UInt8(~n & 0xff), UInt8((~n >> 8) & 0xff)]
            out += data[i..<i + n]
            i += n
        } while i < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + be32(Int(b << 16 | a))
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xffff_ffff
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xedb8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }
}
