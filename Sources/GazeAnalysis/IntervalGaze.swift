import GazeModel

/// Where the gaze was in one marker interval: the median of its scan-path samples.
public struct IntervalGaze: Sendable, Equatable {
    /// The interval's marker label (labels may repeat; `start` tells the intervals apart).
    public var label: String
    /// Unix seconds: the interval is `[start, end)`.
    public var start: Double
    public var end: Double
    /// Scan-path samples in the interval.
    public var samples: Int
    /// The median x and y of those samples (screen points, origin top-left, y down); nil without samples.
    public var medianX: Double?
    public var medianY: Double?

    /// One figure per interval of `attention`, over the samples of `scanPath` (in time order) in it.
    public static func of(_ scanPath: [GazeSample], over intervals: [IntervalAttention]) -> [IntervalGaze] {
        intervals.map { interval in
            let inside = scanPath.filter { $0.timestampSeconds >= interval.start && $0.timestampSeconds < interval.end }
            return IntervalGaze(label: interval.label, start: interval.start, end: interval.end, samples: inside.count,
                                medianX: inside.isEmpty ? nil : median(inside.map(\.x)),
                                medianY: inside.isEmpty ? nil : median(inside.map(\.y)))
        }
    }
}
