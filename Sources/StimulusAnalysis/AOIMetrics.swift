import GazeModel

/// What one session did with one area of interest (docs/Analysis.md defines each figure and the
/// lab tool whose definition it follows).
public struct AOIMetrics: Sendable, Equatable {
    public var session: String
    /// The participant group the session belongs to (nil: none given).
    public var group: String?
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
    /// Their summed durations (Pro Lab's "Total duration of fixations"), and that over their count
    /// ("Average duration of fixations"; nil without fixations), seconds.
    public var totalFixationSeconds: Double
    public var averageFixationSeconds: Double?
    /// Visits: runs of consecutive fixations inside the area (a fixation elsewhere ends one).
    public var visits: Int
    /// Each visit lasts from its first fixation's start to its last fixation's end: their sum
    /// ("Total duration of Visit") and mean ("Average duration of Visit"; nil without visits), seconds.
    public var totalVisitSeconds: Double
    public var averageVisitSeconds: Double?
    /// From the area's appearance to the start of its first visit ("Time to first Visit"); nil: none.
    /// A visit begins with a fixation, so this is `timeToFirstFixationSeconds`, reported under both names.
    public var timeToFirstVisitSeconds: Double?
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
        var result = AOIMetrics(session: viewing.sessionID, group: nil, aoi: area.name, dwellSeconds: 0, dwellShare: nil,
                                timeToFirstFixationSeconds: nil, firstFixationSeconds: nil, fixationCount: 0,
                                totalFixationSeconds: 0, averageFixationSeconds: nil, visits: 0, totalVisitSeconds: 0,
                                averageVisitSeconds: nil, timeToFirstVisitSeconds: nil, dominantExpression: nil, smile: nil)
        guard let existence = area.existence(durationSeconds: viewing.durationSeconds) else { return result }
        var inside = [Bool](repeating: false, count: viewing.samples.count)
        for (index, sample) in viewing.samples.enumerated() where existence.contains(sample.seconds) {
            guard let pixel = sample.pixel, area.contains(pixel, at: sample.seconds) else { continue }
            inside[index] = true
            result.dwellSeconds += sample.durationSeconds
        }
        let span = existence.upperBound - existence.lowerBound
        result.dwellShare = span > 0 ? Swift.min(1, result.dwellSeconds / span) : nil
        addFixations(viewing, area: area, existence: existence, to: &result)
        let looking = { (seconds: Double) in viewing.sampleIndex(at: seconds).map { inside[$0] } ?? false }
        let probabilities = viewing.expressions.filter { looking($0.seconds) }.map(\.value)
        result.dominantExpression = Statistics.mean(probabilities)?.dominant
        let smiles = viewing.smile.filter { looking($0.seconds) }.map(\.value)
        result.smile = smiles.isEmpty ? nil : smiles.reduce(0, +) / Double(smiles.count)
        return result
    }

    /// The fixation and visit figures: fixations starting while the area exists, inside it.
    private static func addFixations(_ viewing: StimulusViewing, area: AreaOfInterest, existence: ClosedRange<Double>,
                                     to result: inout AOIMetrics) {
        var visit: (start: Double, end: Double)?
        func closeVisit() {
            guard let open = visit else { return }
            result.totalVisitSeconds += open.end - open.start
            visit = nil
        }
        for fixation in viewing.fixations where existence.contains(fixation.startSeconds) {
            guard fixation.pixel.map({ area.contains($0, at: fixation.startSeconds) }) ?? false else {
                closeVisit()
                continue
            }
            if result.fixationCount == 0 {
                result.timeToFirstFixationSeconds = fixation.startSeconds - existence.lowerBound
                result.firstFixationSeconds = fixation.durationSeconds
            }
            result.fixationCount += 1
            result.totalFixationSeconds += fixation.durationSeconds
            if visit == nil {
                result.visits += 1
                visit = (fixation.startSeconds, fixation.endSeconds)
            } else {
                visit!.end = fixation.endSeconds
            }
        }
        closeVisit()
        result.timeToFirstVisitSeconds = result.timeToFirstFixationSeconds
        if result.fixationCount > 0 { result.averageFixationSeconds = result.totalFixationSeconds / Double(result.fixationCount) }
        if result.visits > 0 { result.averageVisitSeconds = result.totalVisitSeconds / Double(result.visits) }
    }
}
