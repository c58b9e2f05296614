import ARCodeGen
import ARCore
import ARDetect
import XCTest

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
