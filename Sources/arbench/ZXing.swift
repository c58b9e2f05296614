import ARCore
import Foundation

/// zxing-cpp, the library users would pick instead, run by `scripts/zxing_read.py` (Python
/// package `zxing-cpp`, installed by `scripts/deps.sh bench`): one child process per benchmark
/// run, never one per image.
struct ZXing {
    /// One image's or frame's readings and the time `read_barcodes` took on it, milliseconds.
    struct Reading {
        var milliseconds: Double
        var codes: [Code]
    }

    /// One code as zxing-cpp reports it, symbology named as this project does ("UPC-A", "EAN-13"),
    /// so `Accuracy.gtin13` compares it; `quad` in image pixels.
    struct Code {
        var type: String
        var symbol: [UInt8]
        var payload: [UInt8]
        var quad: Quad?

        var message: BarcodeMessage.Code { BarcodeMessage.Code(type: type, symbol: symbol, payload: payload) }
    }

    /// The package's version, as the script reports it.
    var version = "?"
    /// Per input, in order; nil where the image could not be read.
    var readings: [Reading?] = []

    /// zxing-cpp's names of the symbologies whose text is compared as a GTIN-13.
    static let typeNames = ["UPCA": "UPC-A", "UPCE": "UPC-E", "EAN13": "EAN-13", "EAN8": "EAN-8", "QRCode": "QR-Code"]
    /// arbarcodetrack's `symbologies` names and zxing-cpp's format names.
    static let formatNames = ["qrcode": "QRCode", "ean13": "EAN13", "code128": "Code128", "ean8": "EAN8",
                              "upca": "UPCA", "upce": "UPCE", "code39": "Code39", "code93": "Code93",
                              "codabar": "Codabar", "i25": "ITF", "datamatrix": "DataMatrix"]

    /// The images at `paths`, with zxing-cpp's defaults (all formats).
    static func read(images paths: [String]) throws -> ZXing {
        try run([], input: paths.map { $0 + "\n" }.joined())
    }

    /// Every frame of a raw I420 clip (its luma plane), only the given zxing-cpp formats.
    static func read(i420 path: String, width: Int, height: Int, formats: [String]) throws -> ZXing {
        try run(["--i420", String(width), String(height), path, "--formats", formats.joined(separator: ",")], input: "")
    }

    /// `scripts/zxing_read.py`, looked for above the working directory and above this executable.
    static func script() throws -> String {
        let starts = [FileManager.default.currentDirectoryPath,
                      URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path]
        for start in starts {
            var dir = URL(fileURLWithPath: start)
            while dir.path != "/" {
                let candidate = dir.appendingPathComponent("scripts/zxing_read.py").path
                if FileManager.default.fileExists(atPath: candidate) { return candidate }
                dir.deleteLastPathComponent()
            }
        }
        throw BenchError.usage("scripts/zxing_read.py not found above \(starts.joined(separator: " or "))")
    }

    private static func run(_ arguments: [String], input: String) throws -> ZXing {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", try script()] + arguments
        let stdin = Pipe(), stdout = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        try p.run()
        // Written from another thread: the child's output is read meanwhile, so neither pipe fills.
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw BenchError.pipeline("zxing_read.py failed (exit \(p.terminationStatus)); scripts/deps.sh bench installs zxing-cpp and Pillow")
        }
        var out = ZXing()
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else { continue }
            if let version = object["version"] as? String { out.version = version; continue }
            guard let codes = object["codes"] as? [[String: Any]] else { out.readings.append(nil); continue }
            out.readings.append(Reading(milliseconds: object["ms"] as? Double ?? .nan, codes: codes.map { c in
                let format = c["format"] as? String ?? ""
                let bytes = Data(base64Encoded: c["bytes"] as? String ?? "").map(Array.init) ?? []
                let corners = (c["quad"] as? [[Double]] ?? []).compactMap { $0.count == 2 ? Point(x: $0[0], y: $0[1]) : nil }
                return Code(type: typeNames[format] ?? format, symbol: Array((c["text"] as? String ?? "").utf8),
                            payload: bytes, quad: Quad(corners))
            }))
        }
        return out
    }
}
