import ARCore
import CZBar
import Foundation

/// What a scan hands over before it ends (`BarcodeDetector.scan`), for a caller that cannot wait
/// for the whole scan (a live frame).
public struct EarlyHandOver {
    /// Called with codes read before the scan ends (never none), on the detector's threads, several at once.
    public var codes: ([Detection]) -> Void
    /// Called once, on the scanning thread, when every located region's first decode has ended:
    /// every `codes` call has been made by then. A scan that locates no regions (`locate=full`, a
    /// frame thinner than a code) hands over nothing and never calls it.
    public var firstDecodesEnded: () -> Void

    public init(codes: @escaping ([Detection]) -> Void, firstDecodesEnded: @escaping () -> Void = {}) {
        self.codes = codes
        self.firstDecodesEnded = firstDecodesEnded
    }

    /// The same hand-over with each call's codes passed through `transform` first; a call left with none is not made.
    public func mapping(_ transform: @escaping ([Detection]) -> [Detection]) -> EarlyHandOver {
        let codes = codes
        return EarlyHandOver(codes: { found in
            let kept = transform(found)
            if !kept.isEmpty { codes(kept) }
        }, firstDecodesEnded: firstDecodesEnded)
    }
}

/// What one frame's detection found.
public struct DetectorResult: Sendable {
    /// Every code read, corners in frame pixels.
    public var codes: [Detection]
    /// Verified code-like regions that no pass read (`locate=regions` only): a code is there, not
    /// yet readable (too small, blurred, damaged).
    public var located: [LocatedRegion]

    /// A result of `codes` and `located` regions.
    public init(codes: [Detection], located: [LocatedRegion]) {
        self.codes = codes
        self.located = located
    }
}

/// Decodes barcodes and QR codes in luma images with zbar. By default (`locate=regions`) a
/// localizer finds code-like regions and only those are decoded, each turned upright and resampled,
/// on `threads` threads; `locate=full` scans the whole frame with zbar, then gives extra passes to
/// the regions it left unread (see `DetectorOptions`). Not thread-safe: one per stream.
public final class BarcodeDetector {
    /// The symbologies this detector decodes.
    public let symbologies: [Symbology]
    /// Extra passes; may be changed between frames.
    public var options: DetectorOptions {
        didSet {
            if options.scanDensity != oldValue.scanDensity {
                if let s = try? ZBarScanner(symbologies: symbologies, density: options.scanDensity) { frameScanner = s }
            }
            if options.threads != oldValue.threads { makePool() }
        }
    }

    private var frameScanner: ZBarScanner
    private let regionScanner: ZBarScanner
    /// Reads EAN/UPC codes again alone, without halves kept from earlier scans (of other codes).
    private let isolationScanner: ZBarScanner
    private let locator = CodeLocator()
    private var work = LumaPlane(width: 1, height: 1)
    /// One region decoder per pool worker.
    private var decoders: [RegionDecoder] = []
    private var pool = DecodePool(workers: 1)

    /// A detector for `symbologies` (by default what the property value `all` selects).
    public init(symbologies: [Symbology] = Symbology.allByDefault, options: DetectorOptions = DetectorOptions()) throws {
        self.symbologies = symbologies
        self.options = options
        frameScanner = try ZBarScanner(symbologies: symbologies, density: options.scanDensity)
        regionScanner = try ZBarScanner(symbologies: symbologies)
        isolationScanner = try ZBarScanner(symbologies: symbologies, fresh: true)
        hasLinear = symbologies.contains { !$0.isTwoDimensional }
        hasMatrix = symbologies.contains { $0.isTwoDimensional }
        makePool()
    }

    deinit { pool.stop() }

    /// Forgets every frame seen (the miss ledger, fused strips, quiet places, when the whole frame
    /// was last scanned, zbar's scanners' kept EAN/UPC halves and random state): the next call
    /// scans as a new detector's first would. For a flush, a seek or new caps, and after a
    /// warm-up scan. (The region decoders' scanners start every image afresh already.)
    public func reset() {
        for scanner in [frameScanner, regionScanner, isolationScanner] { scanner.renewScanner() }
        framesSinceWholeFrame = Self.wholeFrameInterval
        quiet = []
        calls = 0
        fusion = StripFusion()
        misses = MissLedger()
    }

    private func makePool() {
        let n = min(64, options.threads > 0 ? options.threads : ProcessInfo.processInfo.activeProcessorCount)
        pool.stop()
        pool = DecodePool(workers: n)
        decoders = (0..<n).compactMap { _ in try? RegionDecoder(symbologies: symbologies) }
    }

    /// `locate=auto`: calls of `scan` since the last whole-frame scan (the first call may scan).
    private var framesSinceWholeFrame = wholeFrameInterval
    /// `locate=auto` scans the whole frame at most once in this many calls (half a second at 30 fps):
    /// a still image gets it, a video pays a twelfth of a zbar scan per frame on average.
    public static let wholeFrameInterval = 15

    /// Whether any 1D symbology is enabled (else 1D-looking regions are not worth a pass).
    private let hasLinear: Bool
    /// Whether QR (or SQ) codes are enabled.
    private let hasMatrix: Bool

    /// Every code found in `luma`, with corners in `luma`'s pixels.
    public func detect(_ luma: LumaImage) -> [Detection] {
        scan(luma).codes
    }

    /// Every code found in `luma` and, with `locate=regions`, the verified regions no pass read.
    /// Regions whose centre lies in one of `skipping` (frame pixels: e.g. tracked codes, re-decoded
    /// on their own), or that hold one's centre and are 2D (but a blob of texture, decoded on its
    /// turn: `aroundTrackedTurn`) or under twice its area, are left alone; so are codes read inside one.
    public func scan(_ luma: LumaImage, skipping: [Quad] = []) -> DetectorResult {
        scan(luma, skipping: skipping.map { KnownCode(quad: $0) }, expecting: [], kinds: []).result
    }

    /// `scan(luma, skipping:)` and `detect(luma, in: regions, kinds:)` at once, with the same
    /// results as the two calls: with `locate=regions` or `auto`, the expected regions are measured
    /// and decoded in the background on the pool while the frame is located (its other threads
    /// take them whenever no batch needs them). `expected`: the codes read in `regions`.
    /// `halvings`: `luma` halved once, twice, … when the caller has them (`CodeLocator.regions`).
    /// A code of `skipping` whose kind is given leaves alone only regions and readings of its kind
    /// (a 1D label stuck over a tracked QR code is read), and no located region is reported on it.
    /// The codes found (not those `expected`) are checked (`checked`: EAN-13 and UPC-A misreads
    /// dropped or corrected, Code 128's FNC4 read).
    /// `early`, with `locate=regions` or `auto`: given each located region's codes as soon as
    /// its first decode reads them (a region cut at once, `firstDecodes`, in two calls: its pieces'
    /// codes first), checked alike, for a caller that cannot wait for the whole scan
    /// (`earlyCodes`); the result holds them too. Then told when the first decodes have ended.
    public func scan(_ luma: LumaImage, skipping: [KnownCode], expecting regions: [Quad], kinds: [LocatedRegion.Kind],
                     halvings: [LumaPlane] = [], early: EarlyHandOver? = nil) -> (result: DetectorResult, expected: [Detection]) {
        var (result, expected) = scanUnchecked(luma, skipping: skipping, expecting: regions, kinds: kinds, halvings: halvings,
                                               early: early?.mapping { Self.checked($0, in: luma) })
        result.codes = Self.checked(result.codes, in: luma)
        return (result, expected)
    }

