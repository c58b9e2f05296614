/// Shapes of a regular expression that make a backtracking engine (ICU's, behind
/// `NSRegularExpression`) take time exponential in the text's length, found from the pattern's
/// text alone so a style can refuse them when it loads.
///
/// Refused: a group repeated by `*`, `+`, `{n,}`, `{n}` or `{n,m}` (n, m > 1) that itself holds a
/// part repeated a varying number of times (`*`, `+`, `{n,}`, `{n,m}`), e.g. `(a+)+`, `(a*b?)*`,
/// `(?:x|y+){2,}`, `([a-z]+\.)+`. Allowed: the same with the inner or the outer repetition
/// possessive (`(a++)+`, `(a+)++`) or the group atomic (`(?>a+)+`), which give up no characters
/// once matched. Other slow shapes (overlapping alternatives such as
/// `(a|a)*`) pass this check; the time budget of a match (`StyleLimits.matchProgressReports`)
/// stops them.
public enum RegexShape {
    /// Why `pattern` may backtrack catastrophically, or nil when no such shape is found.
    public static func catastrophicShape(in pattern: String) -> String? {
        let c = Array(pattern.unicodeScalars)
        /// An open group: whether it is atomic and whether it holds a repeated part that can give
        /// characters back.
        struct Group {
            var atomic = false
            var holdsRepeat = false
        }
        var stack = [Group()]
        var i = 0

        /// The quantifier at `j`, if any: whether it repeats more than once, whether it also
        /// varies (may match more than once and a different number of times: gives characters
        /// back), whether it is possessive, and the index after it.
        func quantifier(at j: Int) -> (repeats: Bool, varies: Bool, possessive: Bool, end: Int)? {
            guard j < c.count else { return nil }
            var repeats: Bool, varies: Bool
            var k = j + 1
            switch c[j] {
            case "*", "+": repeats = true; varies = true
            case "?": repeats = false; varies = false
            case "{":
                var n = "", m = "", comma = false
                while k < c.count, c[k] != "}" {
                    if c[k] == "," { if comma { return nil }; comma = true } else if ("0"..."9").contains(c[k]) {
                        if comma { m.unicodeScalars.append(c[k]) } else { n.unicodeScalars.append(c[k]) }
                    } else { return nil }
                    k += 1
                }
                guard k < c.count, !n.isEmpty else { return nil }
                k += 1
                let low = Int(n.prefix(9)) ?? Int.max
                let high = !comma ? low : m.isEmpty ? Int.max : Int(m.prefix(9)) ?? Int.max
                repeats = high > 1
                varies = repeats && high > low
            default: return nil
            }
            var possessive = false
            if k < c.count, c[k] == "+" { possessive = true; k += 1 } else if k < c.count, c[k] == "?" { k += 1 }
            return (repeats, varies, possessive, k)
        }

        /// After an atom ending before `j`: records its quantifier in the current group; the index after.
        func afterAtom(_ j: Int) -> Int {
            guard let q = quantifier(at: j) else { return j }
            if q.varies && !q.possessive { stack[stack.count - 1].holdsRepeat = true }
            return q.end
        }

        while i < c.count {
            switch c[i] {
            case "\\":
                if i + 1 < c.count, c[i + 1] == "Q" {
                    // \Q…\E: literal text.
                    var k = i + 2
                    while k + 1 < c.count, !(c[k] == "\\" && c[k + 1] == "E") { k += 1 }
                    i = afterAtom(min(c.count, k + 2))
                } else {
                    i = afterAtom(min(c.count, i + 2))
                }
            case "[":
                // A character class, possibly with nested classes and escapes; `]` first is literal.
                var k = i + 1, depth = 1
                if k < c.count, c[k] == "^" { k += 1 }
                if k < c.count, c[k] == "]" { k += 1 }
                while k < c.count, depth > 0 {
                    if c[k] == "\\" { k += 2; continue }
                    if c[k] == "[" { depth += 1 } else if c[k] == "]" { depth -= 1 }
                    k += 1
                }
                i = afterAtom(min(c.count, k))
            case "(":
                var k = i + 1
                var group = Group()
                if k < c.count, c[k] == "?" {
                    k += 1
                    guard k < c.count else { return nil }
                    switch c[k] {
                    case "#":
                        // A comment: up to the next `)`.
                        while k < c.count, c[k] != ")" { k += 1 }
                        i = k + 1
                        continue
                    case ">": group.atomic = true; k += 1
                    case ":", "=", "!": k += 1
                    case "<":
                        if k + 1 < c.count, c[k + 1] == "=" || c[k + 1] == "!" { k += 2 } else {
                            while k < c.count, c[k] != ">" { k += 1 }
                            k += 1
                        }
                    default:
                        // Flags: `(?i)` applies to the rest, `(?i:…)` is a group.
                        while k < c.count, c[k] != ":", c[k] != ")" { k += 1 }
                        if k < c.count, c[k] == ")" { i = k + 1; continue }
                        k += 1
                    }
                }
                stack.append(group)
                i = k
            case ")":
                guard stack.count > 1 else { i += 1; continue }  // unbalanced: the engine refuses it
                let group = stack.removeLast()
                let inner = group.holdsRepeat && !group.atomic
                if let q = quantifier(at: i + 1) {
                    if q.repeats, !q.possessive, inner {
                        return "nested quantifiers (a repeated group holding a repeated part, as in '(a+)+') can take "
                            + "exponential time; make a repetition possessive ('a++', '(…)++') or the group atomic ('(?>…)')"
                    }
                    if !q.possessive, q.varies || inner { stack[stack.count - 1].holdsRepeat = true }
                    i = q.end
                } else {
                    if inner { stack[stack.count - 1].holdsRepeat = true }
                    i += 1
                }
            default:
                i = afterAtom(i + 1)
            }
        }
        return nil
    }
}
