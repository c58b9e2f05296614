import ARCore
import ARDetect
import ARGst
import CGStreamer
import Foundation

private let cat = DebugCategory("arbarcodedetect", description: "arbarcode barcode detector")

/// `arbarcodedetect`: decodes barcodes and QR codes in every frame with zbar and attaches one
/// GstVideoRegionOfInterestMeta per code (see `BarcodeRegion`). Pixels pass through untouched.
public final class ArBarcodeDetect: VideoFilterElement {
    public struct Settings {
        /// Comma-separated symbology names, or `all`.
        var symbologies: String? = "all"
    }

    public static let defaultSettings = Settings()

    public static let metadata = ElementMetadata(
        factoryName: "arbarcodedetect", typeName: "ArBarcodeDetect", longName: "Barcode detector",
        klass: "Filter/Analyzer/Video",
        description: "Finds barcodes and QR codes with zbar and attaches their text and corners as region-of-interest metadata",
        caps: LumaFormats.caps, writesFrame: false)

    public static let properties: [Property<Settings>] = [
        .string("symbologies", "Symbologies",
                "Comma-separated symbologies to decode, or 'all'. Known: " + Symbology.all.map(\.name).joined(separator: ", ")
                    + ". Fewer symbologies decode faster",
                \.symbologies),
    ]

    private let element: ElementHandle
    private let settings: SettingsStore<Settings>
    private var detector: CodeDetectorStage?

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    public func start() throws {
        detector = try CodeDetectorStage(symbologies: settings.snapshot.symbologies)
    }

    public func stop() {
        detector = nil
    }

    public func transform(_ frame: VideoFrame) throws {
        guard let detector else { return }
        try detector.reconfigure(symbologies: settings.snapshot.symbologies)
        let detections = detector.detect(frame)
        cat.log(.log, element.object, "frame pts \(frame.buffer.ptsNanoseconds.map(String.init) ?? "none"): \(detections.count) codes")
        frame.setBarcodeRegions(detections.map {
            BarcodeRegion(trackID: nil, symbology: $0.symbology, payload: $0.payload, quad: $0.quad, state: .detected,
                          quality: $0.quality)
        })
    }
}

/// A zbar detector configured from the `symbologies` property; shared by the detecting elements.
final class CodeDetectorStage {
    private(set) var symbologies: String?
    private var detector: BarcodeDetector

    init(symbologies: String?) throws {
        self.symbologies = symbologies
        detector = try Self.makeDetector(symbologies)
    }

    /// Rebuilds the detector when the property changed since the last frame.
    func reconfigure(symbologies: String?) throws {
        guard symbologies != self.symbologies else { return }
        detector = try Self.makeDetector(symbologies)
        self.symbologies = symbologies
    }

    func detect(_ frame: VideoFrame) -> [Detection] {
        detector.detect(frame.luma)
    }

    private static func makeDetector(_ list: String?) throws -> BarcodeDetector {
        do {
            return try BarcodeDetector(symbologies: Symbology.parseList(list ?? "all"))
        } catch let error as DetectorError {
            throw ElementError.settings("Invalid value for property 'symbologies': \(error)", debug: "symbologies=\(list ?? "")")
        }
    }
}