    /// `codes` with their EAN-13 and UPC-A readings checked (`EANCheck`), and their Code 128
    /// readings for FNC4 (`Code128Check`).
    private static func checked(_ codes: [Detection], in luma: LumaImage) -> [Detection] {
        codes.compactMap { EANCheck.checked($0, in: luma).flatMap { Code128Check.checked($0, in: luma) } }
    }

    private func scanUnchecked(_ luma: LumaImage, skipping: [KnownCode], expecting regions: [Quad], kinds: [LocatedRegion.Kind],
                               halvings: [LumaPlane] = [], early: EarlyHandOver? = nil)
        -> (result: DetectorResult, expected: [Detection]) {
        if luma.width < Self.minimumThickness || luma.height < Self.minimumThickness {
            return (scanStretched(luma, skipping: skipping), detect(luma, in: regions, kinds: kinds))
        }
        switch options.locate {
        case .full: return (DetectorResult(codes: fullScan(luma), located: []), detect(luma, in: regions, kinds: kinds))
        case .regions:
            return locateAndDecode(luma, skipping: skipping, expecting: regions, kinds: kinds, halvings: halvings, early: early)
        case .auto:
            var (result, expected) = locateAndDecode(luma, skipping: skipping, expecting: regions, kinds: kinds, halvings: halvings,
                                                     early: early)
            framesSinceWholeFrame += 1
            // Worth a whole-frame scan: a verified region left unread, a 1D reading on one line only, or nothing read.
            let unconfirmed = result.codes.contains { !Detection.isSelfChecking(symbology: $0.symbology) && $0.quality < 2 }
            guard !result.located.isEmpty || unconfirmed || result.codes.isEmpty,
                  framesSinceWholeFrame >= Self.wholeFrameInterval else {
                return (result, expected)
            }
            framesSinceWholeFrame = 0
            // The whole frame adds what the regions missed; a region's reading wins where both read.
            let regionCodes = result.codes
            for d in Self.outside(skipping, fullScan(luma)) {
                if let i = regionCodes.firstIndex(where: { $0.quad.contains(d.quad.center) || d.quad.contains($0.quad.center) }) {
                    // Where a region read the same code on one line only, the whole frame's reading
                    // (more lines: a better outline) stands for it: the code is no less confirmed for
                    // having been read twice.
                    if options.wholeFrameAdds1D, regionCodes[i].symbology == d.symbology, regionCodes[i].payload == d.payload,
                       d.quality > regionCodes[i].quality, regionCodes[i].quality < 2 {
                        result.codes[i] = d
                    }
                    continue
                }
                // A 1D code there was too hard for the region passes; zbar's whole-frame reading of it
                // is then the likeliest misread (blurred bars misread alike on neighbouring lines and
                // frames): without `wholeFrameAdds1D` it is left out.
                if !options.wholeFrameAdds1D, !Detection.isSelfChecking(symbology: d.symbology) { continue }
                result.codes.append(d)
            }
            result.located.removeAll { r in result.codes.contains { $0.quad.contains(r.quad.center) || r.quad.contains($0.quad.center) } }
            return (result, expected)
        }
    }

    /// Pixels a frame needs across, both ways, for zbar's scan lines and the localizer's cells to
    /// see a code in it; a thinner frame (a crop of a code's bars, a line-scan camera's rows) is
    /// scanned stretched to this.
    public static let minimumThickness = 16

    /// A stretched copy of a thin frame (`minimumThickness`).
    private var thin = LumaPlane(width: 1, height: 1)

    /// `scan` of a frame thinner than `minimumThickness`: zbar over a copy stretched by whole factors
    /// (rows or columns repeated, bilinear), then the extra passes, whatever `locate` says (the
    /// localizer's cells need more rows, and the whole copy costs at most 16 scan lines); outlines
    /// mapped back.
    private func scanStretched(_ luma: LumaImage, skipping: [KnownCode]) -> DetectorResult {
        func factor(_ n: Int) -> Int { n < Self.minimumThickness ? (Self.minimumThickness + n - 1) / n : 1 }
        let fx = factor(luma.width), fy = factor(luma.height)
        let toFrame = AffineMap(a: 1 / Double(fx), b: 0, tx: 0, c: 0, d: 1 / Double(fy), ty: 0)
        thin.resample(luma, map: toFrame, width: luma.width * fx, height: luma.height * fy)
        let codes = thin.withImage { fullScan($0) }.map { d -> Detection in
            var d = d
            d.quad = toFrame.apply(d.quad)
            return d
        }
        return DetectorResult(codes: Self.outside(skipping, codes), located: [])
    }

    /// Calls `body(i)` for every `i` in `0..<count` on the detector's threads (`threads`) and
    /// returns when all calls have returned; each call must write only its own result.
    public func forEach(_ count: Int, _ body: @escaping (Int) -> Void) {
        pool.run(count: count) { _, i in body(i) }
    }

    /// The regions the localizer finds in `luma`, best first.
    public func locate(_ luma: LumaImage) -> [LocatedRegion] {
        locator.regions(in: luma)
    }

    /// `quietFrames`: unverified regions no pass read, each with the call from which it is measured again.
    private var quiet: [(quad: Quad, until: UInt64)] = []
    /// Calls of `locateAndDecode` so far.
    private var calls: UInt64 = 0

