import GazeModel

/// One bin of one session's (or, for the group, all sessions') viewing of a stimulus.
public struct TimelineRow: Sendable, Equatable {
    /// The session's id, or nil for a group row.
    public var session: String?
    /// The bin's start, seconds since the stimulus appeared.
    public var stimulusSeconds: Double
    /// Gaze samples in the bin (all sessions' for a group row).
    public var samples: Int
    /// The share of those samples on the stimulus (nil without samples).
    public var onStimulusShare: Double?
    /// The median gaze on the stimulus (pixels), nil without on-stimulus samples; for a group, the
    /// median of the participants' medians.
    public var gazePixels: Point2?
    /// The median distance of the on-stimulus samples from `gazePixels` (pixels); for a group, of
    /// the participants' medians from the group's (attention synchrony: small when they look together).
    public var dispersionPixels: Double?
    /// Fixations on the stimulus (their centre on it) and blinks starting in the bin.
    public var fixations: Int
    public var blinks: Int
    /// The dominant expression of the bin's mean probabilities (for a group: the one most
    /// participants' dominant expression is), nil without expression samples.
    public var dominantExpression: ExpressionName?
    /// Mean probabilities of the bin's expression samples (a group: the mean of the participants' means).
    public var expressionMeans: ExpressionProbabilities?
    /// Mean smile (0…1) of the bin, nil without smile values.
    public var smile: Double?
    /// Group rows only: how many participants had gaze or expressions in the bin, and the share of
    /// them whose dominant expression is each one (in `ExpressionName` order).
    public var participants: Int?
    public var dominantShares: [Double]?
}

/// Per-bin figures of sessions viewing one stimulus.
public enum StimulusTimeline {
    /// The bin starts of a stimulus shown for `durationSeconds`: 0, bin, 2·bin, … (the last may be short).
    public static func binCount(durationSeconds: Double, binSeconds: Double) -> Int {
        Int((durationSeconds / binSeconds).rounded(.up))
    }

    /// One row per bin of one session.
    public static func rows(_ viewing: StimulusViewing, binSeconds: Double) throws -> [TimelineRow] {
        guard binSeconds > 0, binSeconds.isFinite else {
            throw StimulusError.badParameter(name: "the bin", reason: "must be a positive number of seconds")
        }
        let count = binCount(durationSeconds: viewing.durationSeconds, binSeconds: binSeconds)
        var bins = (0..<count).map { Bin(start: Double($0) * binSeconds) }
        func bin(_ seconds: Double) -> Int? {
            let index = Int((seconds / binSeconds).rounded(.down))
            return index >= 0 && index < count ? index : nil
        }
        for sample in viewing.samples { if let b = bin(sample.seconds) { bins[b].add(sample) } }
        for fixation in viewing.fixations where fixation.pixel != nil { if let b = bin(fixation.startSeconds) { bins[b].fixations += 1 } }
        for blink in viewing.blinkStarts { if let b = bin(blink) { bins[b].blinks += 1 } }
        for expression in viewing.expressions { if let b = bin(expression.seconds) { bins[b].expressions.append(expression.value) } }
        for smile in viewing.smile { if let b = bin(smile.seconds) { bins[b].smile.append(smile.value) } }
        return bins.map { $0.row(session: viewing.sessionID) }
    }

    /// One row per bin over all sessions' rows (`rowsPerSession`: each session's `rows`, same bin width).
    public static func groupRows(_ rowsPerSession: [[TimelineRow]]) -> [TimelineRow] {
        let count = rowsPerSession.map(\.count).max() ?? 0
        return (0..<count).map { index in
            groupRow(rowsPerSession.compactMap { index < $0.count ? $0[index] : nil })
        }
    }

    private static func groupRow(_ rows: [TimelineRow]) -> TimelineRow {
        let samples = rows.map(\.samples).reduce(0, +)
        let onStimulus = rows.map { Double($0.samples) * ($0.onStimulusShare ?? 0) }.reduce(0, +)
        let centre = Statistics.centre(rows.compactMap(\.gazePixels))
        let dominant = rows.compactMap(\.dominantExpression)
        let present = rows.filter { $0.samples > 0 || $0.expressionMeans != nil }.count
        let shares = dominant.isEmpty ? nil : ExpressionName.allCases.map { name in
            Double(dominant.filter { $0 == name }.count) / Double(dominant.count)
        }
        let smiles = rows.compactMap(\.smile)
        return TimelineRow(
            session: nil, stimulusSeconds: rows.first?.stimulusSeconds ?? 0, samples: samples,
            onStimulusShare: samples > 0 ? onStimulus / Double(samples) : nil, gazePixels: centre?.point,
            dispersionPixels: centre?.dispersion, fixations: rows.map(\.fixations).reduce(0, +),
            blinks: rows.map(\.blinks).reduce(0, +),
            dominantExpression: shares.map { ExpressionProbabilities(values: $0).dominant },
            expressionMeans: Statistics.mean(rows.compactMap(\.expressionMeans)),
            smile: smiles.isEmpty ? nil : smiles.reduce(0, +) / Double(smiles.count),
            participants: present, dominantShares: shares)
    }

    /// What one bin collects.
    private struct Bin {
        var start: Double
        var samples = 0
        var onStimulus: [Point2] = []
        var fixations = 0
        var blinks = 0
        var expressions: [ExpressionProbabilities] = []
        var smile: [Double] = []

        mutating func add(_ sample: ViewedSample) {
            samples += 1
            if let pixel = sample.pixel { onStimulus.append(pixel) }
        }

        func row(session: String) -> TimelineRow {
            let centre = Statistics.centre(onStimulus)
            let means = Statistics.mean(expressions)
            return TimelineRow(
                session: session, stimulusSeconds: start, samples: samples,
                onStimulusShare: samples > 0 ? Double(onStimulus.count) / Double(samples) : nil,
                gazePixels: centre?.point, dispersionPixels: centre?.dispersion, fixations: fixations, blinks: blinks,
                dominantExpression: means?.dominant, expressionMeans: means,
                smile: smile.isEmpty ? nil : smile.reduce(0, +) / Double(smile.count), participants: nil, dominantShares: nil)
        }
    }
}
