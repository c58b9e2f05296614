import ARCore
import ARDetect
import ARGst
import Foundation

/// zbar decoding for the tracker: the whole frame, or only around the places where tracks are
/// expected (cheap re-decodes between full scans). Not thread-safe: one per thread.
final class TrackDecoder {
    private(set) var symbologies: String?
    private var detector: BarcodeDetector

    /// Throws a settings error naming the property when `symbologies` is invalid.
    init(symbologies: String?) throws {
        self.symbologies = symbologies
        detector = try Self.makeDetector(symbologies)
    }

    /// Rebuilds the detector when the property changed.
    func reconfigure(symbologies: String?) throws {
        guard symbologies != self.symbologies else { return }
        detector = try Self.makeDetector(symbologies)
        self.symbologies = symbologies
    }

    /// Every code in `luma`.
    func full(_ luma: LumaImage) -> [Detection] {
        detector.detect(luma)
    }

    /// The codes inside each of `regions` (frame pixels) grown by a third of its size and 8 pixels,
    /// corners in frame pixels.
    func regions(_ luma: LumaImage, _ regions: [Quad]) -> [Detection] {
        var out: [Detection] = []
        for quad in regions {
            let box = quad.boundingBox
            let grown = box.insetBy(max(box.width, box.height) / 3 + 8).intersection(
                Rect(x: 0, y: 0, width: Double(luma.width), height: Double(luma.height))).integral
            let x = Int(grown.minX), y = Int(grown.minY)
            let w = min(Int(grown.width), luma.width - x), h = min(Int(grown.height), luma.height - y)
            guard w >= 16, h >= 16 else { continue }
            let sub = LumaImage(base: luma.base + y * luma.stride + x, width: w, height: h, stride: luma.stride)
            for var d in detector.detect(sub) {
                d.quad = d.quad.translated(dx: Double(x), dy: Double(y))
                if !out.contains(where: { $0.payload == d.payload && $0.quad.center.distance(to: d.quad.center) < d.quad.meanSide / 4 }) {
                    out.append(d)
                }
            }
        }
        return out
    }

    private static func makeDetector(_ list: String?) throws -> BarcodeDetector {
        do {
            return try BarcodeDetector(symbologies: Symbology.parseList(list ?? "all"))
        } catch let error as DetectorError {
            throw ElementError.settings("Invalid value for property 'symbologies': \(error)", debug: "symbologies=\(list ?? "")")
        }
    }
}