    /// The located regions of `luma` decoded, and the tracked codes expected at `expecting` (of
    /// `kinds`), measured and decoded in the background meanwhile (`startExpected`); the codes read
    /// there come back apart.
    private func locateAndDecode(_ luma: LumaImage, skipping: [KnownCode], expecting: [Quad], kinds: [LocatedRegion.Kind],
                                 halvings: [LumaPlane] = [], early: EarlyHandOver? = nil)
        -> (result: DetectorResult, expected: [Detection]) {
        let finishExpected = startExpected(expecting, kinds: kinds, in: luma)
        var unverified = options.maxRegions
        calls += 1
        quiet.removeAll { $0.until <= calls }
        // Blobs of texture wrapped around a tracked code (a code beside it, e.g. one its finder
        // patterns do not outline) on their turn: decoded after the others, outside the budget of
        // unverified regions (on camera seed 13 the budget's others left none for the one holding
        // a blurred QR code; within it, before them, they would push new regions out).
        var aroundTracked: [LocatedRegion] = []
        var regions = locator.regions(in: luma, skipping: skipping + quiet.map { KnownCode(quad: $0.quad) },
                                      forEach: forEach, halvings: halvings).filter { r in
            if skipping.contains(where: { Self.isTrackedCode(r, trackedAt: $0) }) { return false }
            // A region of a kind no enabled symbology has is neither decoded nor reported.
            if r.kind == .linear && !hasLinear { return false }
            if r.kind == .matrix && !hasMatrix { return false }
            if r.isBlob, let k = skipping.firstIndex(where: { r.quad.contains($0.quad.center) }) {
                if Self.aroundTrackedTurn(calls, every: options.retryPassesEvery, phase: k) { aroundTracked.append(r) }
                return false
            }
            if r.verified || r.outlinedByFinderPatterns { return true }
            guard unverified > 0 else {
                // Past the budget: not tried on this frame, and left alone as the tried ones are.
                if options.quietFrames > 0 { quiet.append((r.quad, calls + UInt64(options.quietFrames) + 1)) }
                return false
            }
            unverified -= 1
            return true
        }
        let isAroundTracked = regions.map { _ in false } + aroundTracked.map { _ in true }
        regions += aroundTracked
        // A frame that cannot wait for the whole scan (`early`): regions refining may cut are cut at
        // once, so their pieces' codes are handed over with the region's own.
        let (locatedDecodes, cutAlready) = firstDecodes(regions, in: luma, aroundTracked: isAroundTracked, cutting: early != nil,
                                                        read: early.map { early in { i, codes in
            let sure = Self.earlyCodes(codes, skipping: skipping, aroundTracked: isAroundTracked[i])
            if !sure.isEmpty { early.codes(sure) }
        } })
        early?.firstDecodesEnded()
        let (expected, expectedDecoded) = finishExpected()
        // Verified 1D regions the first decodes left unread (or read without an outline): their strips
        // fused over frames, beside `refined`'s batches, for those refining leaves unread.
        let unread = options.fuseFrames < 2 ? [] : regions.indices.filter {
            regions[$0].verified && regions[$0].kind == .linear && locatedDecodes[$0].allSatisfy(\.quad.isDegenerate)
        }
        var finishFused: ([Bool]) -> [[Detection]] = { _ in [] }
        let both = refined(groups: [regions, expected], decoded: locatedDecodes + expectedDecoded, in: luma, wholeFrame: true,
                           unrecorded: isAroundTracked, cutAlready: cutAlready) {
            finishFused = self.startFused(unread.map { regions[$0] }, in: luma)
        }
        let results = both[0]
        var expectedCodes: [Detection] = []
        for codes in both[1] { Self.merge(codes, into: &expectedCodes) }
        var found: [Detection] = []
        var located: [LocatedRegion] = []
        var read = results
        let fuse = unread.map { results[$0].isEmpty }
        for (i, codes) in zip(unread, finishFused(fuse)) where !codes.isEmpty { read[i] = codes }
        for (i, (region, codes)) in zip(regions, read).enumerated() {
            if codes.isEmpty {
                if region.verified { located.append(region) }
                // A blob around a tracked code is not left alone: its outline holds the code's surroundings.
                if !region.verified, !isAroundTracked[i], options.quietFrames > 0 {
                    quiet.append((region.quad, calls + UInt64(options.quietFrames) + 1))
                }
            } else {
                // Tracked codes read again there are their re-decodes' business.
                Self.merge(Self.outside(skipping, codes), into: &found)
            }
        }
        // A located region that a code read elsewhere covers (e.g. a 2D blob around a 1D code) is that
        // code; one centred on a known code of another kind (decoded in case a label covers it) shows nothing new.
        located.removeAll { r in
            found.contains { $0.quad.contains(r.quad.center) || r.quad.contains($0.quad.center) }
                || skipping.contains { $0.quad.contains(r.quad.center) }
        }
        return (DetectorResult(codes: found, located: located), expectedCodes)
    }

    /// `regions` decoded on the pool, results in region order. A 1D reading made on one group of
    /// strip lines only, where the region also took in other
    /// texture across the bars (a code's bars merged with striped background: most strip lines
    /// missed the code), is decoded again in narrower windows of that region across the bars
    /// around where it was read (a half, a quarter, then an eighth of its height); the first window that
    /// reads the same code on more lines replaces the reading, now confirmed on this frame. Before
    /// that, a tall 1D region no pass read (`tallRegion`) is decoded again half by half across the
    /// bars, and a region of merged codes (`mergedRows`) in pieces short enough. Readings whose
    /// outline is still a point or a line are dropped.
    func decodeRefined(_ regions: [LocatedRegion], in luma: LumaImage) -> [[Detection]] {
        decodeRefined(groups: [regions], in: luma)[0]
    }

    /// `decodeRefined` of each group, each group's results as if decoded alone, every step one
    /// batch on the pool for all groups.
    /// `wholeFrame`: the groups hold every region located on the frame (places not among them are
    /// forgotten by the miss ledger; else only the groups' places are updated).
    private func decodeRefined(groups: [[LocatedRegion]], in luma: LumaImage, wholeFrame: Bool = false) -> [[[Detection]]] {
        refined(groups: groups, decoded: firstDecodes(groups.flatMap { $0 }, in: luma).decoded, in: luma, wholeFrame: wholeFrame)
    }

