import ARCore
import ARVision
import XCTest

final class PyramidSparesTests: XCTestCase {
    private static let (width, height) = (64, 64)

    /// A frame's pixels: every byte `value`.
    private static func frame(_ value: UInt8) -> [UInt8] { [UInt8](repeating: value, count: width * height) }

    private static func address(_ p: LumaPyramid) -> UInt {
        p.levels[0].pixels.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    /// The tracking stage's cycle (a frame's pyramid; the previous one recycled at the frame's end),
    /// with an async job on every third frame that reads its frame's pyramid for three frames (so
    /// on the job's third frame the newest spare is the job's): every frame is written into one of
    /// the three prepared buffers (none allocated, none copied first), never into the job's.
    func testAStreamWritesIntoPreparedBuffersAndPassesOverTheOneAJobReads() {
        var spares = PyramidSpares(capacity: 2)
        spares.prepare(width: Self.width, height: Self.height, levelCount: 3)
        var buffers: Set<UInt> = []
        var previous: LumaPyramid?
        var job: (pyramid: LumaPyramid, until: Int)?
        for i in 0..<12 {
            if let j = job, j.until <= i { job = nil }
            let current = Self.frame(UInt8(i + 1)).withUnsafeBytes {
                spares.pyramid(copying: $0.baseAddress!, width: Self.width, height: Self.height, stride: Self.width,
                               levelCount: 3, lent: job?.pyramid)
            }
            buffers.insert(Self.address(current))
            XCTAssertLessThanOrEqual(buffers.count, 3, "frame \(i): a fourth buffer")
            XCTAssertEqual(current.levels[0].pixels, Self.frame(UInt8(i + 1)), "frame \(i)")
            XCTAssertEqual(current.levels[2].pixels, [UInt8](repeating: UInt8(i + 1), count: 16 * 16), "frame \(i)")
            if job == nil { job = (current, i + 3) }
            if let previous { spares.recycle(previous) }
            previous = current
        }
        XCTAssertEqual(buffers.count, 3)
    }

    /// Spares are made without reducing one level into the next, and are the same pyramids: the
    /// same level sizes (odd sizes rounded down, stopping under 16 pixels) and zeros throughout.
    func testAPyramidOfZerosIsTheReducedPlaneOfZeros() {
        for (w, h, levels) in [(3840, 2160, 4), (67, 35, 8), (40, 40, 1), (40, 40, 0), (20, 300, 3)] {
            let made = LumaPyramid(zerosWidth: w, height: h, levelCount: levels)
            let reduced = LumaPyramid(LumaPlane(width: w, height: h), levelCount: levels)
            XCTAssertEqual(made.levels, reduced.levels, "\(w)x\(h), \(levels) levels")
        }
        XCTAssertEqual(LumaPyramid(zerosWidth: 67, height: 35, levelCount: 8).levels.map(\.width), [67, 33])
    }

    /// After a size change the spares of the old size are dropped and the stream writes into the
    /// pyramids prepared for the new one.
    func testAfterASizeChangeTheStreamWritesIntoThePyramidsPreparedForTheNewSize() {
        var spares = PyramidSpares(capacity: 2)
        spares.recycle(LumaPyramid(LumaPlane(width: 32, height: 32), levelCount: 2))
        spares.prepare(width: Self.width, height: Self.height, levelCount: 2)
        XCTAssertEqual(spares.count, 3)
        let p = Self.frame(5).withUnsafeBytes {
            spares.pyramid(copying: $0.baseAddress!, width: Self.width, height: Self.height, stride: Self.width, levelCount: 2)
        }
        XCTAssertEqual(p.levels[0].pixels, Self.frame(5))
        // Written into one of the three prepared: two left.
        XCTAssertEqual(spares.count, 2)
        // A spare of an old size left behind is dropped, not written into.
        spares.recycle(LumaPyramid(LumaPlane(width: 32, height: 32), levelCount: 2))
        _ = Self.frame(6).withUnsafeBytes {
            spares.pyramid(copying: $0.baseAddress!, width: Self.width, height: Self.height, stride: Self.width, levelCount: 2)
        }
        XCTAssertEqual(spares.count, 0)
    }

    func testRecyclingPastTheCapacityDropsTheOldest() {
        var spares = PyramidSpares(capacity: 2)
        var addresses: [UInt] = []
        do {
            let pyramids = (1...3).map { v in LumaPyramid(LumaPlane(width: 8, height: 8, fill: UInt8(v)), levelCount: 1) }
            addresses = pyramids.map(Self.address)
            for p in pyramids { spares.recycle(p) }
        }
        XCTAssertEqual(spares.count, 2)
        // The newest first: the third, then the second (the first was dropped).
        let taken = (0..<2).map { _ in
            [UInt8](repeating: 5, count: 64).withUnsafeBytes {
                spares.pyramid(copying: $0.baseAddress!, width: 8, height: 8, stride: 8, levelCount: 1)
            }
        }
        XCTAssertEqual(taken.map(Self.address), [addresses[2], addresses[1]])
        XCTAssertEqual(spares.count, 0)
    }

    func testNothingIsPreparedWhenTheNewestSpareHasTheSize() {
        var spares = PyramidSpares(capacity: 2)
        spares.recycle(LumaPyramid(LumaPlane(width: Self.width, height: Self.height), levelCount: 2))
        spares.prepare(width: Self.width, height: Self.height, levelCount: 2)
        XCTAssertEqual(spares.count, 1)
        spares.prepare(width: 32, height: 32, levelCount: 2)
        XCTAssertEqual(spares.count, 3)
    }
}
