import GazeModel

extension HighlightFinder {
    /// Why `highlights` found none, as a sentence: no participant with expressions, no time the
    /// majority shared the expression for long enough (with the longest such time), or no such
    /// interval whose gaze concentrated enough (with the tightest spread found).
    public static func whyNone(_ viewings: [StimulusViewing], placement: StimulusPlacement,
                               criteria: HighlightCriteria = HighlightCriteria()) -> String {
        let name = criteria.expression.rawValue
        let withExpressions = viewings.filter { !$0.expressions.isEmpty }
        let duration = viewings.map(\.durationSeconds).max() ?? 0
        let steps = Int((duration / criteria.stepSeconds).rounded(.up))
        guard steps > 0, !withExpressions.isEmpty else {
            return "no highlight: none of the \(viewings.count) sessions has expression data while the stimulus was shown"
        }
        let active = withExpressions.map { runs($0, steps: steps, criteria: criteria) }
        let needed = criteria.majority * Double(withExpressions.count)
        let majority = (0..<steps).map { step in Double(active.filter { $0[step] }.count) > needed }
        let sharedRuns = trueRuns(majority)
        let share = String(format: "%g %%", criteria.majority * 100)
        let one = withExpressions.count == 1
        let who = one ? "the one participant with expression data"
            : "more than \(share) of the \(withExpressions.count) participants with expression data"
        let long = sharedRuns.filter { Double($0.count) * criteria.stepSeconds >= criteria.minimumSeconds - 1e-9 }
        guard !long.isEmpty else {
            let longest = Double(sharedRuns.map(\.count).max() ?? 0) * criteria.stepSeconds
            return "no highlight: \(who) \(one ? "was" : "were") never in a run of \(name) at once for \(StimulusError.number(criteria.minimumSeconds)) s "
                + "(the longest such time was \(String(format: "%.1f", longest)) s)"
        }
        let threshold = criteria.maximumDispersionPixels ?? Double(Swift.min(placement.widthPixels, placement.heightPixels)) / 4
        let spreads = long.compactMap { dispersion(viewings, steps: $0, criteria: criteria) }
        guard let tightest = spreads.min() else {
            return "no highlight: \(long.count) interval(s) where \(who) showed \(name) had no gaze on the stimulus"
        }
        return "no highlight: in the \(long.count) interval(s) where \(who) showed \(name), the gaze's spread was at least "
            + "\(String(format: "%.1f", tightest)) pixels, more than the \(String(format: "%.1f", threshold)) allowed"
    }
}