    /// The first decode of each of `regions`, in order, one batch on the pool: nothing where its
    /// place rests, the first pass only or no 1D decoders in a blob where the miss ledger says so.
    /// Where `aroundTracked[i]` (a blob wrapped around a tracked code, decoded on its turn only:
    /// `aroundTrackedTurn`), region `i` is scanned for 2D codes with the first pass only in video
    /// (`DetectorOptions.retryPassesEvery` > 0), whatever its place's misses.
    /// `read(i, codes)` is called on the pool's thread with region `i`'s codes as its decode ends.
    /// Where `cutting` (a frame that cannot wait for the whole scan), the best-scoring few regions
    /// refining may cut (`cut`, `tallRegionsPerCall`) are handed out first (on a pool of two or
    /// more threads, with more than two regions; in region order), and each is cut at once when its
    /// first pass says so (`decodeCut`): the codes of that pass and of its pieces go to `read`
    /// before the region's other passes, and to `cut`, by region, with how it was cut. The regions
    /// are handed out in `firstDecodeOrder`.
    private func firstDecodes(_ regions: [LocatedRegion], in luma: LumaImage, aroundTracked: [Bool] = [], cutting: Bool = false,
                              read: ((Int, [Detection]) -> Void)? = nil)
        -> (decoded: [[Detection]], cut: [Int: (merged: Bool, codes: [Detection])]) {
        let video = options.retryPassesEvery > 0
        let plans = regions.indices.map { i in
            i < aroundTracked.count && aroundTracked[i]
                ? (firstPassOnly: video, linearInBlob: !video) : Self.firstPass(regions[i], ledger: misses, options: options)
        }
        let awake = regions.indices.filter { plans[$0] != nil }
        let cutNow = !cutting ? [] : Set(awake.filter { i in
            !(i < aroundTracked.count && aroundTracked[i]) && Self.cut(regions[i], read: []) != nil
        }.sorted { (regions[$0].score, -$0) > (regions[$1].score, -$1) }.prefix(Self.tallRegionsPerCall))
        var decoded = [[Detection]](repeating: [], count: regions.count)
        var cuts = [(merged: Bool, codes: [Detection])?](repeating: nil, count: regions.count)
        let decoders = decoders, all = options
        decoded.withUnsafeMutableBufferPointer { out in
            cuts.withUnsafeMutableBufferPointer { cutOut in
                let (out, cutOut) = (out, cutOut)  // each index is written by one worker only
                pool.run(count: awake.count, costliestFirst: {
                    Self.firstDecodeOrder(cost: RegionDecoder.cost(regions[awake[$0]]), cutFirst: cutNow.contains(awake[$0]), cutting: cutting)
                }) {
                    worker, k in
                    let i = awake[k], plan = plans[i]!, decoder = decoders[worker]
                    let decode = { (firstPassOnly: Bool) in
                        decoder.decode(regions[i], in: luma, options: firstPassOnly ? all.firstPassOnly : all, linearInBlob: plan.linearInBlob)
                    }
                    guard cutNow.contains(i) else {
                        out[i] = decode(plan.firstPassOnly)
                        read?(i, out[i])
                        return
                    }
                    let glance = decode(true)
                    var handed: [Detection] = []
                    if let merged = Self.cut(regions[i], read: glance) {
                        handed = Self.decodeCut(regions[i], merged: merged, glance: glance, decoder: decoder, in: luma, options: all)
                        cutOut[i] = (merged, handed)
                        read?(i, handed)
                    }
                    out[i] = plan.firstPassOnly ? glance : decode(false)
                    // Its codes not handed over with its pieces.
                    var codes = handed
                    Self.merge(out[i], into: &codes)
                    read?(i, Array(codes[handed.count...]))
                }
            }
        }
        var cut: [Int: (merged: Bool, codes: [Detection])] = [:]
        for (i, c) in cuts.enumerated() { if let c { cut[i] = c } }
        return (decoded, cut)
    }

    /// The key regions' first decodes are handed out by, largest first (`DecodePool.run(count:costliestFirst:)`),
    /// for a region whose decode costs `cost` (`RegionDecoder.cost`). Where `cutting` (a frame that
    /// cannot wait for the whole scan): regions cut at once (`cutFirst`) first, then the cheapest
    /// first, so that as many regions as can be are read, and their codes handed over, when the
    /// frame's wait ends. On six camera seeds live, two runs each, the frames where a code in view
    /// went unread fell from 19 to 8 (the first frames of clips, whose scans decode every code, no
    /// longer missed). Else the costliest first: no long decode starts last, and the batch ends soonest.
    /// (With one decoding thread, or two regions or fewer, they go in region order.)
    static func firstDecodeOrder(cost: Double, cutFirst: Bool, cutting: Bool) -> Double {
        guard cutting else { return cost }
        return cutFirst ? .infinity : -cost
    }

    /// `glance` (1D region `r`'s first pass) with the codes read in its pieces (`pieces`, `cut`) on
    /// `decoder`, one after another, with the first pass (refining may give a tall region's halves
    /// every pass later); each reading on one group of lines confirmed in narrower windows around
    /// it as refining confirms readings (`confirmingWindows`).
    private static func decodeCut(_ r: LocatedRegion, merged: Bool, glance: [Detection], decoder: RegionDecoder, in luma: LumaImage,
                                  options: DetectorOptions) -> [Detection] {
        var codes: [Detection] = []
        merge(glance, into: &codes)
        for piece in pieces(of: r, merged: merged) { merge(decoder.decode(piece, in: luma, options: options.firstPassOnly), into: &codes) }
        return codes.map { d in
            for w in confirmingWindows(d, in: r) {
                if let better = confirmation(of: d, in: [decoder.decode(w, in: luma, options: options)]) { return better }
            }
            return d
        }
    }

    /// How `region` is first decoded on this call by the miss `ledger`: nil where its place rests
    /// (not decoded: unread, its misses count on), else whether it gets the first pass only and
    /// whether a blob of texture there is scanned for 1D codes too.
    private static func firstPass(_ region: LocatedRegion, ledger: MissLedger, options: DetectorOptions)
        -> (firstPassOnly: Bool, linearInBlob: Bool)? {
        let every = options.retryPassesEvery
        guard !ledger.rests(region, every: every) else { return nil }
        return (!ledger.allPasses(region, every: every), ledger.blobScansLinear(region, every: every))
    }

    /// Whether call `call` decodes a blob of texture wrapped around tracked code `phase` (its index
    /// among the tracked codes: blobs around different codes take turns on different calls): one
    /// call in twice `every` (`DetectorOptions.retryPassesEvery`; 0: every call). Such a blob is a
    /// tracked code with what lies around it, whose outline changes as the code moves: the miss
    /// ledger cannot rest its place, and leaves it out. On camera seed 13 one holds a blurred QR
    /// code that the localizer's finder patterns do not outline: read from frame 167 instead of
    /// 176, for 4.6 % more instructions (one thread; 7.0 % at one call in `every`, 11 % with the
    /// ledger resting them); the six other seeds gave the same JSON Lines (all symbologies).
    static func aroundTrackedTurn(_ call: UInt64, every: Int, phase: Int) -> Bool {
        every <= 0 || (call + UInt64(phase)) % UInt64(2 * every) == 0
    }

    /// Tracked codes' regions at `quads` (of `kinds`) measured (`measured`) and given their first
    /// decode (`firstDecodes`) in the background on the pool (`DecodePool.startBackground`): the
    /// other threads take them while the caller locates the frame alone or waits on a batch's last
    /// call. The returned function, to be called once before this detector's next call, waits for
    /// them and returns the measured regions (those of a kind no enabled symbology has left out)
    /// and their decodes, the same as `measured` then `firstDecodes`.
    private func startExpected(_ quads: [Quad], kinds: [LocatedRegion.Kind], in luma: LumaImage)
        -> () -> (regions: [LocatedRegion], decoded: [[Detection]]) {
        // The ledger as it stands before this call's decodes are recorded, as `firstDecodes` sees it.
        let ledger = misses, options = options, measure = measurer, decoders = decoders
        let finish = pool.startBackground(count: quads.count, costliestFirst: { RegionDecoder.cost(quads[$0], kind: kinds[$0]) }) {
            worker, i -> (region: LocatedRegion, decoded: [Detection])? in
            guard let r = measure(quads[i], kinds[i], luma) else { return nil }
            guard let plan = Self.firstPass(r, ledger: ledger, options: options) else { return (r, []) }
            return (r, decoders[worker].decode(r, in: luma, options: plan.firstPassOnly ? options.firstPassOnly : options,
                                               linearInBlob: plan.linearInBlob))
        }
        return {
            let kept = finish().compactMap { $0 }
            return (kept.map(\.region), kept.map(\.decoded))
        }
    }

