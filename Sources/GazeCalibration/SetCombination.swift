import GazeModel

/// How a calibration turns the feature sets it could fit into the one mapping it keeps.
///
/// With 8 targets, each set's cross-validated error is itself a noisy estimate, so picking the
/// lowest is a gamble: on the kept-back webcam set it chose a set two to three times worse a third
/// of the time. Every combination here leans away from that gamble in its own way; which serves
/// best is measured by `gazerec-bench choice` (docs/Calibration.md).
public enum SetCombination: String, Sendable, CaseIterable {
    /// One set: `CalibrationFitter.preferredSet`, unless another set's cross-validated error is
    /// below `1 − preferenceMargin` of its own.
    case choose
    /// The linear sets (`patches`, `appearance`, `shape`) averaged, each weighted by the inverse
    /// square of its cross-validated error: one linear mapping of the `appearance` features. The
    /// polynomial set replaces the blend only as it would replace the preferred set.
    case inverseErrorBlend
    /// The linear sets averaged with the convex weights (a grid of 5 % steps) whose blended
    /// leave-one-target-out predictions lie nearest their targets (stacking). As
    /// `inverseErrorBlend` for the polynomial set.
    case stackedBlend
}

/// A weighted average of linear mappings, written as one: every linear set reads a subset of the
/// `appearance` features (the head's 6, then the face's shape, then the eye patches), standardised
/// over the same samples, so a convex combination of their predictions is itself linear in those
/// features. Its prediction lies, for every frame, within the weighted mean of its parts' distances
/// from any point (the triangle inequality): a blend is never worse than its parts on average.
struct MappingBlend {
    /// The parts and their weights (summing to 1).
    var parts: [(set: GazeFeatureSet, weight: Double)]

    /// The `appearance` feature index of feature `k` of `set` (a linear set).
    static func appearanceIndex(_ set: GazeFeatureSet, _ k: Int) -> Int {
        guard let index = set.appearanceIndex else {
            preconditionFailure("the \(set.rawValue) set is not linear in the appearance features")
        }
        return index(k)
    }

    /// One `appearance` mapping that predicts the weighted mean of `mappings` (in `parts` order).
    func mapping(_ mappings: [GazeMapping]) -> GazeMapping {
        precondition(mappings.count == parts.count)
        let p = GazeFeatureSet.appearance.featureCount
        var means = [Double](repeating: 0, count: p), scales = [Double](repeating: 1, count: p)
        var x = [Double](repeating: 0, count: p + 1), y = x
        var penalty = 0.0
        for (part, mapping) in zip(parts, mappings) {
            precondition(mapping.featureSet == part.set)
            x[0] += part.weight * mapping.coefficientsX[0]
            y[0] += part.weight * mapping.coefficientsY[0]
            for k in 0..<part.set.featureCount {
                let index = Self.appearanceIndex(part.set, k)
                // The parts were standardised over the same samples: shared features agree.
                means[index] = mapping.featureMeans[k]
                scales[index] = mapping.featureScales[k]
                x[index + 1] += part.weight * mapping.coefficientsX[k + 1]
                y[index + 1] += part.weight * mapping.coefficientsY[k + 1]
            }
            penalty += part.weight * mapping.ridgePenalty
        }
        return GazeMapping(featureSet: .appearance, featureMeans: means, featureScales: scales, coefficientsX: x,
                           coefficientsY: y, ridgePenalty: penalty)
    }

    /// The blend's leave-one-target-out error: the mean over targets of its samples' mean distance
    /// from the target, each sample predicted by the weighted mean of its parts' predictions
    /// without its target. `predictions[part][target][sample]`.
    static func crossValidationError(_ predictions: [[[Point2]]], weights: [Double], targets: [Point2]) -> Double {
        targetErrors(predictions, weights: weights, targets: targets).reduce(0, +) / Double(targets.count)
    }

    /// Each target's mean distance of its blended left-out predictions from it.
    static func targetErrors(_ predictions: [[[Point2]]], weights: [Double], targets: [Point2]) -> [Double] {
        targets.enumerated().map { index, target in
            let count = predictions[0][index].count
            var sum = 0.0
            for sample in 0..<count {
                var point = Point2.zero
                for part in predictions.indices { point = point + predictions[part][index][sample] * weights[part] }
                sum += point.distance(to: target)
            }
            return sum / Double(count)
        }
    }

    /// Weights ∝ 1 / error² (an error of 0 takes all the weight).
    static func inverseErrorWeights(_ errors: [Double]) -> [Double] {
        if let perfect = errors.firstIndex(where: { $0 <= 0 }) {
            return errors.indices.map { $0 == perfect ? 1 : 0 }
        }
        let inverse = errors.map { 1 / ($0 * $0) }
        let sum = inverse.reduce(0, +)
        return inverse.map { $0 / sum }
    }

    /// The convex weights on a grid of `1 / steps` whose blended leave-one-target-out error is
    /// lowest (on ties, the earlier grid point: more weight on the earlier parts).
    static func stackedWeights(_ predictions: [[[Point2]]], targets: [Point2], steps: Int = 20) -> [Double] {
        var best: (weights: [Double], error: Double)?
        for weights in simplexGrid(parts: predictions.count, steps: steps) {
            let error = crossValidationError(predictions, weights: weights, targets: targets)
            if best == nil || error < best!.error * (1 - 1e-12) { best = (weights, error) }
        }
        return best!.weights
    }

    /// Every weight vector of `parts` non-negative multiples of `1 / steps` summing to 1, the
    /// first part's weight descending.
    static func simplexGrid(parts: Int, steps: Int) -> [[Double]] {
        func compositions(_ parts: Int, _ total: Int) -> [[Int]] {
            guard parts > 1 else { return [[total]] }
            return stride(from: total, through: 0, by: -1).flatMap { first in
                compositions(parts - 1, total - first).map { [first] + $0 }
            }
        }
        return compositions(parts, steps).map { $0.map { Double($0) / Double(steps) } }
    }
}
