/// Where the detector decodes (`locate`), on how many threads, and which passes it tries on a
/// region (each only until one reads).
public struct DetectorOptions: Equatable, Sendable {
    /// `regions`: the localizer (`CodeLocator`) finds code-like regions and only those are decoded,
    /// each turned upright and resampled: the cost grows with the codes, not the pixels. `full`: zbar
    /// scans the whole frame, then the extra passes run on regions it left unread. `auto` (default):
    /// `regions`, then `full` on frames where a verified region stayed unread or nothing was read, at
    /// most once every `BarcodeDetector.wholeFrameInterval` (15) frames.
    public var locate: LocateMode
    /// Threads decoding regions at once (1…64, 0 = one per core), the calling thread included.
    public var threads: Int
    /// Retry regions sharpened across the bars (blurred codes).
    public var sharpen: Bool
    /// Retry 1D regions with motion blur across the bars measured and undone (`LumaPlane.deblur`).
    public var deblur = true
    /// `locate=auto`: whether the whole-frame scan may add 1D readings where the region passes read
    /// nothing (a still image: yes; a tracker, which sees the code again on the next frames: no,
    /// such readings are the likeliest misreads).
    public var wholeFrameAdds1D = true
    /// zbar scan-line spacing on the full frame, pixels (1 = every row and column, 1…16). Larger
    /// is faster and misses small 1D codes; region passes always scan every line.
    public var scanDensity: Int
    /// `full`: most unread code-like regions given extra passes per frame (0 = zbar's full-frame scan
    /// only). `regions`: most unverified regions decoded per frame (verified ones are always decoded,
    /// and so are blobs around tracked codes on their turn: `BarcodeDetector.aroundTrackedTurn`).
    public var maxRegions: Int
    /// Video (`regions`): frames an unverified region that no pass read is left alone while it stays
    /// in place (its cells lie within it, grown by a cell); then it is measured and tried again.
    /// Background texture and pictures without codes cost a pass per this many frames, not every
    /// frame. 0 (the default, for stills): every call measures everything.
    public var quietFrames = 0
    /// A verified 1D region no pass read is decoded again from its strips of up to this many
    /// calls fused (`StripFusion`: aligned along the bars' axis, averaged). 0 or 1: off.
    public var fuseFrames = 4
    /// Video: a region left unread on two or more calls in a row at the same place (`MissLedger`)
    /// gets the first pass only (as is, at its own scale), and every pass again on one such call
    /// in this many; 0 (the default, for stills): every pass on every call. A code that is read
    /// keeps every pass; unreadable texture and codes out of reach cost a pass, not all of them.
    /// A tracked QR code's place unread on `MissLedger.restAfter` (6) calls in a row, and a blob of
    /// texture's unread once, is decoded on one call in this many only (`MissLedger.rests`); a blob
    /// wrapped around a tracked code on one call in twice this many, for 2D codes with the first
    /// pass only (`BarcodeDetector.aroundTrackedTurn`).
    public var retryPassesEvery = 0
    /// Rotate 1D regions so their bars are upright (zbar scans only rows and columns).
    public var rotate: Bool
    /// Retry small regions (shorter side ≤ 400 px) at twice the size.
    public var upscale: Bool
    /// Retry large regions (shorter side ≥ 100 px) at half the size (large or blurred codes).
    public var downscale: Bool
    /// Retry regions with light and dark swapped (light-on-dark codes).
    public var invert: Bool
    /// Stretch the grey levels of low-contrast regions before scanning them.
    public var contrast: Bool

    /// The defaults, chosen from measurements on photos (see README, "Extra passes").
    public init(locate: LocateMode = .auto, threads: Int = 1, sharpen: Bool = true, scanDensity: Int = 1,
                maxRegions: Int = 4, rotate: Bool = true, upscale: Bool = true,
                downscale: Bool = true, invert: Bool = true, contrast: Bool = false) {
        self.locate = locate
        self.threads = threads
        self.sharpen = sharpen
        self.scanDensity = scanDensity
        self.maxRegions = maxRegions
        self.rotate = rotate
        self.upscale = upscale
        self.downscale = downscale
        self.invert = invert
        self.contrast = contrast
    }

    /// These options with every extra pass off: a region's first pass only (as is, at its own scale).
    public var firstPassOnly: DetectorOptions {
        var o = self
        o.sharpen = false
        o.deblur = false
        o.invert = false
        o.upscale = false
        o.downscale = false
        return o
    }

    /// zbar's scan alone: what the stock `zbar` element does.
    public static let zbarOnly = DetectorOptions(locate: .full, sharpen: false, maxRegions: 0, rotate: false, upscale: false, downscale: false,
                                                 invert: false, contrast: false)
}

/// Where a detector decodes.
public enum LocateMode: Int32, Sendable {
    /// The localizer's regions; then the whole frame (`full`) when a verified region stayed unread
    /// or nothing was read at all, at most once every `BarcodeDetector.wholeFrameInterval` frames.
    case auto = 0
    /// Only in the regions the localizer finds.
    case regions = 1
    /// zbar over the whole frame, plus passes on regions it left unread.
    case full = 2
}
