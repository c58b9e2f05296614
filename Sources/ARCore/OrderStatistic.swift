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
