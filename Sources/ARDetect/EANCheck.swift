import ARCore

/// EAN-13 and UPC-A codes read a second way, to catch zbar's misreads: from the widths of the
/// bars and spaces on scan lines across the code, with the print's ink spread (bars wider than
/// spaces by the same amount everywhere) measured on the guard patterns and taken out, each digit
/// then the pattern nearest its four widths. zbar tells some digits apart (1 from 7, 2 from 8)
/// by their bars' widths, so ink spread and blur at about 2 px a module change them alike on every
/// line: held-out photos of one UPC-A code (thick bars, 1.7–2 px a module) were read on many
/// lines as another valid EAN-13 by zbar, and by zxing-cpp too, where this reading finds the
/// printed digits. Pure logic, no zbar.
public enum EANCheck {
    /// Modules across an EAN-13 symbol, guards included.
    static let modules = 95
    /// Bars and spaces of an EAN-13 symbol: 3 + 6 × 4 + 5 + 6 × 4 + 3.
    static let elements = 59
    /// Scan lines across a code's outline.
    static let lines = 15
    /// Quiet zone before and after the guards, at least, in modules (the standard asks 11 and 7;
    /// photos crop it).
    static let quietModules = 5.0

    /// The left half's digit patterns (`EANPatterns`: each digit's L, then its G) as module widths
    /// (space, bar, space, bar), each with its digit and whether it is G (even parity).
    static let left: [(digit: Int, even: Bool, widths: SIMD4<Double>)] = (0..<10).flatMap { d in
        [(d, false, widths(EANPatterns.l[d])), (d, true, widths(EANPatterns.g[d]))]
    }
    /// The right half's (R: bar, space, bar, space).
    static let right: [(digit: Int, even: Bool, widths: SIMD4<Double>)] = (0..<10).map { ($0, false, widths(EANPatterns.r[$0])) }
    /// The left half's parities (true: G) for each first digit.
    static let parities: [[Bool]] = EANPatterns.parity.map { $0.map { $0 == "G" } }
    /// The guard patterns' elements, from a symbol's first: all of them, their bars, their spaces.
    private static let guardElements = [0, 1, 2, 56, 57, 58], guardBars = [0, 2, 28, 30, 56, 58], guardSpaces = [1, 27, 29, 31, 57]

    private static func widths(_ pattern: String) -> SIMD4<Double> {
        let w = EANPatterns.widths(pattern).map(Double.init)
        return SIMD4(w[0], w[1], w[2], w[3])
    }

    /// The 13 digits (GTIN-13: UPC-A with a leading 0) of every EAN-13 symbol found on a line of
    /// grey `samples` (equally spaced), read from the line's start, with quiet zones, a valid
    /// parity pattern and check digit.
    /// `window` > 0: edges against a local threshold, `window` samples either side (`ScanLine`).
    public static func read(_ samples: [Double], window: Int = 0) -> [String] {
        ScanLine(samples, minimumSamples: modules, window: window).map(read) ?? []
    }

    /// `read(_:window:)` on a line already cut into bars and spaces.
    static func read(_ line: ScanLine) -> [String] {
        guard line.edges.count > elements else { return [] }
        return (0..<(line.edges.count - elements)).compactMap { line.darkAfter[$0] ? symbol(line, at: $0) : nil }
    }

    /// The symbol whose first bar starts at edge `s` of `line`, if the 59 elements from there make one.
    private static func symbol(_ line: ScanLine, at s: Int) -> String? {
        let module = (line.edges[s + elements] - line.edges[s]) / Double(modules)
        // The quiet zones first: they rule out most edges at once.
        guard line.before(s) >= quietModules * module, line.after(s + elements) >= quietModules * module,
              abs(widthSum(line, s, guardElements) / 6 / module - 1) <= 0.4 else { return nil }
        // Ink spread: the guards' bars and spaces are a module each.
        let bars = widthSum(line, s, guardBars) / 6
        let spaces = widthSum(line, s, guardSpaces) / 5
        let spread = (bars - spaces) / 2
        var digits: [Int] = [], even: [Bool] = []
        for k in 0..<12 {
            let first = s + 3 + 4 * k + (k >= 6 ? 5 : 0)
            // Left digits start with a space, right ones with a bar.
            let right = k >= 6, shift = right ? SIMD4(-spread, spread, -spread, spread) : SIMD4(spread, -spread, spread, -spread)
            var e = SIMD4(line.width(first), line.width(first + 1), line.width(first + 2), line.width(first + 3)) + shift
            let unit = (e[0] + e[1] + e[2] + e[3]) / 7
            guard unit > 0 else { return nil }
            e /= unit
            var best = (error: Double.infinity, digit: 0, even: false)
            for t in right ? Self.right : Self.left {
                let d = e - t.widths
                let error = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + d[3] * d[3]
                if error < best.error { best = (error, t.digit, t.even) }
            }
            digits.append(best.digit)
            even.append(best.even)
        }
        guard let first = parities.firstIndex(of: Array(even[..<6])) else { return nil }
        let all = [first] + digits
        guard EANPatterns.checkDigit(all) == all[12] else { return nil }
        return all.map(String.init).joined()
    }

