import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

final class EANCheckTests: XCTestCase {
    /// A printed code's digits, and a misreading of them with a valid check digit (1 and 2 read
    /// as 7, 3 and 4 swapped: what zbar and zxing-cpp read on photos of it with thick bars).
    static let printed = "0023942431015", misread = "9074932437075"

    /// `digits`' EAN-13 modules (true: dark), guards included.
    static func modules(_ digits: String) throws -> [Bool] {
        let code = try CodeMatrix.ean13(digits)
        return (0..<code.width).map { code.isDark(x: $0, y: 0) }
    }

    /// One scan line across `modules`: `module` samples a module, 15 light modules each side; each
    /// bar widened by `spread` samples on both sides (ink spread), then a 3-sample box blur. Dark
    /// 30, light 220.
    static func line(_ modules: [Bool], module: Int = 4, spread: Int = 0) -> [Double] {
        let quiet = 15 * module, n = modules.count * module + 2 * quiet
        var dark = [Bool](repeating: false, count: n)
        for (m, isDark) in modules.enumerated() where isDark {
            for x in (quiet + m * module - spread)..<(quiet + (m + 1) * module + spread) { dark[x] = true }
        }
        let raw = dark.map { $0 ? 30.0 : 220.0 }
        return raw.indices.map { i in (raw[max(0, i - 1)] + raw[i] + raw[min(n - 1, i + 1)]) / 3 }
    }

    /// A line is read from its start: a code upside down is read on the line reversed.
    func testALineIsReadFromItsStart() throws {
        let samples = Self.line(try Self.modules(Self.printed))
        XCTAssertEqual(EANCheck.read(samples), [Self.printed])
        XCTAssertEqual(EANCheck.read(samples.reversed()), [])
        XCTAssertEqual(EANCheck.read(Self.line(try Self.modules(Self.printed).reversed())), [])
    }

    /// Bars wider on each side by a sixth or a quarter of a module (a third or half a module in
    /// all): read as printed once the spread measured on the guards is taken out.
    func testInkSpreadIsTakenOut() throws {
        let modules = try Self.modules(Self.printed)
        XCTAssertEqual(EANCheck.read(Self.line(modules, module: 6, spread: 1)), [Self.printed])
        XCTAssertEqual(EANCheck.read(Self.line(modules, module: 4, spread: 1)), [Self.printed])
    }

    /// No symbol without its quiet zones, nor with a wrong check digit.
    func testQuietZonesAndTheCheckDigitAreRequired() throws {
        let modules = try Self.modules(Self.printed)
        // Dark from 3 modules before the start guard: the quiet zone is too short.
        var cut = Self.line(modules)
        for i in (15 - 3) * 4..<(15 * 4 - 2) { cut[i] = 30 }
        XCTAssertEqual(EANCheck.read(cut), [])
        // The check digit (modules 85–91) drawn as a 6 (R pattern 1010000) instead of a 5.
        var wrong = modules
        wrong.replaceSubrange(85..<92, with: "1010000".map { $0 == "1" })
        XCTAssertEqual(EANCheck.read(Self.line(wrong)), [])
        XCTAssertEqual(EANCheck.read(Self.line(modules)), [Self.printed])
    }