    /// `groups`' regions (flattened) with their first decodes `decoded` recorded in the miss
    /// ledger and refined as `decodeRefined` says, each group's results apart. `recorded` is called
    /// once the ledger holds this call's misses, before the refining batches (`startFused`).
    /// Where `unrecorded[i]` (flattened; a blob around a tracked code, not decoded as its place's
    /// misses say), region `i`'s place counts no miss. Regions in `cutAlready` (flattened) were
    /// cut as their first pass ended (`firstDecodes`), with the first pass on their pieces: the
    /// codes read then join their results, and merged codes cut as such are not cut again.
    private func refined(groups: [[LocatedRegion]], decoded: [[Detection]], in luma: LumaImage, wholeFrame: Bool,
                         unrecorded: [Bool] = [], cutAlready: [Int: (merged: Bool, codes: [Detection])] = [:],
                         recorded: () -> Void = {}) -> [[[Detection]]] {
        let all = groups.flatMap { $0 }
        let offsets = groups.indices.map { g in groups[..<g].reduce(0) { $0 + $1.count } }
        let every = options.retryPassesEvery
        if every > 0 {
            let read = decoded.indices.map { !decoded[$0].isEmpty || $0 < unrecorded.count && unrecorded[$0] }
            misses.record(all, read: read, forgettingOthers: wholeFrame)
        }
        recorded()
        var results = Self.split(decoded, counts: groups.map(\.count))
        // A tall region no pass read: a code's bars may have joined other texture beside them
        // (its strip lines mostly crossed that texture): its halves across the bars, on their own.
        // So is a located region of codes merged side by side (`mergedRows`), unread or read over
        // under half of it, with the first pass only: each strip line averages its bars over so long
        // that bars leaning a little against it blur away, which its pieces' shorter lines do not.
        var cuts: [(g: Int, i: Int, merged: Bool, windows: [LocatedRegion])] = []
        for (g, regions) in groups.enumerated() {
            var split: [Int: Bool] = [:]  // region → whether it is cut as merged codes
            for i in results[g].indices {
                guard let merged = Self.cut(regions[i], read: results[g][i]) else { continue }
                // Merged codes already cut as such as their first pass ended: the same pieces, the same pass.
                if merged, cutAlready[offsets[g] + i]?.merged == true { continue }
                split[i] = merged
            }
            // The best-scoring few (ties in region order): big unread texture is common, merged codes are not.
            for i in split.keys.sorted(by: { (regions[$0].score, -$0) > (regions[$1].score, -$1) }).prefix(Self.tallRegionsPerCall).sorted() {
                cuts.append((g, i, split[i]!, Self.pieces(of: regions[i], merged: split[i]!)))
            }
        }
        let cutCodes = decode(cuts.flatMap(\.windows), in: luma, options: options.atRegionScale,
                              firstPassOnly: cuts.flatMap { h in h.windows.map { _ in h.merged } })
        for (h, codes) in zip(cuts, Self.split(cutCodes, counts: cuts.map(\.windows.count))) {
            for c in codes { Self.merge(c, into: &results[h.g][h.i]) }
        }
        // A reading on one group of lines: narrower windows around it.
        var places: [(g: Int, i: Int, j: Int, windows: [LocatedRegion])] = []
        for (g, regions) in groups.enumerated() {
            for (i, codes) in results[g].enumerated() {
                for (j, d) in codes.enumerated() {
                    let windows = Self.confirmingWindows(d, in: regions[i])
                    if !windows.isEmpty { places.append((g, i, j, windows)) }
                }
            }
        }
        for (p, tries) in zip(places, Self.split(decode(places.flatMap(\.windows), in: luma), counts: places.map(\.windows.count))) {
            if let better = Self.confirmation(of: results[p.g][p.i][p.j], in: tries) { results[p.g][p.i][p.j] = better }
        }
        // Codes read as regions were cut at once, confirmed there already.
        for (g, regions) in groups.enumerated() {
            for i in regions.indices { if let c = cutAlready[offsets[g] + i] { Self.merge(c.codes, into: &results[g][i]) } }
        }
        // A reading left without an outline (one scan line, its bars not followed) places nothing.
        return results.map { $0.map { $0.filter { !$0.quad.isDegenerate } } }
    }

    /// Of `codes`, a located region's first decode, those the whole scan reports as read (a later
    /// step may add others, or a better outline of one read twice): none from a blob around a
    /// tracked code (`aroundTracked`), none of `skipping`'s codes, and no reading without an outline.
    /// A 1D reading on one group of lines is among them (refining may only replace it with a
    /// confirmed reading of the same code).
    static func earlyCodes(_ codes: [Detection], skipping: [KnownCode], aroundTracked: Bool) -> [Detection] {
        aroundTracked ? [] : outside(skipping, codes).filter { !$0.quad.isDegenerate }
    }

    /// Whether located region `r` is the tracked code at `tracked` (frame pixels), left to that
    /// code's re-decode: its centre lies on the code, or it holds the code's centre and is that code
    /// with its surroundings. A 1D region that takes in the code among more (a new code's bars
    /// merged with it: under half of the region lies on the code) is not, nor is a QR code outlined
    /// by finder patterns (the tracked code's own are left out of the search: these are another
    /// code's, e.g. one a card is leaving, the card tracked over its corner).
    static func isTrackedCode(_ r: LocatedRegion, trackedAt tracked: KnownCode) -> Bool {
        guard tracked.isSame(kind: r.kind) else { return false }
        let q = tracked.quad
        return q.contains(r.quad.center) || r.quad.contains(q.center) && !r.isBlob && !r.outlinedByFinderPatterns
            && (r.kind == .matrix || r.quad.share(inside: q) >= 0.5)
    }

    /// `codes` whose centre lies on none of `known` of their kind.
    private static func outside(_ known: [KnownCode], _ codes: [Detection]) -> [Detection] {
        codes.filter { d in !known.contains { $0.isSame(kind: .init(symbology: d.symbology)) && $0.quad.contains(d.quad.center) } }
    }

    /// `flat` cut into consecutive pieces of `counts` elements.
    private static func split<T>(_ flat: [T], counts: [Int]) -> [[T]] {
        var out: [[T]] = [], start = 0
        for n in counts {
            out.append(Array(flat[start..<(start + n)]))
            start += n
        }
        return out
    }

    /// Strips of unread 1D regions from earlier calls (`DetectorOptions.fuseFrames`).
    private var fusion = StripFusion()

