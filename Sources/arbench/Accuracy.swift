import Foundation

/// `arbench accuracy CORPUS [property=value …]`: per folder of CORPUS, how many images the stock
/// `zbar` element, `arbarcodedetect` (with the given properties) and zxing-cpp read correctly.
///
/// The two elements see each image decoded the same way (`decodebin ! videoconvert` to I420). The
/// stock element runs in a child process per image: zbar keeps state between scanners of one
/// process (its results changed with what other scanners had read before). zxing-cpp (what users
/// would pick instead of GStreamer) reads every image, as Pillow opens it, in one child process
/// (`scripts/zxing_read.py`, `read_barcodes` with its defaults). An image is *matched* when some
/// reported text (message field `symbol`; zxing-cpp's `text`) equals `N.txt` (line endings
/// normalised; `N.bin`: exact bytes, field `payload`, zxing-cpp's `bytes`), *wrong* when some
/// reported text differs from it. In `falsepositives-*` folders every image with any report
/// counts. UPC-A, UPC-E and EAN-13 texts are compared as the GTIN-13 they stand for (the stock
/// element and zxing-cpp report UPC-A as EAN-13, this element as UPC-A's 12 and UPC-E's 8 digits;
/// the corpus files hold either form).
enum Accuracy {
    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "webp", "gif", "bmp", "pgm", "ppm"]

    /// The decoders compared, in column order.
    static let decoders = ["stock zbar", "arbarcodedetect", "zxing-cpp"]

    /// One folder's counts: images, and per decoder (in `decoders` order) images matched / wrong.
    struct Tally {
        var images = 0
        var matched = [0, 0, 0], wrong = [0, 0, 0]

        static func += (a: inout Tally, b: Tally) {
            a.images += b.images
            for i in a.matched.indices { a.matched[i] += b.matched[i]; a.wrong[i] += b.wrong[i] }
        }
    }

    /// One image of the corpus: its folder, path and expected bytes (nil in `falsepositives-*`).
    struct Sample {
        var folder: String
        var path: String
        var expected: [UInt8]?
        var binary: Bool
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
        var samples: [Sample] = []
        // Images with no expected text beside them (e.g. a structured-append group's parts): not counted, listed.
        var unlabelled: [String] = []
        for folder in folders {
            let dir = corpus + "/" + folder
            let images = try fm.contentsOfDirectory(atPath: dir).sorted().filter {
                imageExtensions.contains(($0 as NSString).pathExtension.lowercased())
            }
            for image in images {
                let stem = (image as NSString).deletingPathExtension
                var sample = Sample(folder: folder, path: "\(dir)/\(image)", expected: nil, binary: false)
                if let t = fm.contents(atPath: "\(dir)/\(stem).txt") {
                    sample.expected = normalise(Array(t))
                } else if let b = fm.contents(atPath: "\(dir)/\(stem).bin") {
                    (sample.expected, sample.binary) = (Array(b), true)
                }
                if folder.hasPrefix("falsepositives") || sample.expected != nil {
                    samples.append(sample)
                } else {
                    unlabelled.append("\(folder)/\(image)")
                }
            }
        }
        // zxing-cpp reads every image in one child process.
        let zxing = try ZXing.read(images: samples.map(\.path))
        let launch = "filesrc name=src ! decodebin ! videoconvert ! video/x-raw,format=I420 "
            + "! arbarcodedetect name=ours message=true \(properties) ! fakesink"
        var tallies: [String: Tally] = [:]
        for (index, sample) in samples.enumerated() {
            let falsePositives = sample.folder.hasPrefix("falsepositives")
            let messages: [BarcodeMessage]
            do {
                messages = try runCollectingBarcodes(launch, set: [("src", "location", sample.path)])
            } catch {
                FileHandle.standardError.write(Data("\(sample.path): \(error)\n".utf8))
                continue
            }
            let want = sample.expected.map { gtin13(type: nil, $0) }
            let codes = [try stockCodes(sample.path), messages.filter { $0.source == "ours" }.flatMap(\.codes),
                         zxing.readings[index]?.codes.map(\.message) ?? []]
            func judge(_ codes: [BarcodeMessage.Code]) -> (matched: Bool, wrong: Bool) {
                if falsePositives { return (false, !codes.isEmpty) }
                // Text files hold text (compare `symbol`), binary files bytes (compare `payload`).
                let texts = codes.map { gtin13(type: $0.type, normalise(sample.binary ? $0.payload : $0.symbol)) }
                return (texts.contains(want!), texts.contains { $0 != want! })
            }
            let verdicts = codes.map(judge)
            var tally = Tally(images: 1)
            for (i, v) in verdicts.enumerated() {
                tally.matched[i] = v.matched ? 1 : 0
                tally.wrong[i] = v.wrong ? 1 : 0
            }
            tallies[sample.folder, default: Tally()] += tally
            if verbose {
                func show(_ c: [BarcodeMessage.Code]) -> String {
                    "[" + c.map { "\($0.type):\(String(decoding: $0.symbol, as: UTF8.self).prefix(40))" }.joined(separator: " | ") + "]"
                }
                let marks = zip(decoders, verdicts).map { "\($0) \($1.matched ? "OK" : $1.wrong ? "WRONG" : "-")" }
                print(([sample.path] + marks + [codes.map(show).joined(separator: " ")]).joined(separator: "\t"))
            }
        }
        print("zxing-cpp \(zxing.version) (Python package, `read_barcodes` defaults: all formats, try_rotate, try_downscale, try_invert)\n")
        print("| folder | images | " + decoders.map { "\($0) matched | \($0) wrong" }.joined(separator: " | ") + " |")
        print("| --- | ---: |" + String(repeating: " ---: | ---: |", count: decoders.count))
        var total = Tally()
        for folder in folders {
            guard let t = tallies[folder] else { continue }
            total += t
            if folder.hasPrefix("falsepositives") {
                print("| \(folder) (images with any detection) | \(t.images) | " + t.wrong.map { "– | \($0)" }.joined(separator: " | ") + " |")
            } else {
                print("| \(folder) | \(t.images) | " + zip(t.matched, t.wrong).map { "\($0) | \($1)" }.joined(separator: " | ") + " |")
            }
        }
        print("| **total** | \(total.images) | " + zip(total.matched, total.wrong).map { "**\($0)** | \($1)" }.joined(separator: " | ") + " |")
        if !unlabelled.isEmpty {
            print("\nNot counted (no N.txt or N.bin beside them): \(unlabelled.joined(separator: ", "))")
        }
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
