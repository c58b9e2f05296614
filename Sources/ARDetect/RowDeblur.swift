import ARCore
import Foundation

/// Motion blur across a 1D strip's bars, measured and undone row by row. A code that moves across
/// its bars while the shutter is open is smeared by a box as long as the motion: each row's
/// spectrum falls to zero at multiples of 1 / that length, which is how the length is measured
/// (the strip's rows run across the bars, so the motion that matters is along them).
extension LumaPlane {
    /// Motion blur across the bars undone (`measuredBlurLength`, `deblurRows`), for a strip whose
    /// modules are `modulePixels` wide; false (the strip unchanged) where no blur is measured. The
    /// filter's noise allowance is smaller for blurs past 3.5 modules (more of the bars' contrast
    /// is lost to them).
    mutating func deblur(modulePixels: Double) -> Bool {
        // One plan for the measure's transforms and the deconvolution's: both span the row mirrored.
        let plan = FourierPlan(count: Self.transformLength(2 * width))
        guard let length = measuredBlurLength(modulePixels: modulePixels, plan: plan) else { return false }
        deblurRows(length: length, noise: length <= 3.5 * modulePixels ? 0.01 : 0.003, plan: plan)
        return true
    }

    /// The length in pixels of a blur across the bars of a strip whose modules are `modulePixels`
    /// wide, where its edges are blurred (`rowEdgeRamp` at least `deblurRamp` modules; else nil):
    /// `rowBlurLength` between `deblurShortest` modules, or 0.9 of the ramp if longer, and
    /// `deblurLongest` modules. (A box `L` long also dips at 2/`L`, 3/`L`…, the first zeros of
    /// `L`/2, `L`/3; its edges ramp over about `L`, so the search starts near it.) `plan`: the
    /// transforms' plan (`rowBlurLength`), when already at hand.
    func measuredBlurLength(modulePixels: Double, plan: FourierPlan? = nil) -> Double? {
        guard height >= RegionDecoder.rowsPerGroup else { return nil }
        let profiles = rowGroupMeans()
        guard let ramp = rowEdgeRamp(profiles), ramp >= RegionDecoder.deblurRamp * modulePixels else { return nil }
        let longest = RegionDecoder.deblurLongest * modulePixels
        return rowBlurLength(shortest: min(longest - 0.25, max(RegionDecoder.deblurShortest * modulePixels, 0.9 * ramp)),
                             longest: longest, profiles: profiles, plan: plan)
    }

    /// The length, in pixels, of a box blur along the rows: the `L` between `shortest` and
    /// `longest` (pixels, 0.25 apart) whose first spectral zero (frequency 1/`L`) is the deepest dip
    /// in the rows' summed power spectrum below its neighbours'. Nil for rows under 16 px, a range
    /// that is empty or starts at 1 px or less, or one where no length fits the rows' spectrum.
    /// `profiles`: the strip's `rowGroupMeans`, when already at hand; `plan`: the transforms' plan
    /// (the power of two at least twice the row's width), likewise.
    func rowBlurLength(shortest: Double, longest: Double, profiles: [[Double]]? = nil, plan: FourierPlan? = nil) -> Double? {
        let w = width
        guard w >= 16, height > 0, shortest > 1, longest > shortest else { return nil }
        let n = Self.transformLength(2 * w)
        // The group profiles (less noise than rows), two per transform (one as the real part, one
        // as the imaginary), each less its mean and under a Hann window (its ends do not ring).
        let profiles = profiles ?? rowGroupMeans()
        let window = (0..<w).map { 0.5 - 0.5 * cos(2 * .pi * Double($0) / Double(w - 1)) }
        let plan = Self.plan(plan, count: n)
        var power = [Double](repeating: 0, count: n / 2 + 1)
        var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
        for pair in stride(from: 0, to: profiles.count, by: 2) {
            for x in 0..<n { re[x] = 0; im[x] = 0 }
            for g in pair..<min(profiles.count, pair + 2) {
                let profile = profiles[g], mean = profile.reduce(0, +) / Double(w)
                for x in 0..<w {
                    let v = (profile[x] - mean) * window[x]
                    if g == pair { re[x] = v } else { im[x] = v }
                }
            }
            plan.transform(&re, &im, inverse: false)
            // Both signals' power at k: (|X(k)|² + |X(n − k)|²) / 2.
            for k in 0...(n / 2) {
                let m = (n - k) % n
                power[k] += (re[k] * re[k] + im[k] * im[k] + re[m] * re[m] + im[m] * im[m]) / 2
            }
        }
        let logPower = power.map { log($0 + 1e-9) }
        var best: (dip: Double, length: Double)?
        for length in stride(from: shortest, through: longest, by: 0.25) {
            let k = Double(n) / length
            guard k + 3 < Double(logPower.count) else { continue }
            let i = Int(k.rounded()), band = max(2, Int(k * 0.25))
            // A length beyond twice the transform has no bin below its zero.
            guard i >= 1 else { continue }
            // The dip: how far the spectrum at 1/length falls below the bands either side.
            var sum = 0.0, count = 0
            for j in max(1, i - 2 * band)..<max(1, i - band) { sum += logPower[j]; count += 1 }
            for j in min(logPower.count, i + band)..<min(logPower.count, i + 2 * band) { sum += logPower[j]; count += 1 }
            guard count > 0 else { continue }
            let dip = sum / Double(count) - min(logPower[i - 1], logPower[i], logPower[i + 1])
            if best == nil || dip > best!.dip { best = (dip, length) }
        }
        return best?.length
    }

