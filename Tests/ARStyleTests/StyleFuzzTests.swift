import ARStyle
import Foundation
import XCTest

/// splitmix64: a small generator with a fixed seed, so every run tries the same cases.
private struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// Random mutations of the example styles (pipelines/styles/): every case parses or is refused
/// with a `StyleError` with a short message; none crashes, none stalls, and a parsed style
/// evaluates hostile payloads promptly.
final class StyleFuzzTests: XCTestCase {
    /// Fragments spliced into the styles: syntax, extreme numbers, hostile regexes and long text.
    private static let fragments = [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u0000", "\\ud800", "null", "true", "-", "1e308", "-1e308", "1e999",
        "0.0000001", "16385", "[1e308, \"px\"]", "[500, \"code\"]", "\"(a+)+$\"", "\"(a|a)*$\"", "\"^(\\\\d+)*x$\"", "\"[\"",
        "\"Sans 100000\"", "\"#zzzzzz\"", "\"../../../../etc/passwd\"", "\"{data}\"", "\"{nosuch}\"", "\"é日本\"",
        "\"" + String(repeating: "k", count: 5_000) + "\"", String(repeating: "[", count: 300), "{\"type\": \"label\"}",
        "\"rules\"", "\"match\"", "\"data\"", "\"overlays\"", "\n", "\u{FEFF}",
    ]

    private static func mutate(_ text: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = text
        // Mostly one mutation; a quarter of the cases up to three.
        for _ in 0...(rng.below(4) == 0 ? rng.below(3) : 0) {
            let at = bytes.isEmpty ? 0 : rng.below(bytes.count)
            switch rng.below(9) {
            case 0: bytes.removeSubrange(at..<min(bytes.count, at + 1 + rng.below(16)))
            case 1: bytes.insert(contentsOf: Array(Self.fragments[rng.below(Self.fragments.count)].utf8), at: at)
            case 2: if !bytes.isEmpty { bytes[at] = UInt8(truncatingIfNeeded: rng.next()) }
            case 3:
                let end = min(bytes.count, at + rng.below(64))
                bytes.insert(contentsOf: Array(bytes[at..<end]), at: rng.below(bytes.count + 1))
            case 4: bytes = Array(bytes.prefix(at))
            default:
                // Replace a string with a fragment (often still valid JSON): one case in two.
                if let q = bytes[at...].firstIndex(of: UInt8(ascii: "\"")),
                   let e = bytes[(q + 1)...].firstIndex(of: UInt8(ascii: "\"")) {
                    bytes.replaceSubrange(q...e, with: Array(Self.fragments[rng.below(Self.fragments.count)].utf8))
                }
            }
        }
        return bytes
    }

    func testThousandsOfMutatedExampleStylesParseOrFailCleanlyAndPromptly() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../pipelines/styles")
            .standardized.path
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertFalse(names.isEmpty, "no example styles in \(folder)")
        let sources = try names.map { Array(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\($0)"))) }
        let payloads = ["https://shop.example/p/12345", String(repeating: "a", count: 3000) + "!",
                        String(repeating: "1", count: 9000), "../../x\u{0}.png", ""]
        let report = LockedText()
        let cases = LockedCount(), parsed = LockedCount()
        let finished = finishes(within: 60) {
            var rng = SplitMix64(state: 12)
            var problems: [String] = []
            var n = 0, good = 0
            for _ in 0..<3000 {
                let i = rng.below(sources.count)
                let text = String(decoding: Self.mutate(sources[i], &rng), as: UTF8.self)
                do {
                    let style = try Style.parse(text, file: "\(folder)/\(names[i])", baseDirectory: folder)
                    good += 1
                    for p in payloads {
                        _ = style.overlays(for: CodeInfo(symbology: "QR-Code", text: p, trackID: 1))
                    }
                } catch let e as StyleError {
                    if e.description.count > 3 * StyleError.maxCharacters {
                        problems.append("case \(n): long error (\(e.description.count) characters)")
                    }
                } catch {
                    problems.append("case \(n): not a StyleError: \(error)")
                }
                n += 1
                cases.set(n)
            }
            parsed.set(good)
            report.set(problems.prefix(5).joined(separator: "\n"))
        }
        XCTAssertTrue(finished, "stalled after \(cases.value) of 3000 cases")
        XCTAssertEqual(cases.value, 3000)
        XCTAssertEqual(report.value, "")
        // Mutations that keep the style valid exercise the rules on the payloads (a few percent of
        // the cases: most mutations break the JSON or a key).
        XCTAssertGreaterThan(parsed.value, 50, "only \(parsed.value) cases parsed")
    }
}