    /// The summed widths of elements `ks` of the symbol starting at edge `s`, added in order.
    private static func widthSum(_ line: ScanLine, _ s: Int, _ ks: [Int]) -> Double {
        var sum = 0.0
        for k in ks { sum += line.width(s + k) }
        return sum
    }

    /// How many of `lines` scan lines across `quad` (frame pixels, read from its top-left to its
    /// top-right, reached 15 % of its length past each end for the quiet zones) read each code
    /// (`read`, both ways round): samples about a quarter of a module apart. Where no line reads at
    /// its halfway grey, the lines are read again against a local threshold: on 400 EAN-13 codes
    /// drawn with ink spread (0.3–0.8 px each side, 1.5–3 px a module, some blurred) the wrong
    /// readings left after this check fell from 14 to 3, the right ones rose from 180 to 191.
    /// `own`: a reading's code, whose count the second reading keeps however few its lines.
    public static func readings(in luma: LumaImage, quad: Quad, own: String? = nil) -> [String: Int] {
        let length = quad.topLeft.distance(to: quad.topRight)
        guard length >= 20 else { return [:] }
        let step = min(2, max(0.25, length / Double(modules) / 4))
        let scans = ScanLine.samples(across: quad, in: luma, lines: lines, reach: 0.15, step: step)
        let counts = ScanLine.tally(scans, minimumSamples: modules) { read($0) }
        guard counts.isEmpty else { return counts }
        // No line read at its halfway grey (ink spread or blur kept narrow spaces below it): against a
        // local threshold, a module and a half either side; codes other than `own` count when read on a
        // third of the lines or more (a corpus photo's right reading had another code on 2 of 15).
        let window = max(2, Int((1.5 * length / Double(modules) / step).rounded()))
        return ScanLine.tally(scans, minimumSamples: modules, window: window) { read($0) }.filter { $0.key == own || $0.value * 3 >= scans.count }
    }

    /// `d` as this reading of its lines has it: itself unless another code is read on two or more
    /// lines and on more lines than `d`'s; then that code in `d`'s symbology when `d`'s own code
    /// is read on no line and the other fits the symbology (a UPC-A's leading 0, an ISBN-13's
    /// 978 or 979), else nil. Codes of other symbologies are returned as they are.
    public static func checked(_ d: Detection, in luma: LumaImage) -> Detection? {
        guard let own = gtin(d) else { return d }
        let counts = readings(in: luma, quad: d.quad, own: own)
        guard let (other, lines) = counts.filter({ $0.key != own }).max(by: { ($0.value, $1.key) < ($1.value, $0.key) }),
              lines >= 2, lines > counts[own, default: 0] else { return d }
        guard counts[own] == nil, let payload = payload(other, symbology: d.symbology) else { return nil }
        var read = d
        read.payload = Array(payload.utf8)
        return read
    }

    /// `d`'s code as 13 digits, for the symbologies this check reads; else nil.
    static func gtin(_ d: Detection) -> String? {
        guard d.payload.allSatisfy({ (48...57).contains($0) }) else { return nil }
        let text = String(decoding: d.payload, as: UTF8.self)
        switch d.symbology {
        case "EAN-13", "ISBN-13": return text.count == 13 ? text : nil
        case "UPC-A": return text.count == 12 ? "0" + text : nil
        default: return nil
        }
    }

    /// `code` (13 digits) as `symbology` reports it; nil when it cannot be one.
    static func payload(_ code: String, symbology: String) -> String? {
        switch symbology {
        case "EAN-13": return code
        case "UPC-A": return code.hasPrefix("0") ? String(code.dropFirst()) : nil
        case "ISBN-13": return code.hasPrefix("978") || code.hasPrefix("979") ? code : nil
        default: return nil
        }
    }
}