    /// How soft the edges along the rows are, in pixels: the rows' grey range (5th to 95th
    /// percentile, rows averaged in groups of `RegionDecoder.rowsPerGroup`) over their steepest
    /// step between neighbouring pixels (99th percentile). A box blur `L` long turns a step into a
    /// ramp `L` long. On the camera clips' strips (3 px per module): 0.5–0.9 modules for bars
    /// blurred under a module, 1.7 or more for bars blurred 2 modules or more. `profiles`: the
    /// strip's `rowGroupMeans`, when already at hand.
    func rowEdgeRamp(_ profiles: [[Double]]? = nil) -> Double? {
        guard width >= 2, height >= RegionDecoder.rowsPerGroup else { return nil }
        let profiles = profiles ?? rowGroupMeans()
        var values: [Double] = [], steps: [Double] = []
        let total = profiles.reduce(0) { $0 + $1.count }
        values.reserveCapacity(total)
        steps.reserveCapacity(total)
        for p in profiles {
            values += p
            for i in p.indices.dropFirst() { steps.append(abs(p[i] - p[i - 1])) }
        }
        let range = values.orderStatistic(values.count * 95 / 100) - values.orderStatistic(values.count * 5 / 100)
        let steepest = steps.orderStatistic(steps.count * 99 / 100)
        return steepest > 0 ? range / steepest : nil
    }

    /// The rows averaged in groups of `RegionDecoder.rowsPerGroup` (the last group may be shorter).
    private func rowGroupMeans() -> [[Double]] {
        let w = width, group = RegionDecoder.rowsPerGroup
        return pixels.withUnsafeBufferPointer { px in
            stride(from: 0, to: height, by: group).map { top in
                let rows = top..<min(height, top + group)
                return (0..<w).map { x in rows.reduce(0.0) { $0 + Double(px[$1 * w + x]) } / Double(rows.count) }
            }
        }
    }

    /// Each row deconvolved by a box blur `length` pixels long (Wiener filter, noise-to-signal
    /// power ratio `noise`, above 0), the row mirrored at its ends; values clamped to 0…255. Rows
    /// are left as they are for a length of 1 px or less, or not shorter than the row. `plan`: the
    /// transforms' plan (as for `rowBlurLength`), when already at hand.
    mutating func deblurRows(length: Double, noise: Double, plan: FourierPlan? = nil) {
        precondition(noise > 0, "a Wiener filter needs a noise allowance above 0")
        let w = width
        guard w >= 2, length > 1, length < Double(w) else { return }
        let n = Self.transformLength(2 * w)
        // The box, centred on pixel 0 (wrapping), its end taps weighted by the fraction they cover.
        // Symmetric, so its transform is real, and so is the filter: two rows go through one
        // transform (one as the real part, one as the imaginary) and come back apart.
        var kre = [Double](repeating: 0, count: n), kim = [Double](repeating: 0, count: n)
        let half = length / 2
        var total = 0.0
        for o in -Int(half.rounded(.up))...Int(half.rounded(.up)) {
            let weight = min(1, max(0, half + 0.5 - Double(abs(o))))
            kre[(o + n) % n] += weight
            total += weight
        }
        for i in 0..<n { kre[i] /= total }
        let plan = Self.plan(plan, count: n)
        plan.transform(&kre, &kim, inverse: false)
        // Wiener: K / (K² + noise), K real; the inverse transform's 1/n folded in.
        let filter = kre.map { $0 / ($0 * $0 + noise) / Double(n) }
        let h = height
        let re = UnsafeMutableBufferPointer<Double>.allocate(capacity: n), im = UnsafeMutableBufferPointer<Double>.allocate(capacity: n)
        defer {
            re.deallocate()
            im.deallocate()
        }
        pixels.withUnsafeMutableBufferPointer { px in
            func mean(_ y: Int) -> Double { (0..<w).reduce(0.0) { $0 + Double(px[y * w + $1]) } / Double(w) }
            // Row `y` less `mean`, then mirrored, then its first value: one continuous period.
            func fill(_ out: UnsafeMutableBufferPointer<Double>, row y: Int, mean: Double) {
                let r = y * w
                for x in 0..<w { out[x] = Double(px[r + x]) - mean }
                for x in w..<(2 * w) { out[x] = Double(px[r + 2 * w - 1 - x]) - mean }
                let first = Double(px[r]) - mean
                for x in (2 * w)..<n { out[x] = first }
            }
            func store(_ values: UnsafeMutableBufferPointer<Double>, row y: Int, mean: Double) {
                for x in 0..<w { px[y * w + x] = UInt8(min(255, max(0, (values[x] + mean).rounded()))) }
            }
            filter.withUnsafeBufferPointer { filter in
                for pair in stride(from: 0, to: h, by: 2) {
                    let second = pair + 1 < h
                    let means = (mean(pair), second ? mean(pair + 1) : 0)
                    fill(re, row: pair, mean: means.0)
                    if second { fill(im, row: pair + 1, mean: means.1) } else { im.update(repeating: 0) }
                    plan.transform(re, im, inverse: false)
                    for k in 0..<n {
                        re[k] *= filter[k]
                        im[k] *= filter[k]
                    }
                    plan.transform(re, im, inverse: true)
                    store(re, row: pair, mean: means.0)
                    if second { store(im, row: pair + 1, mean: means.1) }
                }
            }
        }
    }

