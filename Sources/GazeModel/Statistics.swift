/// The median of `values`: the middle one, or the mean of the two middle ones for an even count.
/// `values` must not be empty.
public func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// The median of the values that are present; nil when none is.
public func median(ofPresent values: [Double?]) -> Double? {
    let present = values.compactMap { $0 }
    return present.isEmpty ? nil : median(present)
}
