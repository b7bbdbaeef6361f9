import GazeModel

/// What the face did over one span of a session (the whole session, or a marker's interval):
/// how often each expression was the most probable, and how much the participant smiled.
public struct ExpressionFigures: Sendable, Equatable {
    /// Frames in the span with expression probabilities (frames with a face, in a recording
    /// asked for expressions).
    public var frames: Int
    /// Per expression, in `ExpressionName.allCases` order, the share 0…1 of those frames in which
    /// it was the most probable (`ExpressionProbabilities.dominant`); all 0 without frames.
    public var dominantShares: [Double]
    /// The mean of the smile shapes (`mouthSmile_L` and `mouthSmile_R`, 0…1) over the span's
    /// samples of them; nil when the session has none there.
    public var meanSmile: Double?

    public init(frames: Int, dominantShares: [Double], meanSmile: Double?) {
        precondition(dominantShares.count == ExpressionName.allCases.count)
        self.frames = frames
        self.dominantShares = dominantShares
        self.meanSmile = meanSmile
    }

    /// The share of frames in which `name` was the most probable expression.
    public func share(_ name: ExpressionName) -> Double {
        dominantShares[ExpressionName.allCases.firstIndex(of: name)!]
    }
}

/// A marker's interval and what the face did in it.
public typealias IntervalExpressions = MarkerInterval<ExpressionFigures>

/// What the face did over a session and over each marker's interval.
public typealias ExpressionReport = IntervalReport<ExpressionFigures>

/// Builds an `ExpressionReport` from a session's expression samples and smile-shape values, each
/// fed in time order, in one pass and constant memory per interval.
public struct ExpressionAccumulator: Sendable {
    /// The counts of one span (the session, or an interval) so far.
    private struct Span: Sendable {
        var frames = 0
        var dominant = [Int](repeating: 0, count: ExpressionName.allCases.count)
        var smileSum = 0.0
        var smiles = 0

        var figures: ExpressionFigures {
            ExpressionFigures(
                frames: frames,
                dominantShares: dominant.map { frames > 0 ? (Double($0) / Double(frames)).rounded(toDecimals: 4) : 0 },
                meanSmile: smiles > 0 ? (smileSum / Double(smiles)).rounded(toDecimals: 4) : nil)
        }
    }

    private let markers: MarkerIntervals
    private var session = Span()
    private var intervals: [Span]
    private var lastTime: Double?

    /// `markers` in any order (equal times keep their order).
    public init(markers: [Marker]) {
        self.markers = MarkerIntervals(markers)
        intervals = Array(repeating: Span(), count: markers.count)
    }

    /// One frame's expression probabilities.
    public mutating func add(_ sample: ExpressionSample) {
        let dominant = ExpressionName.allCases.firstIndex(of: sample.probabilities.dominant)!
        session.frames += 1
        session.dominant[dominant] += 1
        if let index = markers.index(at: sample.timestampSeconds) {
            intervals[index].frames += 1
            intervals[index].dominant[dominant] += 1
        }
        lastTime = Swift.max(lastTime ?? sample.timestampSeconds, sample.timestampSeconds)
    }

    /// One value 0…1 of a smile shape (`mouthSmile_L` or `mouthSmile_R`) at `timestampSeconds`.
    public mutating func addSmile(_ value: Double, timestampSeconds: Double) {
        session.smileSum += value
        session.smiles += 1
        if let index = markers.index(at: timestampSeconds) {
            intervals[index].smileSum += value
            intervals[index].smiles += 1
        }
        lastTime = Swift.max(lastTime ?? timestampSeconds, timestampSeconds)
    }

    /// The figures; nil without expression samples or smile values. `endSeconds` ends the last
    /// interval (default: the last sample's time).
    public func report(endSeconds: Double? = nil) -> ExpressionReport? {
        guard session.frames > 0 || session.smiles > 0 else { return nil }
        let end = endSeconds ?? lastTime ?? 0
        let spans = (0..<markers.count).map { index in
            let span = markers.span(index, endSeconds: end)
            return IntervalExpressions(label: markers.markers[index].label, start: span.start, end: span.end,
                                       figures: intervals[index].figures)
        }
        return ExpressionReport(session: session.figures, intervals: spans)
    }
}