    /// Lines of random bars read nothing.
    func testRandomBarsReadNothing() throws {
        var state: UInt64 = 7
        for _ in 0..<200 {
            var samples: [Double] = []
            while samples.count < 800 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let width = 2 + Int((state >> 33) % 12)
                samples += Array(repeating: samples.count / width % 2 == 0 ? 220 : 30, count: width)
            }
            XCTAssertEqual(EANCheck.read(samples), [])
            XCTAssertEqual(EANCheck.read(samples, window: 6), [], "against a local threshold")
        }
    }

    /// A printed EAN-13 code with thick bars in a frame, and detections of it as the scanner might
    /// report them.
    private func scene() throws -> (LumaPlane, Quad) {
        var scene = try DetectScene(width: 480, height: 160, background: 235)
        try scene.add(try CodeMatrix.ean13(Self.printed), x: 240, y: 80, module: 3, barHeight: 90)
        // Ink spread: every pixel beside a dark one across the bars darkened halfway.
        var thick = scene.image
        for y in 0..<160 {
            for x in 1..<479 {
                let darkest = min(scene.image[x - 1, y], scene.image[x + 1, y])
                if darkest < scene.image[x, y] { thick[x, y] = UInt8((Int(scene.image[x, y]) + Int(darkest)) / 2) }
            }
        }
        return (thick, try XCTUnwrap(scene.truth.first))
    }

    private func checked(_ d: Detection, in plane: LumaPlane) -> Detection? {
        plane.withImage { EANCheck.checked(d, in: $0) }
    }

    /// A misreading is replaced by the code the lines read; a right reading stays as it is.
    func testAMisreadingIsReplacedByTheCodeTheLinesRead() throws {
        let (plane, quad) = try scene()
        let misread = Detection(symbology: "EAN-13", text: Self.misread, quad: quad, quality: 3)
        XCTAssertEqual(checked(misread, in: plane)?.text, Self.printed)
        XCTAssertEqual(checked(misread, in: plane)?.quad, quad)
        let right = Detection(symbology: "EAN-13", text: Self.printed, quad: quad, quality: 3)
        XCTAssertEqual(checked(right, in: plane), right)
        // UPC-A, as zbar reports a code with a leading 0 when UPC-A is enabled: the 12 digits.
        let upc = Detection(symbology: "UPC-A", text: String(Self.printed.dropFirst()), quad: quad, quality: 3)
        XCTAssertEqual(checked(upc, in: plane), upc)
    }

    /// A misreading whose symbology the code read cannot be (an ISBN-13 must start 978 or 979) is
    /// dropped; other symbologies are not checked.
    func testAMisreadingTheLinesCannotCorrectIsDropped() throws {
        let (plane, quad) = try scene()
        XCTAssertNil(checked(Detection(symbology: "ISBN-13", text: "9780000000002", quad: quad, quality: 3), in: plane))
        let qr = Detection(symbology: "QR-Code", text: "9780000000002", quad: quad)
        XCTAssertEqual(checked(qr, in: plane), qr)
    }

    /// A frame holding `digits` printed with ink spread: each bar `spread` pixels wider on both
    /// sides at `module` pixels a module, area-sampled (16 sub-pixels), 60 px tall, light 220 and dark 50.
    static func inkSpreadFrame(_ digits: String, module: Double, spread: Double) throws -> LumaPlane {
        let bars = try modules(digits), quiet = 12, sub = 16
        let columns = Int(Double(bars.count + 2 * quiet) * module)
        var ink = [Double](repeating: 0, count: columns * sub)
        for (m, dark) in bars.enumerated() where dark {
            let from = Int((Double(quiet + m) * module - spread) * Double(sub)), to = Int((Double(quiet + m + 1) * module + spread) * Double(sub))
            for k in max(0, from)..<min(ink.count, to) { ink[k] = 1 }
        }
        let width = columns + 100
        var plane = LumaPlane(width: width, height: 160, fill: 220)
        for x in 0..<columns {
            let cover = ink[(x * sub)..<((x + 1) * sub)].reduce(0, +) / Double(sub)
            for y in 50..<110 { plane.pixels[y * width + 50 + x] = UInt8(220 - 170 * cover) }
        }
        return plane
    }

    /// The detector checks what it reports: bars 0.7 px wider each side at 3 px a module make zbar
    /// read 7785693746567 as another valid EAN-13, 7725693146561, on every line (1 read as 7, 7
    /// as 1); the detector reports the printed code (without the check: zbar's reading).
    func testTheDetectorReportsAnInkSpreadCodeAsPrinted() throws {
        let plane = try Self.inkSpreadFrame("7785693746567", module: 3, spread: 0.7)
        let detector = try BarcodeDetector(options: DetectorOptions(locate: .auto, threads: 1))
        XCTAssertEqual(plane.withImage { detector.detect($0) }.map(\.text), ["7785693746567"])
    }

    /// Where ink spread and blur keep a one-module space below the line's halfway grey, the line is
    /// read again against a local threshold (halfway between the darkest and lightest samples
    /// about a module and a half around): read there, not against the line's halfway.
    func testANarrowSpaceBelowTheLinesHalfwayIsReadAgainstALocalThreshold() throws {
        let modules = try Self.modules(Self.printed)
        for (module, spread) in [(5, 2), (7, 3)] {
            let samples = Self.line(modules, module: module, spread: spread)
            XCTAssertEqual(EANCheck.read(samples), [], "\(module) samples a module, spread \(spread)")
            XCTAssertEqual(EANCheck.read(samples, window: module * 3 / 2), [Self.printed], "\(module) samples a module, spread \(spread)")
        }
    }

    /// A bled print the line's halfway grey cannot read: bars 0.7 px wider each side at 2.2 px a
    /// module, which zbar reads as 4708942320120 on every line; the lines read against the local
    /// threshold put it right (without them: zbar's reading).
    func testTheDetectorReportsABledCodeAsPrinted() throws {
        let plane = try Self.inkSpreadFrame("4102942380120", module: 2.2, spread: 0.7)
        let detector = try BarcodeDetector(options: DetectorOptions(locate: .auto, threads: 1))
        XCTAssertEqual(plane.withImage { detector.detect($0) }.map(\.text), ["4102942380120"])
    }
}
