/// How hard the detector tries beyond zbar's own full-frame scan. Each extra pass runs only on
/// code-like regions (see `CandidateFinder`) that the full-frame scan left unread, and only until
/// one of its attempts decodes, so frames where zbar reads everything pay only for the search.
public struct DetectorOptions: Equatable, Sendable {
    /// zbar scan-line spacing on the full frame, pixels (1 = every row and column, 1…16). Larger
    /// is faster and misses small 1D codes; region passes always scan every line.
    public var scanDensity: Int
    /// Most unread code-like regions given extra passes per frame (0 = zbar's full-frame scan only).
    public var maxRegions: Int
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
    public init(scanDensity: Int = 1, maxRegions: Int = 4, rotate: Bool = true, upscale: Bool = true,
                downscale: Bool = true, invert: Bool = true, contrast: Bool = false) {
        self.scanDensity = scanDensity
        self.maxRegions = maxRegions
        self.rotate = rotate
        self.upscale = upscale
        self.downscale = downscale
        self.invert = invert
        self.contrast = contrast
    }

    /// zbar's scan alone: what the stock `zbar` element does.
    public static let zbarOnly = DetectorOptions(maxRegions: 0, rotate: false, upscale: false, downscale: false,
                                                 invert: false, contrast: false)
}
