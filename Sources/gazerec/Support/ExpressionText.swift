import GazeAnalysis
import GazeModel
import JSONStream

/// What the face did, as `show` says it: the expressions that were most probable, by share of
/// frames, and the mean smile.
enum ExpressionText {
    /// "N frames with expressions: neutral 80.1 %, happy 12.0 %; mean smile 0.12" (expressions
    /// that never dominated left out).
    static func text(_ figures: ExpressionFigures) -> String {
        let shares = zip(ExpressionName.allCases, figures.dominantShares).filter { $0.1 > 0 }
            .sorted { $0.1 > $1.1 }
            .map { "\($0.0.rawValue) \(Formatting.fixed(100 * $0.1, 1)) %" }
        var text = figures.frames > 0
            ? "\(figures.frames) frames with expressions: " + shares.joined(separator: ", ")
            : "no expressions"
        if let smile = figures.meanSmile { text += "; mean smile \(Formatting.fixed(smile, 2))" }
        return text
    }

    /// The figures as JSON: frames, dominantShares (by name), meanSmile (when known).
    static func json(_ figures: ExpressionFigures) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [
            ("frames", .number(Double(figures.frames))),
            ("dominantShares", .object(zip(ExpressionName.allCases, figures.dominantShares).map { ($0.0.rawValue, .number($0.1)) })),
        ]
        if let smile = figures.meanSmile { members.append(("meanSmile", .number(smile))) }
        return members
    }

    /// `show --json`'s `expressions` member: the session's figures, then `intervals` (one per marker).
    static func json(_ report: ExpressionReport) -> JSONValue {
        var members = json(report.session)
        if !report.intervals.isEmpty {
            members.append(("intervals", .array(report.intervals.map { interval in
                .object([("label", .string(interval.label)), ("start", .number(interval.start)),
                         ("end", .number(interval.end))] + json(interval.figures))
            })))
        }
        return .object(members)
    }
}
