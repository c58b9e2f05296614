import ARCodeGen
import ARCore
import Foundation
import XCTest

final class ZZScratchTests: XCTestCase {
    func testWriteScratchPGMs() throws {
        func write(_ name: String, _ m: CodeMatrix, _ p: CodePlacement, w: Int = 400, h: Int = 300) throws {
            var img = try GrayImage(width: w, height: h, fill: 128)
            try CodeRenderer().render(m, placement: p, into: &img)
            FileManager.default.createFile(atPath: "/tmp/cg_\(name).pgm", contents: Data(img.pgmFile()))
        }
        let c = Point(x: 200, y: 150)
        try write("qr", .qr(text: "HELLO ARBARCODE"), CodePlacement(center: c, moduleSize: 4))
        try write("qr30", .qr(text: "HELLO ARBARCODE"), CodePlacement(center: c, moduleSize: 4, rotationDegrees: 30))
        try write("qr30p", .qr(text: "https://shop.example/p/1001"), CodePlacement(center: c, moduleSize: 3.3, rotationDegrees: 30, perspective: 0.25))
        try write("qrbin", .qr([0, 1, 2, 200, 255]), CodePlacement(center: c, moduleSize: 4))
        try write("ean", .ean13("4006381333931"), CodePlacement(center: c, moduleSize: 2, barHeight: 60))
        try write("ean10", .ean13("5901234123457"), CodePlacement(center: c, moduleSize: 2, rotationDegrees: 10, barHeight: 60))
        try write("c128", .code128("ARB-128-DEMO"), CodePlacement(center: c, moduleSize: 1.5, barHeight: 50))
        try write("c128r", .code128("ARB-128-DEMO"), CodePlacement(center: c, moduleSize: 2, rotationDegrees: -7, barHeight: 50))
        for (i, (r, pp, ms)) in [(30.0, 0.0, 3.3), (0, 0.25, 3.3), (30, 0.1, 3.3), (30, 0.25, 4), (0, 0.15, 4), (45, 0, 3)].enumerated() {
            try write("qrv\(i)", .qr(text: "https://shop.example/p/1001"), CodePlacement(center: c, moduleSize: ms, rotationDegrees: r, perspective: pp))
        }
        let all = (32...126).map { Character(Unicode.Scalar(UInt8($0))) }
        for k in 0..<4 {
            let text = String(all[(k * 24)..<min(all.count, k * 24 + 24)])
            try write("c128_\(k)", .code128(text), CodePlacement(center: Point(x: 400, y: 100), moduleSize: 2, barHeight: 60), w: 800, h: 200)
            FileManager.default.createFile(atPath: "/tmp/cg_c128_\(k).txt", contents: Data(text.utf8))
        }
    }
}
