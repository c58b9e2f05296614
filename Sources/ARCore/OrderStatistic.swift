extension Array where Element == Double {
    /// The element `sorted()[k]` would give, in expected linear time rather than a sort's
    /// n log n (quickselect, median-of-three pivots). The array is reordered: the answer ends at
    /// `k`, nothing greater before it, nothing smaller after it. No element may be NaN.
    public mutating func orderStatistic(_ k: Int) -> Double {
        precondition(indices.contains(k), "order statistic \(k) of \(count) values")
        withUnsafeMutableBufferPointer { a in
            var lo = 0, hi = a.count - 1
            while lo < hi {
                let mid = lo + (hi - lo) / 2
                if a[mid] < a[lo] { a.swapAt(mid, lo) }
                if a[hi] < a[lo] { a.swapAt(hi, lo) }
                if a[hi] < a[mid] { a.swapAt(hi, mid) }
                let pivot = a[mid]
                var i = lo, j = hi
                while i <= j {
                    while a[i] < pivot { i += 1 }
                    while pivot < a[j] { j -= 1 }
                    if i <= j { a.swapAt(i, j); i += 1; j -= 1 }
                }
                // [lo, j] ≤ pivot ≤ [i, hi]; anything between equals the pivot.
                if k <= j { hi = j } else if k >= i { lo = i } else { return }
            }
        }
        return self[k]
    }
}

extension Array where Element == Double {
    /// For each index `i`, the least and the greatest element within `radius` places either side
    /// (`self[max(0, i - radius)...min(count - 1, i + radius)]`), in linear time (monotonic queues
    /// of indices) rather than `count` × the window.
    public func slidingExtremes(radius: Int) -> (lowest: [Double], highest: [Double]) {
        guard !isEmpty else { return ([], []) }
        var lowest = [Double](repeating: 0, count: count), highest = lowest
        // Indices whose values rise (for the least) or fall (for the greatest), oldest first.
        var low: [Int] = [], high: [Int] = [], lowStart = 0, highStart = 0
        low.reserveCapacity(count)
        high.reserveCapacity(count)
        for j in 0..<(count + radius) {
            if j < count {
                while low.count > lowStart, self[low[low.count - 1]] >= self[j] { low.removeLast() }
                low.append(j)
                while high.count > highStart, self[high[high.count - 1]] <= self[j] { high.removeLast() }
                high.append(j)
            }
            let i = j - radius  // the window of `i` ends at `j`
            guard i >= 0 else { continue }
            while low[lowStart] < i - radius { lowStart += 1 }
            while high[highStart] < i - radius { highStart += 1 }
            lowest[i] = self[low[lowStart]]
            highest[i] = self[high[highStart]]
        }
        return (lowest, highest)
    }
}
