import ARCodeGen
import ARCore
import ARDetect
import ARGst
import ARVision
import CGStreamer
import Foundation

private let cat = DebugCategory("arbarcodedetect", description: "arbarcode barcode detector")

/// `arbarcodedetect`: decodes barcodes and QR codes in every frame with zbar (plus extra passes on
/// code-like regions zbar left unread) and attaches one GstVideoRegionOfInterestMeta per code (see
/// `BarcodeRegion`). Optionally posts one element message per frame with codes. Pixels pass
/// through untouched.
public final class ArBarcodeDetect: VideoFilterElement {
    public struct Settings: Sendable {
        /// Comma-separated symbology names, or `all`.
        var symbologies: String? = "all"
        /// Post a `barcode` element message per frame with codes.
        var message = false
        var options = DetectorOptions(threads: 0)
        /// Agreeing scan lines a 1D reading needs to be reported.
        var confirm = 2
        /// Seconds between stats messages (0 = none).
        var statsInterval = 0.0
    }

    public static let defaultSettings = Settings()

    public static let metadata = ElementMetadata(
        factoryName: "arbarcodedetect", typeName: "ArBarcodeDetect", longName: "Barcode detector",
        klass: "Filter/Analyzer/Video",
        description: "Finds barcodes and QR codes with zbar and attaches their text and corners as region-of-interest metadata",
        caps: LumaFormats.caps, writesFrame: false)

    public static let properties: [Property<Settings>] = CodeDetectorStage.properties(\.options) + [
        .string("symbologies", "Symbologies",
                "Comma-separated symbologies to decode, or 'all' (every one except isbn10, isbn13, ean2, ean5, which "
                    + "must be named, e.g. 'all,isbn13'). Known: " + Symbology.all.map(\.name).joined(separator: ", ")
                    + ". Fewer symbologies decode faster",
                \.symbologies),
        .bool("message", "Message",
              "Post one element message 'barcode' per frame with codes: the stock zbar element's fields (type, symbol, "
                  + "quality, timestamp, stream-time, running-time, duration) for the first code, its quad, and a "
                  + "'symbols' list with every code",
              \.message),
        .bool("sharpen", "Sharpen blurred regions",
              "Retry regions sharpened across the bars (codes blurred by motion or focus)", \.options.sharpen),
        .uint("confirm", "Confirm 1D readings",
              "Scan lines that must agree on a 1D reading before it is reported (2D codes carry error correction and need "
                  + "one). 1 reports single-line readings, which include misreads of blurred codes", \.confirm, range: 1...8),
        .uint("scan-density", "Scan density",
              "zbar scan-line spacing on the whole frame, pixels (1 = every row and column). 2 halves the scan cost "
                  + "and misses 1D codes thinner than about 2 lines",
              \.options.scanDensity, range: 1...16),
        .uint("max-regions", "Maximum regions",
              "Most code-like regions per frame that the whole-frame scan left unread and that get the extra passes "
                  + "below (0 = zbar's scan only). Each costs a few zbar scans of that region",
              \.options.maxRegions, range: 0...64),
        .bool("rotate", "Rotate 1D regions",
              "Turn 1D regions so their bars are upright before scanning (zbar reads only rows and columns)",
              \.options.rotate),
        .bool("upscale", "Upscale small regions",
              "Retry at twice the size: a located 1D region's strip at 6 px per module instead of 3, and (locate=full) a region whose shorter side is at most 400 px (small codes)",
              \.options.upscale),
        .bool("downscale", "Downscale large regions",
              "Retry regions whose shorter side is at least 100 px at half the size (large or blurred codes)",
              \.options.downscale),
        .bool("invert", "Inverted codes",
              "Retry regions with light and dark swapped (light-on-dark codes); a located region only where its quiet margin is darker than the code",
              \.options.invert),
        .bool("contrast", "Stretch contrast",
              "Stretch the grey levels of low-contrast regions before scanning them", \.options.contrast),
        ElementStats.property(\.statsInterval),
    ]

    /// One run's state: made in `start`, dropped in `stop`.
    private final class State {
        let detector: CodeDetectorStage
        /// The stream's segment, for the running times in messages.
        var segment = GstSegment()

        init(detector: CodeDetectorStage) {
            self.detector = detector
            gst_segment_init(&segment, timeFormat)
        }
    }

    private let element: ElementHandle
    private let settings: SettingsStore<Settings>
    private var state: State?
    private let outlines = CodeOutlines()
    private let stats = ElementStats()

    public init(element: ElementHandle, settings: SettingsStore<Settings>) {
        self.element = element
        self.settings = settings
    }

    public func start() throws {
        let s = settings.snapshot
        state = State(detector: try CodeDetectorStage(symbologies: s.symbologies, options: s.options))
        state?.detector.warmUp()
        stats.reset()
    }

