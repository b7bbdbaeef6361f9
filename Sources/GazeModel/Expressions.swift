/// The basic facial expressions gazerec records the probabilities of, in gazerec's order (the
/// order of the stored columns, the JSON members, the CSV columns and the live stream).
public enum ExpressionName: String, CaseIterable, Sendable {
    case neutral, happy, surprise, sad, angry, disgust, fear
}

/// One face's probability of each basic expression (0…1 each, summing to 1).
public struct ExpressionProbabilities: Sendable, Equatable {
    /// The probabilities in `ExpressionName.allCases` order.
    public var values: [Double]

    public init(values: [Double]) {
        precondition(values.count == ExpressionName.allCases.count)
        self.values = values
    }

    public subscript(name: ExpressionName) -> Double {
        values[ExpressionName.allCases.firstIndex(of: name)!]
    }

    /// The most probable expression (the first in gazerec's order on a tie).
    public var dominant: ExpressionName {
        let best = values.indices.max { values[$0] < values[$1] || (values[$0] == values[$1] && $0 > $1) }!
        return ExpressionName.allCases[best]
    }
}

/// One frame's expression probabilities, from the camera to the database and back
/// (`expressionSample`, exported under `"gazerec"."expressions"`).
///
/// Recorded for the frames with a face when a recording is asked for expressions; its time is
/// its frame's (`FrameMeasurement.timestampSeconds`).
public struct ExpressionSample: Sendable, Equatable {
    /// Unix seconds: the frame's time.
    public var timestampSeconds: Double
    public var probabilities: ExpressionProbabilities

    public init(timestampSeconds: Double, probabilities: ExpressionProbabilities) {
        self.timestampSeconds = timestampSeconds
        self.probabilities = probabilities
    }

    /// The names of the stored values, in column order: `ExpressionName`'s raw values.
    public static let valueNames = ExpressionName.allCases.map(\.rawValue)
}
