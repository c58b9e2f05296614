import ARCore
import XCTest
@testable import ARCodeGen

/// Photo cards in `CodeClip` and the helpers that prepare them (`ClipPhoto`, `CardRenderer`).
final class CodeClipPhotoTests: XCTestCase {
    private let options = CodeClipOptions(width: 320, height: 240, seed: 3, codeCount: 2, kinds: [.qr], speed: 0.1,
                                          enterLeave: false, twins: false, noise: 0)

    /// A "photo" of a QR code holding `text` on a light card.
    private func qrPhoto(_ text: String) throws -> ClipPhoto {
        var image = try LumaPlane(validatingWidth: 120, height: 90, fill: 200)
        try CodeRenderer().render(try CodeMatrix.qr(text: text), placement: CodePlacement(center: Point(x: 60, y: 45), moduleSize: 3),
                                  into: &image)
        return ClipPhoto(image: image, payload: Array(text.utf8), symbology: "QR-Code", name: "qr.png")
    }

    /// A photo without a code: dark stripes.
    private func distractor() throws -> ClipPhoto {
        var image = try LumaPlane(validatingWidth: 100, height: 100, fill: 230)
        for y in 0..<100 { for x in 0..<100 where (x / 7) % 2 == 0 { image[x, y] = 30 } }
        return ClipPhoto(image: image, payload: nil, name: "stripes.png")
    }

    func testPhotoCardsCarryTheirTextAndACardOutlineAndDistractorsNoTruth() throws {
        let clip = try CodeClip(options, photos: [try qrPhoto("PHOTO CARD 1"), try distractor()])
        let withoutPhotos = try CodeClip(options)
        for index in [0, 10, 20] {
            let (image, truth) = clip.frame(at: index)
            XCTAssertTrue(image != withoutPhotos.frame(at: index).image, "the cards should be drawn")
            let cards = truth.filter { $0.outline == .card }
            XCTAssertEqual(cards.map(\.index), [2], "frame \(index)")
            XCTAssertEqual(cards.first.map { String(decoding: $0.payload, as: UTF8.self) }, "PHOTO CARD 1")
            XCTAssertEqual(cards.first?.symbology, "QR-Code")
            XCTAssertFalse(truth.contains { $0.index == 3 }, "the distractor has no truth")
            // The card's quad is 35 % of the frame height tall (scale changes by ±10 %).
            let height = try XCTUnwrap(cards.first?.quad).corners[0].distance(to: try XCTUnwrap(cards.first?.quad).corners[3])
            XCTAssertEqual(height, 0.35 * 240, accuracy: 0.1 * 0.35 * 240 + 1)

            let line = clip.truthLine(frame: index, truth: truth, ptsNanoseconds: 0)
            let record = try FrameRecord(jsonLine: line)
            XCTAssertEqual(record.objects.map(\.id), truth.map { UInt64($0.index + 1) })
            XCTAssertEqual(line.components(separatedBy: "\"outline\":\"card\"").count - 1, 1, line)
            XCTAssertTrue(line.contains("\"data\":\"PHOTO CARD 1\",\"quad\""), line)
        }
    }

    func testDistractorsAreDrawnButGetNoTruth() throws {
        let clip = try CodeClip(options, photos: [try distractor()]), plain = try CodeClip(options)
        let (image, truth) = clip.frame(at: 5)
        XCTAssertTrue(image != plain.frame(at: 5).image, "the distractor card should be drawn")
        XCTAssertEqual(truth.map(\.index), [0, 1])
        XCTAssertTrue(truth.allSatisfy { $0.outline == .exact })
    }

    func testGeneratedCodesKeepTheirExactTruthLines() throws {
        let clip = try CodeClip(options)
        let (_, truth) = clip.frame(at: 4)
        XCTAssertEqual(clip.truthLine(frame: 4, truth: truth, ptsNanoseconds: 7),
                       clip.truthRecord(frame: 4, truth: truth, ptsNanoseconds: 7).jsonLine())
        XCTAssertTrue(truth.allSatisfy { $0.outline == .exact })
    }

    func testCardDrawsThePhotoInsideItsQuad() throws {
        var image = try LumaPlane(validatingWidth: 200, height: 200, fill: 128)
        let photo = try LumaPlane(validatingWidth: 40, height: 20, fill: 10)
        let quad = CardRenderer.render(photo, center: Point(x: 100, y: 100), scale: 2, rotationDegrees: 0, into: &image)
        XCTAssertEqual(quad.topLeft, Point(x: 60, y: 80))
        XCTAssertEqual(quad.bottomRight, Point(x: 140, y: 120))
        XCTAssertEqual(image[61, 81], 10)
        XCTAssertEqual(image[138, 118], 10)
        XCTAssertEqual(image[58, 100], 128)
        XCTAssertEqual(image[100, 121], 128)
    }

    func testTextPayloadsUseNewlinesAndFolderNamesGiveSymbologies() {
        XCTAssertEqual(ClipPhoto.payload(text: Array("A\r\nB\rC\n".utf8)), Array("A\nB\rC\n".utf8))
        XCTAssertEqual(ClipPhoto.symbology(forFolder: "qrcode-2"), "QR-Code")
        XCTAssertEqual(ClipPhoto.symbology(forFolder: "ean13-1"), "EAN-13")
        XCTAssertEqual(ClipPhoto.symbology(forFolder: "code128"), "CODE-128")
        XCTAssertEqual(ClipPhoto.symbology(forFolder: "holiday"), "photo")
        XCTAssertTrue(ClipPhoto.isDistractorFolder("falsepositives-1"))
        XCTAssertFalse(ClipPhoto.isDistractorFolder("qrcode-1"))
    }

    func testPhotoChoiceDependsOnlyOnTheSeed() {
        let a = ClipPhoto.choose(5, of: 20, seed: 9, stream: 0)
        XCTAssertEqual(a, ClipPhoto.choose(5, of: 20, seed: 9, stream: 0))
        XCTAssertEqual(Set(a).count, 5)
        XCTAssertNotEqual(a, ClipPhoto.choose(5, of: 20, seed: 10, stream: 0))
        XCTAssertEqual(ClipPhoto.choose(3, of: 2, seed: 1, stream: 0).count, 3)
        XCTAssertEqual(ClipPhoto.choose(3, of: 0, seed: 1, stream: 0), [])
    }
}