    /// `regions` (verified 1D regions the first decodes left unread) each decoded from its strip
    /// fused with its strips of earlier calls, in the background on the pool
    /// (`DecodePool.startBackground`), beside `refined`'s batches. The returned function, called once
    /// with whether each region is still to fuse (no pass read it), waits for them, updates the
    /// fusion in region order for those and returns their results (empty for the others, for a
    /// region with nothing to fuse yet, and where no pass reads the fused strip). Each strip is
    /// rendered, fused and decoded against the fusion as it was before this call: the same results
    /// with any number of threads. A region the miss ledger now gives the first pass only (this
    /// call's miss counted) gets only that on its fused strip: the ledger must hold this call's
    /// misses already.
    private func startFused(_ regions: [LocatedRegion], in luma: LumaImage) -> (_ fuse: [Bool]) -> [[Detection]] {
        let fusion = fusion, keep = options.fuseFrames, call = calls, decoders = decoders
        let ledger = misses, options = options
        // Each region's strip (nil when too small), the scale it was rendered at and what its fusion read.
        let finish = pool.startBackground(count: regions.count, costliestFirst: { RegionDecoder.cost(regions[$0]) }) {
            worker, i -> (strip: LumaPlane?, scale: Double, codes: [Detection]) in
            let r = regions[i]
            let scale = fusion.entry(at: r.quad).map { fusion.entries[$0].scale } ?? RegionDecoder.baseScale(r)
            guard let (strip, placement) = decoders[worker].renderedStrip(r, in: luma, scale: scale) else { return (nil, scale, []) }
            guard let pixels = fusion.fused(strip.pixels, width: strip.width, rows: strip.height, quad: r.quad,
                                            scale: scale, call: call, keep: keep) else { return (strip, scale, []) }
            var image = strip
            image.pixels = pixels
            let passes = ledger.allPasses(r, every: options.retryPassesEvery) ? options : options.firstPassOnly
            return (strip, scale, decoders[worker].decode(strip: image, placement: placement, region: r, in: luma, options: passes))
        }
        return { fuse in
            let out = finish()
            for (i, f) in out.enumerated() where fuse[i] {
                guard let strip = f.strip else { continue }
                if f.codes.isEmpty {
                    self.fusion.record(strip.pixels, width: strip.width, quad: regions[i].quad, scale: f.scale, call: call, keep: keep)
                } else {
                    self.fusion.remove(at: regions[i].quad)
                }
            }
            return out.indices.map { fuse[$0] ? out[$0].codes : [] }
        }
    }

    /// A 1D region at least this tall (across the bars) for its length, that no pass read, is
    /// decoded again half by half (`decodeRefined`): taller than most codes' bars.
    static let tallRegion = 0.6
    /// Regions refining cuts per call (`cut`: tall unread regions, merged codes), best score first
    /// (each costs up to two more sets of passes; without a limit 7 % more instructions on the
    /// camera clips). A frame that cannot wait for the whole scan cuts as many more at once
    /// (`firstDecodes`).
    static let tallRegionsPerCall = 2
    /// A 1D region whose strip lines (`RegionDecoder.stripRows` across it) are each this many of its
    /// modules tall or more is taken for codes merged side by side (a code's own bars, even tall
    /// EAN-13 ones, make lines of about 4 modules): decoded in halves (quarters, eighths, until the
    /// pieces' lines are shorter) when unread or read over under half of it. On camera seed 37 a
    /// Code 128 card's first frame lies in such a region with an EAN-13 card (lines of 9 modules);
    /// its upper half reads it with the first pass. On seed 31, with the clip's tracks, a card lies
    /// in one with lines of 12 modules; a quarter reads it.
    static let mergedRows = 6.0

    /// How refining cuts 1D region `r` whose first decode read `codes` (`decodeRefined`): nil when
    /// it is not cut, else whether it is cut as codes merged side by side (`mergedRows`: in pieces,
    /// the first pass only) rather than as a tall region no pass read (in halves, every pass).
    /// Never where a tracked code is expected: that region is around one code, and a piece's reading
    /// would outline only part of it (a tall one no pass read is still cut).
    static func cut(_ r: LocatedRegion, read codes: [Detection]) -> Bool? {
        guard r.kind == .linear else { return nil }
        let q = r.quad, height = q.topLeft.distance(to: q.bottomLeft)
        if codes.isEmpty, height >= tallRegion * q.topLeft.distance(to: q.topRight) { return false }
        if !r.expected, height >= mergedRows * Double(RegionDecoder.stripRows) * r.moduleSize,
           codes.reduce(0, { $0 + q.share(inside: $1.quad) }) < 0.5 { return true }
        return nil
    }

    /// Windows of 1D region `r` across its bars around its reading `d` (a half, a quarter, then an
    /// eighth of its height), in which a reading on one group of lines is decoded again
    /// (`decodeRefined`); none for a reading confirmed on this frame or a self-checking one.
    static func confirmingWindows(_ d: Detection, in r: LocatedRegion) -> [LocatedRegion] {
        guard r.kind == .linear, !Detection.isSelfChecking(symbology: d.symbology), d.quality < 2 else { return [] }
        return [0.5, 0.25, 0.125].compactMap { r.window(across: $0, around: d.quad.center) }
    }

    /// The first reading, in `tries` (`confirmingWindows`' codes, in order), of `d`'s code on more
    /// lines: confirmed on this frame.
    static func confirmation(of d: Detection, in tries: [[Detection]]) -> Detection? {
        tries.lazy.compactMap { $0.first { $0.symbology == d.symbology && $0.payload == d.payload && $0.quality >= 2 } }.first
    }

    /// The pieces `r` is cut into (`cut`): halves of a tall region; merged codes cut until the
    /// pieces' strip lines are under `mergedRows` modules tall (at most eighths).
    static func pieces(of r: LocatedRegion, merged: Bool) -> [LocatedRegion] {
        let q = r.quad
        var pieces = 2
        if merged {
            let lineModules = q.topLeft.distance(to: q.bottomLeft) / (Double(RegionDecoder.stripRows) * r.moduleSize)
            while pieces < 8, lineModules / Double(pieces) >= mergedRows { pieces *= 2 }
        }
        let across = (q.bottomLeft - q.topLeft) * (1 / Double(2 * pieces)), mid = q.topLeft + (q.topRight - q.topLeft) * 0.5
        return (0..<pieces).compactMap { r.window(across: 1 / Double(pieces), around: mid + across * Double(2 * $0 + 1)) }
    }

    /// Places where regions went unread on the last calls (`DetectorOptions.retryPassesEvery`).
    private(set) var misses = MissLedger()