    /// `given`, a plan for transforms of `count` values, or a new one when none is given.
    private static func plan(_ given: FourierPlan?, count: Int) -> FourierPlan {
        guard let given else { return FourierPlan(count: count) }
        precondition(given.count == count, "a plan for transforms of \(count) values")
        return given
    }

    /// The power of two at least `count`.
    private static func transformLength(_ count: Int) -> Int {
        var n = 1
        while n < count { n *= 2 }
        return n
    }
}

/// What a radix-2 transform of one length needs, worked out once for the transforms of a strip:
/// the bit-reversed swaps and the twiddle factors (cos, sin of −2πk/count).
struct FourierPlan {
    let count: Int
    private let swaps: [(Int, Int)]
    private let cosines: [Double], sines: [Double]

    /// A plan for transforms of `count` values (a power of two).
    init(count n: Int) {
        precondition(n > 0 && n & (n - 1) == 0, "the transform takes a power-of-two count")
        count = n
        var swaps: [(Int, Int)] = []
        var j = 0
        for i in 1..<max(1, n) {
            var bit = n >> 1
            while j & bit != 0 {
                j ^= bit
                bit >>= 1
            }
            j |= bit
            if i < j { swaps.append((i, j)) }
        }
        self.swaps = swaps
        let half = n / 2
        cosines = (0..<half).map { cos(-2 * Double.pi * Double($0) / Double(n)) }
        sines = (0..<half).map { sin(-2 * Double.pi * Double($0) / Double(n)) }
    }

    /// In-place transform of `re` + i`im` (`count` values each); `inverse` leaves out the 1/count scale.
    func transform(_ re: inout [Double], _ im: inout [Double], inverse: Bool) {
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in transform(re, im, inverse: inverse) }
        }
    }

    /// `transform` of values held in buffers of `count` values each.
    func transform(_ re: UnsafeMutableBufferPointer<Double>, _ im: UnsafeMutableBufferPointer<Double>, inverse: Bool) {
        let n = count
        precondition(re.count == n && im.count == n, "the transform takes two arrays of the plan's count")
        guard n > 1 else { return }
        let sign = inverse ? -1.0 : 1.0
        for (i, j) in swaps {
            re.swapAt(i, j)
            im.swapAt(i, j)
        }
        cosines.withUnsafeBufferPointer { cosines in
            sines.withUnsafeBufferPointer { sines in
                var size = 2
                while size <= n {
                    let half = size / 2, step = n / size
                    var start = 0
                    while start < n {
                        for k in 0..<half {
                            let a = start + k, b = a + half
                            let cr = cosines[k * step], ci = sign * sines[k * step]
                            let tr = re[b] * cr - im[b] * ci, ti = re[b] * ci + im[b] * cr
                            re[b] = re[a] - tr
                            im[b] = im[a] - ti
                            re[a] += tr
                            im[a] += ti
                        }
                        start += size
                    }
                    size *= 2
                }
            }
        }
    }
}
