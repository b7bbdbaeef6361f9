/// The median of `values`: the middle one, or the mean of the two middle ones for an even count.
/// `values` must not be empty.
public func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