    /// Each of `regions` decoded on the pool; results in region order. Where `firstPassOnly[i]`,
    /// region `i` gets the first pass only; where `linearInBlob[i]` is false, a blob of texture is
    /// scanned for 2D codes only (`RegionDecoder.decode`).
    private func decode(_ regions: [LocatedRegion], in luma: LumaImage, options: DetectorOptions? = nil,
                        firstPassOnly: [Bool] = [], linearInBlob: [Bool] = []) -> [[Detection]] {
        var results = [[Detection]](repeating: [], count: regions.count)
        let options = options ?? self.options, decoders = decoders, first = options.firstPassOnly
        results.withUnsafeMutableBufferPointer { out in
            let out = out  // each index is written by one worker only
            pool.run(count: regions.count, costliestFirst: { RegionDecoder.cost(regions[$0]) }) { worker, i in
                out[i] = decoders[worker].decode(regions[i], in: luma, options: i < firstPassOnly.count && firstPassOnly[i] ? first : options,
                                                 linearInBlob: i >= linearInBlob.count || linearInBlob[i])
            }
        }
        return results
    }

    /// The tracked codes expected at `regions` (frame pixels, each with the kind of code tracked
    /// there), decoded as located regions are (`CodeLocator.region(around:kind:in:)`, then the
    /// region passes, on the pool); corners in `luma`'s pixels.
    /// Not checked (`checked`): a track keeps the payload it started with, and a re-decode that
    /// reads another code confirms nothing.
    public func detect(_ luma: LumaImage, in regions: [Quad], kinds: [LocatedRegion.Kind]) -> [Detection] {
        var found: [Detection] = []
        for codes in decodeRefined(measured(regions, kinds: kinds, in: luma), in: luma) { Self.merge(codes, into: &found) }
        return found
    }

    /// Tracked codes' regions (`CodeLocator.region(around:kind:in:)`) measured on the pool (bar
    /// profiles, finder patterns), in order; those of a kind no enabled symbology has left out.
    private func measured(_ regions: [Quad], kinds: [LocatedRegion.Kind], in luma: LumaImage) -> [LocatedRegion] {
        var measured = [LocatedRegion?](repeating: nil, count: regions.count)
        let measure = measurer
        measured.withUnsafeMutableBufferPointer { out in
            let out = out  // each call writes its own index only
            pool.run(count: regions.count) { _, i in out[i] = measure(regions[i], kinds[i], luma) }
        }
        return measured.compactMap { $0 }
    }

    /// A tracked code's region at a quad, of a kind, measured in a frame
    /// (`CodeLocator.region(around:kind:in:)`); nil for a kind no enabled symbology has.
    private var measurer: (Quad, LocatedRegion.Kind, LumaImage) -> LocatedRegion? {
        let locator = locator, hasLinear = hasLinear, hasMatrix = hasMatrix
        return { quad, kind, luma in
            kind == .linear && !hasLinear || kind == .matrix && !hasMatrix ? nil : locator.region(around: quad, kind: kind, in: luma)
        }
    }

    /// zbar over the whole frame, then the extra passes on the regions it left unread.
    private func fullScan(_ luma: LumaImage) -> [Detection] {
        var found: [Detection] = []
        // EAN/UPC readings, read again alone (a reading made of two codes' halves is not there on
        // its own), with how far the crop had to reach: 0 the outline, 1 its surroundings, 2 its rows.
        var halves: [(detection: Detection, reach: Int)] = []
        for symbol in frameScanner.scan(luma) {
            guard let d = symbol.detection(in: luma, map: .identity) else { continue }
            if Symbology.decodedInHalves(symbol.type) {
                if let alone = isolated(d, in: luma) { halves.append(alone) }
            } else {
                found.append(d)
            }
        }
        // Two EAN/UPC codes cannot overlap: of two readings where one's centre lies on the other,
        // the one read from the wider crop borrowed its half.
        for (i, h) in halves.enumerated() where !halves.enumerated().contains(where: { j, other in
            j != i && other.reach < h.reach && other.detection.payload != h.detection.payload
                && other.detection.quad.contains(h.detection.quad.center)
        }) {
            Self.merge([h.detection], into: &found)
        }
        guard options.maxRegions > 0 else { return found }
        var budget = options.maxRegions
        for candidate in locator.regions(in: luma) {
            guard budget > 0 else { break }
            if isCovered(candidate.quad, by: found) { continue }
            if candidate.kind == .linear && !hasLinear { continue }
            budget -= 1
            let degrees = options.rotate && candidate.kind == .linear ? candidate.axisDegrees : 0
            Self.merge(scan(luma, region: candidate.quad, degrees: degrees, skipPlain: true), into: &found)
        }
        return found
    }

    /// The codes inside `regions` (frame pixels, e.g. where a tracker expects its codes), each
    /// region grown by a quarter of its size and turned upright by its quad's rotation before
    /// scanning; corners in `luma`'s pixels. Costs about the regions' share of a full frame.
    public func detect(_ luma: LumaImage, in regions: [Quad]) -> [Detection] {
        var found: [Detection] = []
        for region in regions {
            let grown = region.grown(by: 1.25, plus: 8)
            let degrees = options.rotate ? region.rotationDegrees : 0
            Self.merge(scan(luma, region: grown, degrees: degrees, skipPlain: false), into: &found)
        }
        return Self.checked(found, in: luma)
    }

    // MARK: - Region passes

    /// One attempt at a region: resampling scale and whether to swap light and dark.
    private struct Attempt {
        var scale: Double
        var inverted: Bool
    }

    /// Scans `region` (frame pixels) turned by `-degrees`, trying the enabled passes in turn until
    /// one decodes. `skipPlain`: skip the unscaled, unturned attempt when it would repeat the
    /// full-frame scan.
    private func scan(_ luma: LumaImage, region: Quad, degrees: Double, skipPlain: Bool) -> [Detection] {
        // Region size along its own axes.
        let t = degrees * .pi / 180
        let u = Point(x: cos(t), y: sin(t)), d = Point(x: -u.y, y: u.x)
        let c = region.center
        var w = 0.0, h = 0.0
        for p in region.corners {
            w = max(w, abs(dot(p - c, u)) * 2)
            h = max(h, abs(dot(p - c, d)) * 2)
        }
        guard w >= 8, h >= 8 else { return [] }
        // Keep each attempt's image to at most about a megapixel.
        let base = min(1, (1_000_000 / (w * h)).squareRoot())
        var attempts = [Attempt(scale: base, inverted: false)]
        if options.upscale, min(w, h) <= 400 { attempts.append(Attempt(scale: min(2, 2 * base), inverted: false)) }
        if options.downscale, min(w, h) * base >= 100 { attempts.append(Attempt(scale: base / 2, inverted: false)) }
        if options.invert { attempts.append(Attempt(scale: base, inverted: true)) }
        let upright = abs(degrees) < 0.5
        for attempt in attempts {
            let ow = max(8, Int(w * attempt.scale)), oh = max(8, Int(h * attempt.scale))
            // Destination → source: the region's centre to the image's centre, turned and scaled.
            let map = AffineMap.similarity(from: Point(x: Double(ow) / 2, y: Double(oh) / 2), to: c,
                                           degrees: degrees, scale: 1 / attempt.scale)
            work.resample(luma, map: map, width: ow, height: oh)
            var changed = attempt.scale != 1 || !upright || attempt.inverted
            if options.contrast, work.stretchContrast() { changed = true }
            if attempt.inverted { work.invert() }
            if skipPlain && !changed { continue }
            let found: [Detection] = work.withImage { image in
                regionScanner.scan(image).compactMap { symbol in
                    // Region passes see more marginal images: 1D reads must agree on two scan lines.
                    guard symbol.isTwoDimensional || symbol.quality >= 2 else { return nil }
                    return symbol.detection(in: image, map: map)
                }
            }
            if !found.isEmpty { return found }
        }
        return []
    }

