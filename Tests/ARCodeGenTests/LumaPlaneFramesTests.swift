import ARCodeGen
import ARCore
import XCTest

final class LumaPlaneFramesTests: XCTestCase {
    func testI420FrameFor385x289HasRoundedUpChromaPlanes() {
        var image = LumaPlane(width: 385, height: 289, fill: 7)
        image[384, 288] = 200
        let frame = image.i420Frame()
        // Y 385·289 = 111265, U and V 193·145 = 27985 each.
        XCTAssertEqual(frame.count, 111_265 + 2 * 27_985)
        XCTAssertEqual(frame[0], 7)
        XCTAssertEqual(frame[111_264], 200, "Y plane is tightly packed: last luma byte is pixel (384, 288)")
        XCTAssertTrue(frame[111_265...].allSatisfy { $0 == 128 }, "neutral chroma")
    }

    func testRGBAAndGray8FramesArePacked() {
        var image = LumaPlane(width: 3, height: 2, fill: 1)
        image[2, 1] = 99
        XCTAssertEqual(image.gray8Frame(), [1, 1, 1, 1, 1, 99])
        let rgba = image.rgbaFrame()
        XCTAssertEqual(rgba.count, 24)
        XCTAssertEqual(Array(rgba[20..<24]), [99, 99, 99, 255])
        XCTAssertEqual(Array(image.pgmFile().prefix(11)), Array("P5\n3 2\n255\n".utf8))
    }

    func testSeededRandomIsReproducibleAndSeedDependent() {
        var a = SeededRandom(seed: 42), b = SeededRandom(seed: 42), c = SeededRandom(seed: 43)
        let sa = (0..<5).map { _ in a.next() }
        XCTAssertEqual(sa, (0..<5).map { _ in b.next() })
        XCTAssertNotEqual(sa, (0..<5).map { _ in c.next() })
        // Reference value of SplitMix64 for seed 0.
        var z = SeededRandom(seed: 0)
        XCTAssertEqual(z.next(), 0xE220_A839_7B1D_CDAF)
        for _ in 0..<1000 { XCTAssertTrue((0..<1).contains(a.nextUnit())) }
    }
}
