import CGStreamer

/// What gst-inspect shows about an element, and the shape of its pads.
public struct ElementMetadata: Sendable {
    /// Factory name used in pipelines, e.g. `arbarcodedetect`.
    public var factoryName: String
    /// GType name, e.g. `ArBarcodeDetect`.
    public var typeName: String
    public var longName: String
    /// Element class, e.g. `Filter/Analyzer/Video`.
    public var klass: String
    public var description: String
    public var author: String
    /// Rank for autoplugging; `GST_RANK_NONE` (0) for filters users place by name.
    public var rank: UInt32
    /// Caps of the sink pad template (a caps string).
    public var sinkCaps: String
    /// Caps of the source pad template (a caps string).
    public var srcCaps: String
    /// Whether `transform` draws into the frame (mapped read-write) or only reads it.
    public var writesFrame: Bool

    public init(factoryName: String, typeName: String, longName: String, klass: String,
                description: String, author: String = "arbarcode developers", rank: UInt32 = 0,
                caps: String, writesFrame: Bool) {
        self.factoryName = factoryName
        self.typeName = typeName
        self.longName = longName
        self.klass = klass
        self.description = description
        self.author = author
        self.rank = rank
        self.sinkCaps = caps
        self.srcCaps = caps
        self.writesFrame = writesFrame
    }

    /// Raw video caps for the given format names, widths and heights in `sizes` (pixels; default any
    /// size GStreamer allows) and any frame rate.
    public static func rawVideoCaps(_ formats: [String], sizes: ClosedRange<Int> = 1...32767) -> String {
        let range = "(int)[ \(sizes.lowerBound), \(sizes.upperBound) ]"
        return "video/x-raw, format=(string){ \(formats.joined(separator: ", ")) }, width=\(range), height=\(range), framerate=(fraction)[ 0/1, 2147483647/1 ]"
    }
}
