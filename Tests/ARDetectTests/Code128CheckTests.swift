import ARCodeGen
import ARCore
@testable import ARDetect
import XCTest

final class Code128CheckTests: XCTestCase {
    /// Code Set B symbol values for `bytes` (start, data, checksum; no stop): FNC4 before each
    /// byte of the upper half.
    static func values(_ bytes: [UInt8]) -> [Int] {
        var values = [Code128Patterns.startB]
        for b in bytes {
            if b >= 128 { values.append(100) }
            values.append(Int(b & 127) - 32)
        }
        return withChecksum(values)
    }

    static func withChecksum(_ values: [Int]) -> [Int] {
        values + [values.enumerated().map { max(1, $0.offset) * $0.element }.reduce(0, +) % 103]
    }

    /// The code of `values` (start to checksum) with its stop, as a matrix to draw.
    static func matrix(_ values: [Int]) throws -> CodeMatrix {
        try CodeMatrix(linearWidths: (values + [Code128Patterns.stop]).flatMap { Code128Patterns.widths[$0] }, symbology: "CODE-128")
    }

    /// One scan line across `values`' code: `module` samples a module, 12 light modules each side. Dark 30, light 220.
    static func line(_ values: [Int], module: Int = 3) throws -> [Double] {
        let code = try matrix(values)
        return Array(repeating: 220, count: 12 * module)
            + (0..<code.width).flatMap { Array(repeating: code.isDark(x: $0, y: 0) ? 30.0 : 220.0, count: module) }
            + Array(repeating: 220, count: 12 * module)
    }

    func testALineIsReadToItsValues() throws {
        let values = Self.values([0xF3, 0xF3, 0x31, 0x32])  // "óó12" in ISO 8859-1
        XCTAssertEqual(Code128Check.read(try Self.line(values)), [values])
        XCTAssertEqual(Code128Check.read(try Self.line(values).reversed()), [])
        // A wrong checksum reads nothing.
        var wrong = values
        wrong[wrong.count - 1] = (wrong[wrong.count - 1] + 1) % 103
        XCTAssertEqual(Code128Check.read(try Self.line(wrong)), [])
    }

    /// FNC4 once adds 128 to the next character; twice in a row switches that on until twice more,
    /// and once within sets the next character back.
    func testFNC4ReadsTheUpperHalf() throws {
        let a = 65 - 32, b = 66 - 32, c = 67 - 32, fnc4 = 100
        let once = Code128Check.bytes(Self.withChecksum([Code128Patterns.startB, fnc4, a, b]))
        XCTAssertEqual(once.bytes, [0xC1, 0x42])
        XCTAssertTrue(once.fnc4)
        let latched = Code128Check.bytes(Self.withChecksum([Code128Patterns.startB, fnc4, fnc4, a, fnc4, b, c, fnc4, fnc4, a]))
        XCTAssertEqual(latched.bytes, [0xC1, 0x42, 0xC3, 0x41])
        // Code Set A's FNC4 is 101; Code Set C's digits; no FNC4, no commands.
        XCTAssertEqual(Code128Check.bytes(Self.withChecksum([Code128Patterns.startA, 101, a])).bytes, [0xC1])
        let plain = Code128Check.bytes(Self.withChecksum([Code128Patterns.startC, 12, 34, 100, a]))
        XCTAssertEqual(plain.bytes, Array("1234A".utf8))
        XCTAssertFalse(plain.fnc4)
        XCTAssertFalse(plain.commands)
        XCTAssertTrue(Code128Check.bytes(Self.withChecksum([Code128Patterns.startC, 102, 12])).commands)
    }

    /// A frame holding the code of `values`, and its outline.
    private func scene(_ values: [Int]) throws -> DetectScene {
        var scene = try DetectScene(width: 360, height: 120)
        try scene.add(try Self.matrix(values), x: 180, y: 60, module: 2, barHeight: 60)
        return scene
    }

    /// zbar reads a code with FNC4 without it ("ó" as "s"); the detector reports its text.
    func testTheDetectorReadsFNC4() throws {
        let text: [UInt8] = [0xF3, 0xF3, 0x31, 0x32, 0x61, 0xF3]  // "óó12aó" in ISO 8859-1
        let scene = try scene(Self.values(text))
        let detector = try BarcodeDetector(symbologies: Symbology.parseList("code128"), options: DetectorOptions(threads: 1))
        XCTAssertEqual(scene.detect(detector).map(\.payload), [text])
        XCTAssertEqual(scene.detect(detector).map(\.text), ["óó12aó"])
    }

    /// A reading without FNC4 stays as it is; one with FNC4 and a command this check does not
    /// write is dropped.
    func testReadingsWithoutFNC4StayAndThoseWithCommandsAreDropped() throws {
        let plain = try scene(Self.values(Array("AB12".utf8)))
        let reading = Detection(symbology: "CODE-128", text: "AB12", quad: try XCTUnwrap(plain.truth.first), quality: 3)
        XCTAssertEqual(plain.image.withImage { Code128Check.checked(reading, in: $0) }, reading)
        // FNC1 (GS1) with FNC4.
        let gs1 = try scene(Self.withChecksum([Code128Patterns.startB, 102, 100, 65 - 32, 66 - 32]))
        let gs1Reading = Detection(symbology: "CODE-128", text: "AB", quad: try XCTUnwrap(gs1.truth.first), quality: 3)
        XCTAssertNil(gs1.image.withImage { Code128Check.checked(gs1Reading, in: $0) })
    }
}
