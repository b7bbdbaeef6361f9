import GazeModel

/// A session's marker intervals: each marker opens one that lasts until the next marker (the last
/// until the session's end), and a time belongs to the last marker at or before it.
///
/// The accumulators that report per marker interval (attention, expressions) share this one rule.
public struct MarkerIntervals: Sendable {
    /// The markers in time order (equal times keep the order they were given in).
    public let markers: [Marker]
    private let starts: [Double]

    /// `markers` in any order.
    public init(_ markers: [Marker]) {
        self.markers = markers.enumerated()
            .sorted { ($0.element.timestampSeconds, $0.offset) < ($1.element.timestampSeconds, $1.offset) }
            .map(\.element)
        starts = self.markers.map(\.timestampSeconds)
    }

    /// How many intervals there are: one per marker.
    public var count: Int { markers.count }

    /// The interval holding `timeSeconds`: the last marker at or before it (nil before the first).
    public func index(at timeSeconds: Double) -> Int? {
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= timeSeconds { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }

    /// Interval `index`'s start and end (Unix s): the next marker's time, or for the last interval
    /// `endSeconds` (never before its own start).
    public func span(_ index: Int, endSeconds: Double) -> (start: Double, end: Double) {
        (starts[index], index + 1 < starts.count ? starts[index + 1] : Swift.max(endSeconds, starts[index]))
    }
}

/// A marker's interval and its figures (attention, expressions): from its marker until the next
/// one's (the last until the session's end).
public struct MarkerInterval<Figures: Sendable & Equatable>: Sendable, Equatable {
    public var label: String
    /// Unix seconds.
    public var start: Double
    public var end: Double
    public var figures: Figures
}

/// A session's figures and each marker interval's.
public struct IntervalReport<Figures: Sendable & Equatable>: Sendable, Equatable {
    public var session: Figures
    public var intervals: [MarkerInterval<Figures>]
}