    /// `d` read again on its own: zbar scans the frame's pixels in the bounding box of `d`'s outline
    /// grown as for region decodes, then (when nothing is read there, e.g. the outline fit saw only
    /// part of the code) grown 2.5 times, then across the frame on the rows (columns for codes read
    /// down) of the first box, where a code on other rows cannot lend a half. The scanner starts
    /// each crop without halves kept from earlier scans. `d` when a crop reads the same code; the
    /// reading made there instead when it reads another code of the family (`d` joined two codes'
    /// halves, one of them that code); nil when none reads anything. `reach`: the crop's index.
    private func isolated(_ d: Detection, in luma: LumaImage) -> (detection: Detection, reach: Int)? {
        let near = d.quad.grown(by: 1.25, plus: 8).boundingBox, wider = d.quad.grown(by: 2.5, plus: 8).boundingBox
        var boxes = [near, wider]
        // Across the frame only for an outline that can be a code: a sliver (under 4 px across)
        // comes from points on one bar, and its rows may hold the two codes again.
        let sides = (d.quad.topLeft.distance(to: d.quad.topRight), d.quad.topLeft.distance(to: d.quad.bottomLeft))
        if min(sides.0, sides.1) >= 4 {
            let vertical = abs(d.quad.rotationDegrees.remainder(dividingBy: 180)) > 45
            boxes.append(vertical ? Rect(x: near.minX, y: 0, width: near.width, height: Double(luma.height))
                                  : Rect(x: 0, y: near.minY, width: Double(luma.width), height: near.height))
        }
        for (reach, box) in boxes.enumerated() {
            let readings = readAlone(box, in: luma)
            if readings.contains(where: { $0.payload == d.payload && $0.symbology == d.symbology }) { return (d, reach) }
            if let other = readings.first { return (other, reach) }
        }
        return nil
    }

    /// EAN/UPC readings in `box` (frame pixels, clipped to the frame): the same pixels as the
    /// whole-frame scan, cropped. Corners in frame pixels.
    private func readAlone(_ box: Rect, in luma: LumaImage) -> [Detection] {
        let x0 = max(0, Int(box.minX)), y0 = max(0, Int(box.minY))
        let x1 = min(luma.width, Int(box.maxX.rounded(.up))), y1 = min(luma.height, Int(box.maxY.rounded(.up)))
        guard x1 - x0 >= 8, y1 - y0 >= 8 else { return [] }
        let map = AffineMap(a: 1, b: 0, tx: Double(x0), c: 0, d: 1, ty: Double(y0))
        work.resample(luma, map: map, width: x1 - x0, height: y1 - y0)
        return work.withImage { image in
            isolationScanner.scan(image).filter { Symbology.decodedInHalves($0.type) }
                .compactMap { $0.detection(in: image, map: map) }
        }
    }

    /// Whether a decoded code (with a margin of a quarter of its size: its quiet zone's borders)
    /// covers most of `region`, or most of the code lies in it.
    private func isCovered(_ region: Quad, by found: [Detection]) -> Bool {
        let box = region.boundingBox
        let area = box.width * box.height
        guard area > 0 else { return true }
        return found.contains { f in
            let grown = f.quad.boundingBox.insetBy(8 + f.quad.meanSide / 4)  // insetBy grows by its margin
            let i = grown.intersection(box)
            return !i.isEmpty && i.width * i.height >= 0.5 * min(area, grown.width * grown.height)
        }
    }

    private static func merge(_ new: [Detection], into found: inout [Detection]) {
        for n in new where !found.contains(where: {
            $0.symbology == n.symbology && $0.payload == n.payload
                && $0.quad.center.distance(to: n.quad.center) <= max($0.quad.meanSide, n.quad.meanSide)
        }) {
            found.append(n)
        }
    }
}

extension Quad {
    /// Whether this outline has no length across a code's bars: its top and bottom sides (along the
    /// reading axis) both under 2 px. A point (a 1D reading from one scan line whose bars could not
    /// be followed), or a segment along the bars (live camera seed 73: a Code 128 card leaving past
    /// the frame's right edge read with such an outline at x = 1920.8, which started a second track
    /// of its payload there, drawn until expiry, 9 frames after the card had gone).
    var isDegenerate: Bool {
        corners[0].distance(to: corners[1]) < 2 && corners[3].distance(to: corners[2]) < 2
    }
}

extension DetectorOptions {
    /// These passes at a region's own scale only, for its pieces (`BarcodeDetector.pieces`): its
    /// module size was measured on the code's bars.
    var atRegionScale: DetectorOptions {
        var o = self
        o.upscale = false
        o.downscale = false
        return o
    }
}

extension LocatedRegion {
    /// This 1D region cut across the bars to `fraction` of its height, centred on `point` as far
    /// as the region allows; nil when that is under 8 px.
    func window(across fraction: Double, around point: Point) -> LocatedRegion? {
        let q = quad
        let height = q.topLeft.distance(to: q.bottomLeft)
        let h = height * fraction
        guard h >= 8, height > 0 else { return nil }
        let d = (q.bottomLeft - q.topLeft) * (1 / height)
        let u = q.topRight - q.topLeft
        // Across the bars, measured from the top edge (the line through topLeft along u).
        let ul = max(1e-9, (u.x * u.x + u.y * u.y).squareRoot())
        let n = Point(x: -u.y / ul, y: u.x / ul)
        let along = (d.x * n.x + d.y * n.y)
        guard abs(along) > 1e-6 else { return nil }
        let s = ((point.x - q.topLeft.x) * n.x + (point.y - q.topLeft.y) * n.y) / along
        let s0 = min(max(0, s - h / 2), height - h)
        var r = self
        r.quad = Quad(topLeft: q.topLeft + d * s0, topRight: q.topRight + d * s0,
                      bottomRight: q.topRight + d * (s0 + h), bottomLeft: q.topLeft + d * (s0 + h))
        return r
    }
}

extension Detection {
    /// The code's orientation: the angle of its top edge (own top-left → top-right), degrees
    /// clockwise on screen from the x axis, −180…180. 0 = upright.
    public var orientationDegrees: Double { quad.rotationDegrees }
}
