@testable import ARDetect
import XCTest

final class ScanLineTests: XCTestCase {
    /// A line of blurred random bars: widths 2–13 samples, dark 30 and light 220, a 3-sample box
    /// blur and ±3 grey levels of noise.
    static func bars(seed: UInt64) -> [Double] {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        var raw: [Double] = [], dark = false
        while raw.count < 600 {
            raw += Array(repeating: dark ? 30 : 220, count: 2 + Int(next() % 12))
            dark.toggle()
        }
        return raw.indices.map { i in
            (raw[max(0, i - 1)] + raw[i] + raw[min(raw.count - 1, i + 1)]) / 3 + Double(Int(next() % 7) - 3)
        }
    }

    /// Cutting a line both ways at once gives the two lines cut one by one, to the last bit: with
    /// the line's halfway grey and with a local threshold.
    func testBothWaysEqualsEachWayCutAlone() throws {
        for seed in 1...20 as ClosedRange<UInt64> {
            let samples = Self.bars(seed: seed)
            for window in [0, 4] {
                let both = try XCTUnwrap(ScanLine.bothWays(samples, minimumSamples: 95, window: window))
                let forward = try XCTUnwrap(ScanLine(samples, minimumSamples: 95, window: window))
                let reversed = try XCTUnwrap(ScanLine(samples.reversed(), minimumSamples: 95, window: window))
                XCTAssertGreaterThan(forward.edges.count, 50)
                XCTAssertEqual(both.forward.edges, forward.edges, "seed \(seed), window \(window)")
                XCTAssertEqual(both.forward.darkAfter, forward.darkAfter)
                XCTAssertEqual(both.reversed.edges, reversed.edges, "seed \(seed), window \(window)")
                XCTAssertEqual(both.reversed.darkAfter, reversed.darkAfter)
                XCTAssertEqual(both.reversed.length, reversed.length)
            }
        }
    }

    /// A line too short or too flat is not cut either way.
    func testShortOrFlatLinesAreNotCut() {
        XCTAssertNil(ScanLine.bothWays(Self.bars(seed: 1), minimumSamples: 1000))
        XCTAssertNil(ScanLine.bothWays([Double](repeating: 100, count: 300) + [110], minimumSamples: 95))
    }
}
