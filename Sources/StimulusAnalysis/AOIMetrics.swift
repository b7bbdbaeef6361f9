import GazeModel

/// What one session did with one area of interest (docs/Analysis.md defines each figure and the
/// lab tool whose definition it follows).
public struct AOIMetrics: Sendable, Equatable {
    public var session: String
    public var aoi: String
    /// Seconds of gaze samples inside the area while it existed (each sample standing for the time
    /// until the next, at most `StimulusViewing.maximumSampleSeconds`).
    public var dwellSeconds: Double
    /// `dwellSeconds` over the time the area existed while the stimulus was shown; nil if it never did.
    public var dwellShare: Double?
    /// From the area's appearance to the start of the first fixation whose centre is inside it; nil: none.
    public var timeToFirstFixationSeconds: Double?
    /// That fixation's duration.
    public var firstFixationSeconds: Double?
    /// Fixations whose centre is inside the area when they start.
    public var fixationCount: Int
    /// Visits: runs of consecutive fixations inside the area (a fixation elsewhere ends one).
    public var visits: Int
    /// The dominant expression of the mean probabilities of the frames while the gaze was inside; nil: none.
    public var dominantExpression: ExpressionName?
    /// The mean smile (0…1) of those frames; nil: none.
    public var smile: Double?
}

/// AOI metrics of sessions viewing one stimulus.
public enum AOIAnalysis {
    /// One row per area for the session (areas may overlap: a sample in two areas counts in both).
    public static func metrics(_ viewing: StimulusViewing, areas: [AreaOfInterest]) -> [AOIMetrics] {
        areas.map { metrics(viewing, area: $0) }
    }

    static func metrics(_ viewing: StimulusViewing, area: AreaOfInterest) -> AOIMetrics {
        var result = AOIMetrics(session: viewing.sessionID, aoi: area.name, dwellSeconds: 0, dwellShare: nil,
                                timeToFirstFixationSeconds: nil, firstFixationSeconds: nil, fixationCount: 0, visits: 0,
                                dominantExpression: nil, smile: nil)
        guard let existence = area.existence(durationSeconds: viewing.durationSeconds) else { return result }
        var inside = [Bool](repeating: false, count: viewing.samples.count)
        for (index, sample) in viewing.samples.enumerated() where existence.contains(sample.seconds) {
            guard let pixel = sample.pixel, area.contains(pixel, at: sample.seconds) else { continue }
            inside[index] = true
            result.dwellSeconds += sample.durationSeconds
        }
        let span = existence.upperBound - existence.lowerBound
        result.dwellShare = span > 0 ? Swift.min(1, result.dwellSeconds / span) : nil
        var previousInside = false
        for fixation in viewing.fixations where existence.contains(fixation.startSeconds) {
            let isInside = fixation.pixel.map { area.contains($0, at: fixation.startSeconds) } ?? false
            if isInside {
                if result.fixationCount == 0 {
                    result.timeToFirstFixationSeconds = fixation.startSeconds - existence.lowerBound
                    result.firstFixationSeconds = fixation.durationSeconds
                }
                result.fixationCount += 1
                if !previousInside { result.visits += 1 }
            }
            previousInside = isInside
        }
        let looking = { (seconds: Double) in viewing.sampleIndex(at: seconds).map { inside[$0] } ?? false }
        let probabilities = viewing.expressions.filter { looking($0.seconds) }.map(\.value)
        result.dominantExpression = Statistics.mean(probabilities)?.dominant
        let smiles = viewing.smile.filter { looking($0.seconds) }.map(\.value)
        result.smile = smiles.isEmpty ? nil : smiles.reduce(0, +) / Double(smiles.count)
        return result
    }
}
