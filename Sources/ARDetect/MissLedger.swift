import ARCore

/// Where regions went unread on consecutive calls, so that a video spends its extra passes where
/// they can pay off (`DetectorOptions.retryPassesEvery`). A place is a region's outline: a region
/// on the next call is at the same place when each one's centre lies in the other's outline and
/// both are of the same kind with module sizes within 1.5× (a camera's shake moves a region by
/// far less than its size). A place not decoded on a call that located the whole frame is
/// forgotten. Pure: regions and outcomes in, counts out.
struct MissLedger {
    fileprivate struct Entry {
        var quad: Quad
        var kind: LocatedRegion.Kind
        /// Pixels.
        var moduleSize: Double
        /// Calls in a row on which no pass read a region here.
        var misses: Int
    }

    private var entries: [Entry] = []

    /// Calls in a row on which no pass read a region at `region`'s place, up to the last one recorded.
    func misses(at region: LocatedRegion) -> Int {
        entries.first { $0.holds(region) }?.misses ?? 0
    }

    /// Whether `region` gets every pass (`every` > 0): a place missed on fewer than two calls in a
    /// row does, and then one call in `every` unless it rests (`rests`: it is decoded on that call
    /// with the first pass only); the others get the first pass only.
    func allPasses(_ region: LocatedRegion, every: Int) -> Bool {
        let n = misses(at: region)
        return every <= 0 || n < 2 || n % every == 0 && n < Self.restsFrom(region)
    }

    /// Whether `region` is left undecoded on this call (`every` > 0): a tracked QR code's place
    /// missed on `restAfter` calls in a row or more, and a blob of texture's (`LocatedRegion.isBlob`)
    /// missed on one or more, is decoded on one such call in `every` only, with the first pass only:
    /// every pass there read nothing more on the seven camera seeds (all symbologies) nor at 4K,
    /// for 12 % more CPU on seed 13 (one thread).
    /// - A tracked QR code follows the image meanwhile. On camera seeds 3, 11, 13 and 17 such places
    ///   were read on 2–4 % of those calls (a tracked QR code blurred past reading), at 2–3 ms a decode.
    /// - A blob's place first seen is decoded (76 readings on the seven camera seeds: new codes).
    ///   Once missed, it was read on 2 of 1,222 calls over those seeds, at 1.5–3 ms a decode; resting
    ///   it delayed one QR code by a frame there (seed 11, all symbologies) and changed no coverage.
    /// - Other places never rest: resting a QR code outlined by its finder patterns but not tracked
    ///   yet delayed new codes by 1–2 frames on seeds 7, 11 and 13; 1D places cost a third as much
    ///   and tracked ones were read on 15–18 % of such calls.
    func rests(_ region: LocatedRegion, every: Int) -> Bool {
        let n = misses(at: region)
        return every > 0 && n >= Self.restsFrom(region) && n % every != 0
    }

    /// Calls in a row `region`'s place goes unread before it rests (`rests`); `Int.max`: never.
    private static func restsFrom(_ region: LocatedRegion) -> Int {
        region.isBlob ? 1 : region.kind == .matrix && region.expected ? restAfter : .max
    }

    /// Whether a blob of texture at `region`'s place (what a blob is: `LocatedRegion.isBlob`) is
    /// scanned for 1D codes as well as 2D ones: only where no call has left the place unread
    /// (`every` > 0; always with 0). On camera seeds 3, 5, 7, 11, 13, 17 and 21 the same codes were
    /// read on every frame as with 1D decoders in every blob, for 2–8 % less CPU; with none in any
    /// blob, two EAN-13 codes on seed 13 were read 1–2 frames later.
    func blobScansLinear(_ region: LocatedRegion, every: Int) -> Bool {
        every <= 0 || misses(at: region) == 0
    }

    /// Calls in a row a tracked QR code's place goes unread before it rests (`rests`): 0.2 s at 30 fps.
    static let restAfter = 6

    /// The call's decoded `regions` and whether each was read: the places unread now count one
    /// more miss, read ones none. With `forgettingOthers` (a call that located the whole frame)
    /// places not decoded on this call are forgotten; without (a call that decoded tracked codes
    /// only), they are kept.
    mutating func record(_ regions: [LocatedRegion], read: [Bool], forgettingOthers: Bool = true) {
        var next: [Entry] = forgettingOthers ? [] : entries.filter { e in !regions.contains { e.holds($0) } }
        for (region, wasRead) in zip(regions, read) where !wasRead {
            guard !next.contains(where: { $0.holds(region) }) else { continue }
            next.append(Entry(quad: region.quad, kind: region.kind, moduleSize: region.moduleSize, misses: misses(at: region) + 1))
        }
        entries = next
    }

    /// Forgets every place (a new stream).
    mutating func reset() {
        entries = []
    }
}

extension MissLedger.Entry {
    /// Whether `region` is at this place.
    fileprivate func holds(_ region: LocatedRegion) -> Bool {
        kind == region.kind && quad.contains(region.quad.center) && region.quad.contains(quad.center)
            && max(moduleSize, region.moduleSize) <= 1.5 * min(moduleSize, region.moduleSize)
    }
}