    public func setInfo(_ info: VideoInfo) throws {
        if let d = info.frameDurationNanoseconds { stats.frameDurationNanoseconds = d }
        // New caps: the memory of places starts afresh, as after a flush.
        state?.detector.reset()
    }

    public func stop() {
        state = nil
    }

    public func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) -> Bool {
        if event.isFlushStop {
            state?.detector.reset()
            stats.reset()
        }
        if event.typeName == "segment" {
            var parsed: UnsafePointer<GstSegment>?
            gst_event_parse_segment(event, &parsed)
            if let parsed { state?.segment = parsed.pointee }
        }
        return true
    }

    public func transform(_ frame: VideoFrame) throws {
        guard let state else { return }
        let detector = state.detector
        stats.begin()
        let s = settings.snapshot
        try detector.reconfigure(symbologies: s.symbologies, options: s.options)
        let result = detector.scan(frame, outlines: outlines)
        let detections = result.codes.filter { $0.quality >= s.confirm || Detection.isSelfChecking(symbology: $0.symbology) }
        cat.log(.log, element.object, "frame pts \(frame.buffer.ptsNanoseconds.map(String.init) ?? "none"): \(detections.count) codes, \(result.located.count) located")
        frame.setBarcodeRegions(detections.map {
            var r = BarcodeRegion(trackID: nil, symbology: $0.symbology, payload: $0.payload, quad: $0.quad, state: .detected,
                                  quality: $0.quality)
            r.outlineComplete = $0.outlineComplete
            r.atFrameEdge = $0.atFrameEdge
            return r
        } + ArBarcodeTrack.regions(result.located))
        if s.message, !detections.isEmpty {
            element.postElementMessage(DetectMessage.structure(detections, buffer: frame.buffer, segment: &state.segment))
        }
        // Every frame is one decode here.
        stats.end(frame, intervalSeconds: s.statsInterval, decodeMilliseconds: stats.elapsedMilliseconds,
                  counts: [("codes", detections.count), ("located", result.located.count)], element: element)
    }
}

/// A detector configured from the element properties (errors name the property); shared by the
/// detecting elements.
final class CodeDetectorStage {
    /// Where and on how many threads decoding runs: properties of every element that decodes, whose
    /// settings hold the options at `path`.
    static func properties<S>(_ path: WritableKeyPath<S, DetectorOptions>) -> [Property<S>] {
        [
            .enumeration("locate", "Locate",
                         "Where zbar decodes: 'regions' (only the code-like regions a localizer finds, each turned upright and "
                             + "resampled: cost grows with the codes, not the pixels), 'full' (the whole frame, then extra passes "
                             + "on code-like regions it left unread) or 'auto' (regions, then the whole frame on frames where a "
                             + "verified code-like region or the whole frame stayed unread, at most every 15th frame)",
                         typeName: "ArLocateMode", path.appending(path: \.locate)),
            .uint("threads", "Threads",
                  "Threads decoding regions at once, the streaming thread included (0 = one per core). The output does not "
                      + "depend on it", path.appending(path: \.threads), range: 0...64),
            .uint("quiet-frames", "Quiet frames",
                  "Video, locate=regions: frames an unverified code-like region that no pass read (texture, a picture "
                      + "without a code) is left alone while it stays in place, then measured and tried again (0 = every "
                      + "frame measures everything)", path.appending(path: \.quietFrames), range: 0...30),
            .uint("retry-passes-every", "Retry passes every",
                  "Video: a code-like region that no pass read on 2 or more frames in a row at the same place (texture, a "
                      + "code out of reach) gets the first pass only, and every pass (sharpened, inverted, other scales) on one "
                      + "such frame in this many; a tracked QR code unread on 6 frames in a row, and a blob of texture unread "
                      + "before, is decoded on one frame in this many only, and a blob around a tracked code (for a code "
                      + "beside it) on one frame in twice this many, for 2D codes with the first pass; "
                      + "a region that reads keeps every pass (0 = every pass on every frame)",
                  path.appending(path: \.retryPassesEvery), range: 0...30),
            .uint("fuse-frames", "Fuse frames",
                  "Video: a verified 1D code-like region that no pass read is decoded again from its strips of up to this many "
                      + "frames, aligned along the bars and averaged (noise and compression average out; 0 or 1 = off)",
                  path.appending(path: \.fuseFrames), range: 0...8),
            .bool("deblur", "Deblur 1D codes",
                  "Retry a 1D code-like region that no other pass read with motion blur across its bars undone: the blur's "
                      + "length (1.2 to 8 modules) measured from the region's own pixels, then deconvolved",
                  path.appending(path: \.deblur)),
        ]
    }

    private(set) var symbologies: String?
    private var detector: BarcodeDetector
    /// Luma derived from formats without a luma plane (packed YUV, RGB), reused across frames.
    private var scratch = LumaPlane(width: 1, height: 1)

