import Foundation

/// `arbench accuracy CORPUS [property=value …]`: per folder of CORPUS, how many images the stock
/// `zbar` element and `arbarcodedetect` (with the given properties) read correctly.
///
/// Each image is decoded the same way for both (`decodebin ! videoconvert` to I420), so both see
/// the same pixels. The stock element runs in a child process per image: zbar keeps state between
/// scanners of one process (its results changed with what other scanners had read before). An image is *matched* when some reported text (message field `symbol`)
/// equals `N.txt` (line endings normalised; `N.bin`: exact bytes, field `payload`), *wrong* when
/// some reported text differs from it. In
/// `falsepositives-*` folders every image with any report counts. UPC-A, UPC-E and EAN-13 texts are
/// compared as the GTIN-13 they stand for (the stock element reports UPC-A and UPC-E as EAN-13, this
/// element as UPC-A's 12 and UPC-E's 8 digits; the corpus files hold either form).
enum Accuracy {
    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "webp", "gif", "bmp", "pgm", "ppm"]

    struct Tally {
        var images = 0
        var stockMatched = 0, stockWrong = 0
        var oursMatched = 0, oursWrong = 0
    }

    static func run(_ args: [String]) throws {
        guard let corpus = args.first else {
            throw BenchError.usage("usage: arbench accuracy CORPUS [arbarcodedetect-property=value …] [--verbose]")
        }
        let verbose = args.contains("--verbose")
        let properties = args.dropFirst().filter { $0.contains("=") }.joined(separator: " ")
        let fm = FileManager.default
        let folders = try fm.contentsOfDirectory(atPath: corpus).sorted().filter {
            var dir: ObjCBool = false
            return fm.fileExists(atPath: corpus + "/" + $0, isDirectory: &dir) && dir.boolValue
        }
        let launch = "filesrc name=src ! decodebin ! videoconvert ! video/x-raw,format=I420 "
            + "! arbarcodedetect name=ours message=true \(properties) ! fakesink"
        var rows: [(String, Tally)] = []
        var total = Tally()
        for folder in folders {
            let dir = corpus + "/" + folder
            let falsePositives = folder.hasPrefix("falsepositives")
            var tally = Tally()
            let images = try fm.contentsOfDirectory(atPath: dir).sorted().filter {
                imageExtensions.contains(($0 as NSString).pathExtension.lowercased())
            }
            for image in images {
                let stem = (image as NSString).deletingPathExtension
                let expected: [UInt8]?
                var binary = false
                if let t = fm.contents(atPath: "\(dir)/\(stem).txt") {
                    expected = normalise(Array(t))
                } else if let b = fm.contents(atPath: "\(dir)/\(stem).bin") {
                    expected = Array(b)
                    binary = true
                } else {
                    expected = nil
                }
                guard falsePositives || expected != nil else { continue }
                let want = expected.map { gtin13(type: nil, $0) }
                let messages: [BarcodeMessage]
                do {
                    messages = try runCollectingBarcodes(launch, set: [("src", "location", "\(dir)/\(image)")])
                } catch {
                    FileHandle.standardError.write(Data("\(folder)/\(image): \(error)\n".utf8))
                    continue
                }
                tally.images += 1
                let stock = try stockCodes("\(dir)/\(image)")
                let ours = messages.filter { $0.source == "ours" }.flatMap(\.codes)
                func judge(_ codes: [BarcodeMessage.Code]) -> (Bool, Bool) {
                    if falsePositives { return (false, !codes.isEmpty) }
                    // Text files hold text (compare `symbol`), binary files bytes (compare `payload`).
                    let texts = codes.map { gtin13(type: $0.type, normalise(binary ? $0.payload : $0.symbol)) }
                    return (texts.contains(want!), texts.contains { $0 != want! })
                }
                let (sm, sw) = judge(stock), (om, ow) = judge(ours)
                if sm { tally.stockMatched += 1 }
                if sw { tally.stockWrong += 1 }
                if om { tally.oursMatched += 1 }
                if ow { tally.oursWrong += 1 }
                if verbose {
                    func show(_ c: [BarcodeMessage.Code]) -> String {
                        c.map { "\($0.type):\(String(decoding: $0.symbol, as: UTF8.self).prefix(40))" }.joined(separator: " | ")
                    }
                    print("\(folder)/\(image)\tstock \(sm ? "OK" : sw ? "WRONG" : "-")\tours \(om ? "OK" : ow ? "WRONG" : "-")\t"
                          + "[\(show(stock))] [\(show(ours))]")
                }
            }
            rows.append((folder, tally))
            total.images += tally.images
            total.stockMatched += tally.stockMatched; total.stockWrong += tally.stockWrong
            total.oursMatched += tally.oursMatched; total.oursWrong += tally.oursWrong
        }
        print("| folder | images | stock zbar matched | stock zbar wrong | arbarcodedetect matched | arbarcodedetect wrong |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for (folder, t) in rows {
            if folder.hasPrefix("falsepositives") {
                print("| \(folder) (images with any detection) | \(t.images) | – | \(t.stockWrong) | – | \(t.oursWrong) |")
            } else {
                print("| \(folder) | \(t.images) | \(t.stockMatched) | \(t.stockWrong) | \(t.oursMatched) | \(t.oursWrong) |")
            }
        }
        print("| **total** | \(total.images) | **\(total.stockMatched)** | \(total.stockWrong) | **\(total.oursMatched)** | \(total.oursWrong) |")
    }

    static let stockLaunch = "filesrc name=src ! decodebin ! videoconvert ! video/x-raw,format=I420 "
        + "! zbar name=stock cache=false ! fakesink"

    /// `arbench zbar-read IMAGE`: the stock element's codes in IMAGE, one per line: type, tab,
    /// base64 of the symbol text.
    static func zbarRead(_ args: [String]) throws {
        guard let path = args.first else { throw BenchError.usage("usage: arbench zbar-read IMAGE") }
        for m in try runCollectingBarcodes(stockLaunch, set: [("src", "location", path)]) where m.source == "stock" {
            for c in m.codes { print("\(c.type)\t\(Data(c.symbol).base64EncodedString())") }
        }
    }

    /// The stock element's codes in `path`, read by a child `arbench zbar-read`.
    static func stockCodes(_ path: String) throws -> [BarcodeMessage.Code] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        p.arguments = ["zbar-read", path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw BenchError.pipeline("zbar-read \(path) failed") }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard f.count == 2, let d = Data(base64Encoded: String(f[1])) else { return nil }
            return BarcodeMessage.Code(type: String(f[0]), symbol: Array(d), payload: Array(d))
        }
    }

    /// The GTIN-13 a UPC-A (12 digits), UPC-E (8 digits) or EAN-13 text stands for; other texts
    /// unchanged. `type` nil: judge by the digits alone (expected texts).
    static func gtin13(type: String?, _ text: [UInt8]) -> [UInt8] {
        guard text.allSatisfy({ (48...57).contains($0) }) else { return text }
        let digits = text.map { Int($0) - 48 }
        func bytes(_ d: [Int]) -> [UInt8] { d.map { UInt8($0 + 48) } }
        switch (type, digits.count) {
        case ("UPC-A", 12), (nil, 12):
            return bytes([0] + digits)
        case ("UPC-E", 8):
            // Expand the six middle digits to UPC-A (number system 0 or 1), then prefix 0.
            let d = Array(digits[1...6]), ns = digits[0], check = digits[7]
            let body: [Int]
            switch d[5] {
            case 0, 1, 2: body = [d[0], d[1], d[5], 0, 0, 0, 0, d[2], d[3], d[4]]
            case 3: body = [d[0], d[1], d[2], 0, 0, 0, 0, 0, d[3], d[4]]
            case 4: body = [d[0], d[1], d[2], d[3], 0, 0, 0, 0, 0, d[4]]
            default: body = [d[0], d[1], d[2], d[3], d[4], 0, 0, 0, 0, d[5]]
            }
            return bytes([0, ns] + body + [check])
        default:
            return text
        }
    }

    /// Line endings normalised to `\n`.
    static func normalise(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 13 {
                out.append(10)
                if i + 1 < bytes.count, bytes[i + 1] == 10 { i += 1 }
            } else {
                out.append(bytes[i])
            }
            i += 1
        }
        return out
    }
}
