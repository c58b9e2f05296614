import ARCodeGen
import ARCore
import ARDetect
import XCTest

extension CodeMatrix {
    /// This QR code with its data modules (those 9 or more from each edge) scrambled past repair,
    /// its finder and timing patterns intact: located and measured, never read.
    func scrambledQRData() throws -> CodeMatrix {
        let n = width
        return try CodeMatrix(width: n, height: n, modules: (0..<(n * n)).map { i in
            let x = i % n, y = i / n
            return (9..<(n - 9)).contains(x) && (9..<(n - 9)).contains(y) ? (x * 7 + y * 3) % 5 < 2 : isDark(x: x, y: y)
        }, quietZoneModules: quietZoneModules, symbology: symbology)
    }

    /// A plain Code 39 symbol of `text` (start and stop added, no check character), 1 module
    /// narrow, 3 wide.
    static func code39(_ text: String) throws -> CodeMatrix {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%*")
        // 9 elements from the first bar; a set bit is a wide element.
        let patterns = [0x034, 0x121, 0x061, 0x160, 0x031, 0x130, 0x070, 0x025, 0x124, 0x064,
                        0x109, 0x049, 0x148, 0x019, 0x118, 0x058, 0x00D, 0x10C, 0x04C, 0x01C,
                        0x103, 0x043, 0x142, 0x013, 0x112, 0x052, 0x007, 0x106, 0x046, 0x016,
                        0x181, 0x0C1, 0x1C0, 0x091, 0x190, 0x0D0, 0x085, 0x184, 0x0C4, 0x0A8,
                        0x0A2, 0x08A, 0x02A, 0x094]
        var widths: [Int] = []
        for c in "*" + text + "*" {
            let p = patterns[try XCTUnwrap(alphabet.firstIndex(of: c), "not Code 39: \(c)")]
            if !widths.isEmpty { widths.append(1) }  // gap between characters
            for bit in stride(from: 8, through: 0, by: -1) { widths.append(p >> bit & 1 == 1 ? 3 : 1) }
        }
        return try CodeMatrix(linearWidths: widths, symbology: "CODE-39")
    }
}

/// A grey frame with codes drawn at exactly known places.
struct DetectScene {
    var image: LumaPlane
    var truth: [Quad] = []

    init(width: Int, height: Int, background: UInt8 = 200) throws {
        image = try LumaPlane(validatingWidth: width, height: height, fill: background)
    }

    mutating func add(_ matrix: CodeMatrix, x: Double, y: Double, module: Double, rotation: Double = 0, barHeight: Double = 50,
                      perspective: Double = 0, renderer: CodeRenderer = CodeRenderer()) throws {
        truth.append(try renderer.render(matrix, placement: CodePlacement(center: Point(x: x, y: y), moduleSize: module,
                                                                          rotationDegrees: rotation, barHeight: barHeight,
                                                                          perspective: perspective),
                                         into: &image))
    }

    func detect(_ detector: BarcodeDetector) -> [Detection] {
        image.pixels.withUnsafeBytes {
            detector.detect(LumaImage(base: $0.baseAddress!, width: image.width, height: image.height, stride: image.width))
        }
    }

    func detect(_ detector: BarcodeDetector, in regions: [Quad]) -> [Detection] {
        image.pixels.withUnsafeBytes {
            detector.detect(LumaImage(base: $0.baseAddress!, width: image.width, height: image.height, stride: image.width),
                            in: regions)
        }
    }
}

func assertCorners(_ actual: Quad, _ expected: Quad, within tolerance: Double, _ message: String = "",
                   file: StaticString = #filePath, line: UInt = #line) {
    let d = actual.maxCornerDistance(to: expected)
    XCTAssertLessThanOrEqual(d, tolerance, "\(message) corners \(actual.corners) vs expected \(expected.corners)", file: file, line: line)
}

extension LumaPlane {
    /// Each row averaged over a box `2 * radius + 1` px wide (cut at the row's ends): bars blurred
    /// across, by a lens out of focus or by motion across them while the shutter is open.
    mutating func blurRows(radius: Int) {
        for y in 0..<height {
            let row = (0..<width).map { Int(self[$0, y]) }
            for x in 0..<width {
                let lo = max(0, x - radius), hi = min(width - 1, x + radius)
                self[x, y] = UInt8(row[lo...hi].reduce(0, +) / (hi - lo + 1))
            }
        }
    }
}

/// The pixels of a binary PGM in `Tests/Fixtures`, checked to be `width` × `height`.
func fixture(_ name: String, width: Int, height: Int) throws -> [UInt8] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/\(name)")
    let file = try Data(contentsOf: url)
    let header = Array("P5\n\(width) \(height)\n255\n".utf8)
    XCTAssertEqual(Array(file.prefix(header.count)), header)
    return Array(file.dropFirst(header.count))
}