    init(symbologies: String?, options: DetectorOptions = DetectorOptions()) throws {
        self.symbologies = symbologies
        detector = try Self.makeDetector(symbologies, options: options)
    }

    /// Rebuilds the detector when the symbologies changed; applies `options`.
    func reconfigure(symbologies: String?, options: DetectorOptions) throws {
        if symbologies != self.symbologies {
            detector = try Self.makeDetector(symbologies, options: options)
            self.symbologies = symbologies
        } else if detector.options != options {
            detector.options = options
        }
    }

    /// Every code in `frame`, corners in its pixels.
    func detect(_ frame: VideoFrame) -> [Detection] {
        scan(frame).codes
    }

    /// Every code in `frame` and the verified code-like regions no pass read.
    func scan(_ frame: VideoFrame) -> DetectorResult {
        frame.withLuma(scratch: &scratch) { detector.scan($0) }
    }

    /// `scan(frame)` with 1D outlines fitted edge by edge and partial ones marked (`CodeOutlines`),
    /// as `arbarcodetrack` fits them.
    func scan(_ frame: VideoFrame, outlines: CodeOutlines) -> DetectorResult {
        frame.withLuma(scratch: &scratch) { luma in
            var result = detector.scan(luma)
            result.codes = outlines.refined(result.codes, in: luma, forEach: detector.forEach)
            return result
        }
    }

    /// Every code in `luma` but those of `skipping` (tracked codes), and the verified regions no
    /// pass read; and `detect(luma, in: regions, kinds:)` at once, decoded in the same batches.
    /// `early`: codes handed over as regions are read, before the scan ends (`BarcodeDetector.scan`).
    func scan(_ luma: LumaImage, skipping: [KnownCode], expecting regions: [Quad], kinds: [LocatedRegion.Kind], halvings: [LumaPlane] = [],
              early: EarlyHandOver? = nil) -> (result: DetectorResult, expected: [Detection]) {
        detector.scan(luma, skipping: skipping, expecting: regions, kinds: kinds, halvings: halvings, early: early)
    }

    /// Calls `body(i)` for every `i` in `0..<count` on the decoding threads; each call writes only its own result.
    func forEach(_ count: Int, _ body: @escaping (Int) -> Void) {
        detector.forEach(count, body)
    }

    /// The tracked codes expected at `regions` (frame pixels) of `kinds`: much cheaper than a whole scan.
    func detect(_ luma: LumaImage, in regions: [Quad], kinds: [LocatedRegion.Kind]) -> [Detection] {
        detector.detect(luma, in: regions, kinds: kinds)
    }

    /// Forgets every frame seen (`BarcodeDetector.reset`): for a flush, a seek or new caps.
    func reset() {
        detector.reset()
    }

    /// Scans `warmUpFrame`, then forgets it (`reset`): the detector's threads and code paths are
    /// ready before the first frame, and its memory is as new. Without a warm-up a pipeline's first
    /// locate of a 1080p frame took 6.8 ms, the same frame's next 3.9 ms. Elements call it when they
    /// start, off the streaming thread; it takes 3–4 ms.
    func warmUp() {
        Self.warmUpFrame().withImage { _ = detector.scan($0) }
        detector.reset()
    }

    /// A 320 × 160 frame of grain with a QR code and an EAN-13 code on it, for `warmUp`.
    static func warmUpFrame() -> LumaPlane {
        var plane = LumaPlane(width: 320, height: 160)
        for i in plane.pixels.indices { plane.pixels[i] = UInt8(150 + i * 7919 % 61) }
        let renderer = CodeRenderer()
        _ = try? renderer.render(try CodeMatrix.qr(text: "WARM-UP"), placement: CodePlacement(center: Point(x: 80, y: 80), moduleSize: 3),
                                 into: &plane)
        _ = try? renderer.render(try CodeMatrix.ean13("590123412345"),
                                 placement: CodePlacement(center: Point(x: 230, y: 80), moduleSize: 1, barHeight: 50), into: &plane)
        return plane
    }

    private static func makeDetector(_ list: String?, options: DetectorOptions) throws -> BarcodeDetector {
        do {
            return try BarcodeDetector(symbologies: Symbology.parseList(list ?? "all"), options: options)
        } catch let error as DetectorError {
            throw ElementError.settings("Invalid value for property 'symbologies': \(error)", debug: "symbologies=\(list ?? "")")
        }
    }
}

extension LocateMode: PropertyEnum {
    public static var allCases: [LocateMode] { [.auto, .regions, .full] }
    public var nick: String { ["auto", "regions", "full"][Int(rawValue)] }
    public var label: String {
        ["Regions, then the whole frame when a found region or the frame stayed unread (at most every 15th frame)",
         "Decode only the code-like regions a localizer finds", "Scan the whole frame, then the unread regions"][Int(rawValue)]
    }
}
