import ARCore

/// Code 128 codes holding FNC4 (ISO 8859-1's upper half: FNC4 before a character adds 128 to
/// it, two in a row switch that on until two more), which zbar drops: it reports "ó" as "s".
/// Scan lines across a Code 128 reading are decoded by their symbols' widths (each symbol's six
/// widths, over its 11 modules, nearest a pattern of `Code128Patterns`; start, checksum, stop and
/// quiet zones as the standard asks); where two or more lines read the same symbols with FNC4 in
/// them, their text replaces zbar's. Pure logic, no zbar.
public enum Code128Check {
    /// Scan lines across a code's outline.
    static let lines = 11
    /// Quiet zone before the start and after the stop, at least, in modules (the standard asks 10).
    static let quietModules = 5.0
    /// Largest sum of squared differences, in modules, between a symbol's widths and its pattern.
    static let maxError = 1.5
    /// The shortest symbol: start, one character and checksum (6 elements, 11 modules each) and
    /// the stop (7 elements, 13 modules).
    static let fewestElements = 25, fewestModules = 46

    /// The symbol values (start to checksum) of every Code 128 symbol found on a line of grey
    /// `samples` (equally spaced), read from the line's start, its checksum valid.
    static func read(_ samples: [Double]) -> [[Int]] {
        ScanLine(samples, minimumSamples: fewestModules).map(read) ?? []
    }

    /// `read(_:)` on a line already cut into bars and spaces.
    static func read(_ line: ScanLine) -> [[Int]] {
        guard line.edges.count > fewestElements else { return [] }
        return (0..<(line.edges.count - fewestElements)).compactMap { s in
            line.darkAfter[s] ? symbols(line, at: s) : nil
        }
    }

    /// The values of the symbol whose start's first bar begins at edge `s` of `line`.
    private static func symbols(_ line: ScanLine, at s: Int) -> [Int]? {
        // The quiet zone first: it rules out most edges at once.
        guard line.before(s) >= quietModules * (line.edges[s + 6] - line.edges[s]) / 11,
              let start = value(line, at: s, among: Code128Patterns.startA...Code128Patterns.startC) else { return nil }
        var values = [start], k = s + 6
        // The stop: 7 elements over 13 modules, its last a 2-module bar.
        let stop = Code128Patterns.widths[Code128Patterns.stop]
        while k + 7 < line.edges.count {
            let widths = (0..<7).map { line.width(k + $0) }, unit = widths.reduce(0, +) / 13
            if error(widths.map { $0 / unit }, stop) <= maxError {
                guard values.count >= 3, line.after(k + 7) >= quietModules * unit else { return nil }
                let check = values.removeLast()
                let sum = values.enumerated().map { max(1, $0.offset) * $0.element }.reduce(0, +)
                return sum % 103 == check ? values + [check] : nil
            }
            guard let v = value(line, at: k, among: 0...102) else { return nil }
            values.append(v)
            k += 6
        }
        return nil
    }

    /// The value of `values` whose pattern is nearest the six elements from edge `k` (over their
    /// 11 modules); nil when none is within `maxError`.
    private static func value(_ line: ScanLine, at k: Int, among values: ClosedRange<Int>) -> Int? {
        guard k + 6 < line.edges.count else { return nil }
        let widths = (0..<6).map { line.width(k + $0) }, unit = widths.reduce(0, +) / 11
        guard unit > 0 else { return nil }
        let e = widths.map { $0 / unit }
        var best = (error: Double.infinity, value: 0)
        for v in values {
            let error = error(e, Code128Patterns.widths[v])
            if error < best.error { best = (error, v) }
        }
        return best.error <= maxError ? best.value : nil
    }

    /// Σ (e − pattern)² over the elements both have, added in order.
    private static func error(_ e: [Double], _ pattern: [Int]) -> Double {
        var sum = 0.0
        for i in 0..<min(e.count, pattern.count) {
            let d = e[i] - Double(pattern[i])
            sum += d * d
        }
        return sum
    }

    /// The bytes `values` (start, data, checksum) stand for; whether FNC4 is among them; whether
    /// FNC1, FNC2 or FNC3 are (GS1 and reader commands, which zbar reports its own way: skipped
    /// here).
    static func bytes(_ values: [Int]) -> (bytes: [UInt8], fnc4: Bool, commands: Bool) {
        guard let start = values.first, (Code128Patterns.startA...Code128Patterns.startC).contains(start) else { return ([], false, false) }
        // Code set: 0 A, 1 B, 2 C.
        var set = start - Code128Patterns.startA, shifted = false, fnc4 = false, commands = false, once = false, latched = false
        var out: [UInt8] = []
        for v in values.dropFirst().dropLast() {
            let current = shifted ? 1 - set : set
            shifted = false
            switch (current, v) {
            case (2, 0..<100): out += Array(String(format: "%02d", v).utf8)
            case (0, 0..<96), (1, 0..<96):
                let ascii = current == 0 ? (v < 64 ? v + 32 : v - 64) : v + 32
                out.append(UInt8(ascii + (once != latched ? 128 : 0)))
                once = false
            case (0, 98), (1, 98): shifted = true
            case (_, 99): set = 2
            case (0, 100), (2, 100): set = 1
            case (1, 101), (2, 101): set = 0
            case (0, 101), (1, 100):
                // FNC4: once for the next character; twice in a row switches the upper half on or off.
                fnc4 = true
                if once { latched.toggle(); once = false } else { once = true }
            default: commands = true
            }
        }
        return (out, fnc4, commands)
    }

    /// `d` as this check reads it: a Code 128 reading whose lines (two or more, read either way
    /// round) read symbols with FNC4 gets their text; where FNC1, FNC2 or FNC3 come with it, nil
    /// (zbar's text is wrong and this check does not write those); otherwise `d` as it is.
    public static func checked(_ d: Detection, in luma: LumaImage) -> Detection? {
        guard d.symbology == "CODE-128" else { return d }
        let length = d.quad.topLeft.distance(to: d.quad.topRight)
        guard length >= 20 else { return d }
        // Modules across the code at most: each of zbar's characters two symbols (FNC4 and itself),
        // start, checksum and stop; samples half the narrowest module that gives apart.
        let modules = Double(11 * (2 * d.payload.count + 3) + 2)
        let counts = ScanLine.tally(ScanLine.samples(across: d.quad, in: luma, lines: lines, reach: 0.15,
                                                     step: min(2, max(0.25, length / modules / 2))),
                                    minimumSamples: fewestModules) { Self.read($0) }
        let withFNC4 = counts.filter { $0.value >= 2 && bytes($0.key).fnc4 }
        guard let (values, _) = withFNC4.max(by: { ($0.value, $1.key.count) < ($1.value, $0.key.count) }) else { return d }
        let text = bytes(values)
        guard !text.commands else { return nil }
        var read = d
        read.payload = text.bytes
        return read
    }
}
