import GazeModel

/// The thresholds of the highlight finder (docs/Analysis.md, "Stimuli").
public struct HighlightCriteria: Sendable, Equatable {
    /// The expression that must dominate.
    public var expression: ExpressionName = .happy
    /// How long it must dominate, for each participant and for the interval (seconds).
    public var minimumSeconds = 2.0
    /// The time grid the finder works on (seconds).
    public var stepSeconds = 0.1
    /// A participant's run of dominance survives gaps (steps without a face, or another expression
    /// dominating) up to this long (seconds).
    public var toleratedGapSeconds = 0.5
    /// More than this share of the participants with expression data must be in a run at once.
    public var majority = 0.5
    /// The gaze concentrates when the median over the interval's steps of the spread of all
    /// participants' gaze (median distance from its median point) is at most this (pixels); nil:
    /// a quarter of the stimulus's shorter side.
    public var maximumDispersionPixels: Double?
    /// The crop's aspect, width over height; nil: the stimulus's own.
    public var cropAspect: Double?
    /// Space left around the gaze inside the crop (degrees of visual angle).
    public var cropMarginDegrees = 2.0

    public init() {}
}

/// One highlight: an interval where most participants' faces showed the expression while their gaze concentrated.
public struct Highlight: Sendable, Equatable {
    public var startSeconds: Double
    public var endSeconds: Double
    /// Participants in a run of the expression at some time in the interval.
    public var participants: Int
    /// The expression's mean probability over those participants' frames in the interval.
    public var expressionProbability: Double
    public var dispersionPixels: Double
    /// The crop holding the gaze, stimulus pixels (left, top, width, height; even sizes).
    public var cropX: Int, cropY: Int, cropWidth: Int, cropHeight: Int
}

/// Finds highlights over sessions viewing one stimulus.
public enum HighlightFinder {
    /// Ranked highlights (most participants first, then the highest expression probability).
    public static func highlights(_ viewings: [StimulusViewing], placement: StimulusPlacement,
                                  criteria: HighlightCriteria = HighlightCriteria()) throws -> [Highlight] {
        try check(criteria)
        let duration = viewings.map(\.durationSeconds).max() ?? 0
        let steps = Int((duration / criteria.stepSeconds).rounded(.up))
        let withExpressions = viewings.filter { !$0.expressions.isEmpty }
        guard steps > 0, !withExpressions.isEmpty else { return [] }
        let active = withExpressions.map { runs($0, steps: steps, criteria: criteria) }
        let counts = (0..<steps).map { step in active.filter { $0[step] }.count }
        let needed = criteria.majority * Double(withExpressions.count)
        let majority = counts.map { Double($0) > needed }
        let threshold = criteria.maximumDispersionPixels ?? Double(Swift.min(placement.widthPixels, placement.heightPixels)) / 4
        var found: [Highlight] = []
        for run in trueRuns(majority) where Double(run.count) * criteria.stepSeconds >= criteria.minimumSeconds - 1e-9 {
            let start = Double(run.lowerBound) * criteria.stepSeconds, end = Double(run.upperBound) * criteria.stepSeconds
            guard let dispersion = dispersion(viewings, steps: run, criteria: criteria), dispersion <= threshold else { continue }
            let members = withExpressions.indices.filter { index in run.contains { active[index][$0] } }
            let probabilities = members.flatMap { withExpressions[$0].expressions.filter { $0.seconds >= start && $0.seconds < end } }
                .map { $0.value[criteria.expression] }
            let crop = self.crop(viewings, start: start, end: end, placement: placement, criteria: criteria)
            found.append(Highlight(startSeconds: start, endSeconds: Swift.min(end, duration), participants: members.count,
                                   expressionProbability: probabilities.reduce(0, +) / Double(Swift.max(1, probabilities.count)),
                                   dispersionPixels: dispersion, cropX: crop.x, cropY: crop.y, cropWidth: crop.width,
                                   cropHeight: crop.height))
        }
        return found.sorted { ($0.participants, $0.expressionProbability) > ($1.participants, $1.expressionProbability) }
    }

    private static func check(_ criteria: HighlightCriteria) throws {
        guard criteria.minimumSeconds > 0, criteria.stepSeconds > 0, criteria.toleratedGapSeconds >= 0 else {
            throw StimulusError.badParameter(name: "the minimum duration", reason: "must be a positive number of seconds")
        }
        guard criteria.majority >= 0, criteria.majority < 1 else {
            throw StimulusError.badParameter(name: "the majority", reason: "must be a share from 0 up to (not including) 1")
        }
        if let aspect = criteria.cropAspect, !(aspect > 0 && aspect.isFinite) {
            throw StimulusError.badParameter(name: "the crop's aspect", reason: "must be a positive width over height")
        }
        if let pixels = criteria.maximumDispersionPixels, !(pixels > 0) {
            throw StimulusError.badParameter(name: "the dispersion threshold", reason: "must be a positive number of pixels")
        }
    }

    /// Per step, whether the session is in a run of the expression at least the minimum long.
    static func runs(_ viewing: StimulusViewing, steps: Int, criteria: HighlightCriteria) -> [Bool] {
        var sums = [[Double]](repeating: [], count: steps)
        for sample in viewing.expressions {
            let step = Int((sample.seconds / criteria.stepSeconds).rounded(.down))
            guard step >= 0, step < steps else { continue }
            if sums[step].isEmpty { sums[step] = sample.value.values } else {
                for index in sums[step].indices { sums[step][index] += sample.value.values[index] }
            }
        }
        var dominant = sums.map { !$0.isEmpty && ExpressionProbabilities(values: $0).dominant == criteria.expression }
        let gap = Int((criteria.toleratedGapSeconds / criteria.stepSeconds).rounded())
        let original = trueRuns(dominant)
        for (a, b) in zip(original, original.dropFirst()) where b.lowerBound - a.upperBound <= gap {
            for step in a.upperBound..<b.lowerBound { dominant[step] = true }
        }
        var result = [Bool](repeating: false, count: steps)
        for run in trueRuns(dominant) where Double(run.count) * criteria.stepSeconds >= criteria.minimumSeconds - 1e-9 {
            for step in run { result[step] = true }
        }
        return result
    }

    /// The ranges of consecutive `true`.
    static func trueRuns(_ flags: [Bool]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start: Int?
        for (index, flag) in flags.enumerated() {
            if flag, start == nil { start = index }
            if !flag, let s = start { result.append(s..<index); start = nil }
        }
        if let s = start { result.append(s..<flags.count) }
        return result
    }

    /// The median over the steps of the spread of all participants' on-stimulus gaze; nil without gaze.
    static func dispersion(_ viewings: [StimulusViewing], steps: Range<Int>, criteria: HighlightCriteria) -> Double? {
        var perStep = [[Point2]](repeating: [], count: steps.count)
        for viewing in viewings {
            for sample in viewing.samples {
                guard let pixel = sample.pixel else { continue }
                let step = Int((sample.seconds / criteria.stepSeconds).rounded(.down))
                if steps.contains(step) { perStep[step - steps.lowerBound].append(pixel) }
            }
        }
        return median(ofPresent: perStep.compactMap { Statistics.centre($0)?.dispersion })
    }
}
