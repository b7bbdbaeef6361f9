import GazeCore
import GazeModel

/// A fitted mapping and its leave-one-target-out error.
struct Solution {
    var mapping: GazeMapping
    var crossValidationError: Double
    /// Each target's samples (those the fit learnt from) predicted without that target, at
    /// the chosen penalty: what a blend is judged and weighed by (linear sets only).
    var predictions: [[Point2]]
    /// Each target's mean left-out error at the chosen penalty (screen points), in the order
    /// of the targets it learnt from; `crossValidationError` is their mean.
    var targetErrors: [Double]
}

extension CalibrationFitter {
    /// The set's ridge fit with the penalty (of `penalties`, else the set's own list) that predicts
    /// left-out targets best.
    func solve(_ set: GazeFeatureSet, _ targets: [TrainingTarget], penalties: [Double]?) throws(CalibrationError) -> Solution {
        if set.isPolynomial {
            return try RidgeModel.fit(PolynomialRidge(targets), penalties: penalties ?? self.penalties)
        }
        let ridge = AppearanceRidge(set, targets, samplesPerTarget: self.maximumSamplesPerTarget)
        return try RidgeModel.fit(ridge, penalties: penalties ?? self.appearancePenalties)
    }
}

/// Ridge regression from a feature set's standardised features to screen points, its penalty the
/// one of a list that predicts left-out targets best. The feature sets differ only in how a fit is
/// solved (`LeaveOneTargetOutRidge`): the standardisation (`FeatureStandardiser`) and the penalty
/// search are these, for every set.
enum RidgeModel {
    /// The mapping at the penalty with the smallest leave-one-target-out error (the smaller penalty
    /// on ties), with that error; `.degenerate` when no penalty gives a solvable fit.
    static func fit<Ridge: LeaveOneTargetOutRidge>(_ ridge: Ridge, penalties: [Double]) throws(CalibrationError) -> Solution {
        var best: (penalty: Double, error: Double, targetErrors: [Double], predictions: [[Point2]])?
        for penalty in penalties.sorted() {
            guard let (errors, predictions) = leftOutErrors(ridge, penalty: penalty) else { continue }
            let error = errors.reduce(0, +) / Double(errors.count)
            if best == nil || error < best!.error * (1 - 1e-9) { best = (penalty, error, errors, predictions) }
        }
        guard let best, let mapping = ridge.mapping(penalty: best.penalty) else { throw .degenerate }
        return Solution(mapping: mapping, crossValidationError: best.error, predictions: best.predictions,
                        targetErrors: best.targetErrors)
    }

    /// Each target's mean error when fitted without it at `penalty`, and its samples' predictions
    /// (when the ridge gives them); nil when a fit without some target cannot be solved.
    private static func leftOutErrors<Ridge: LeaveOneTargetOutRidge>(_ ridge: Ridge, penalty: Double)
        -> (errors: [Double], predictions: [[Point2]])? {
        var errors: [Double] = [], predictions: [[Point2]] = []
        for index in 0..<ridge.targetCount {
            guard let leftOut = ridge.leftOut(index, penalty: penalty) else { return nil }
            errors.append(leftOut.meanError)
            if let predicted = leftOut.predictions { predictions.append(predicted) }
        }
        return (errors, predictions)
    }
}

/// A ridge regression over a calibration's targets that can be fitted without any one of them.
protocol LeaveOneTargetOutRidge {
    var targetCount: Int { get }
    /// Target `index`'s mean error (screen points) when fitted without it at `penalty`, and its
    /// samples' predictions when a blend may need them; nil when that fit cannot be solved.
    func leftOut(_ index: Int, penalty: Double) -> (meanError: Double, predictions: [Point2]?)?
    /// The mapping fitted on every target at `penalty`; nil when it cannot be solved.
    func mapping(penalty: Double) -> GazeMapping?
}

/// Means and scales that standardise each feature over a fit's samples: z = (f − mean) / scale,
/// the scale the standard deviation. A feature that does not vary gets scale 1: its standardised
/// value stays 0 (a perfectly still head), and the penalty keeps its coefficients there.
struct FeatureStandardiser {
    var means: [Double]
    var scales: [Double]

    /// Over the rows of `raw` (samples × `featureCount`, row-major).
    init(_ raw: [Double], featureCount p: Int) {
        let rows = raw.count / p
        means = [Double](repeating: 0, count: p)
        scales = [Double](repeating: 1, count: p)
        for k in 0..<p {
            var sum = 0.0
            for i in 0..<rows { sum += raw[i * p + k] }
            let mean = sum / Double(rows)
            var variance = 0.0
            for i in 0..<rows { variance += (raw[i * p + k] - mean) * (raw[i * p + k] - mean) }
            variance /= Double(rows)
            means[k] = mean
            scales[k] = variance > 1e-18 ? variance.squareRoot() : 1
        }
    }

    /// `raw` (samples × features, row-major) standardised in place.
    func standardise(_ raw: inout [Double]) {
        let p = means.count
        for i in 0..<(raw.count / p) { for k in 0..<p { raw[i * p + k] = (raw[i * p + k] - means[k]) / scales[k] } }
    }
}

/// The polynomial set's ridge: normal equations kept per target, so a fit without one target is a
/// subtraction of its share. Per-sample penalty, intercept unpenalised.
struct PolynomialRidge: LeaveOneTargetOutRidge {
    let n = GazeMapping.termCount
    let targets: [Point2]
    let counts: [Int]
    let difference: Point2
    let standardiser: FeatureStandardiser
    var gram: [[Double]]
    var rightX: [[Double]]
    var rightY: [[Double]]
    var termRows: [[[Double]]] = []

    var targetCount: Int { targets.count }

    /// Throws `.degenerate` when the eye positions do not vary between targets: they cannot be mapped.
    init(_ training: [TrainingTarget]) throws(CalibrationError) {
        let samples = training.flatMap(\.samples)
        let difference = CalibrationFitter.eyeDifference(samples)
        self.difference = difference
        let raw = samples.flatMap { sample -> [Double] in
            let r = GazeMapping.raw(eye: sample.eye(difference: difference)!, sample)
            return [r.0, r.1, r.2, r.3, r.4, r.5]
        }
        standardiser = FeatureStandardiser(raw, featureCount: GazeMapping.featureCount)
        guard standardiser.scales[0] != 1 || standardiser.scales[1] != 1 else { throw .degenerate }
        targets = training.map(\.position)
        counts = training.map(\.samples.count)
        gram = [[Double]](repeating: [Double](repeating: 0, count: n * n), count: training.count)
        rightX = [[Double]](repeating: [Double](repeating: 0, count: n), count: training.count)
        rightY = rightX
        for (index, target) in training.enumerated() { accumulate(index, target) }
    }

    /// Adds target `index`'s samples to its share of the normal equations.
    private mutating func accumulate(_ index: Int, _ target: TrainingTarget) {
        var rows: [[Double]] = []
        for sample in target.samples {
            let t = GazeMapping.termArray(eye: sample.eye(difference: difference)!, features: sample,
                                          means: standardiser.means, scales: standardiser.scales)
            for i in 0..<n {
                for j in 0..<n { gram[index][i * n + j] += t[i] * t[j] }
                rightX[index][i] += t[i] * target.position.x
                rightY[index][i] += t[i] * target.position.y
            }
            rows.append(t)
        }
        termRows.append(rows)
    }

    func leftOut(_ index: Int, penalty: Double) -> (meanError: Double, predictions: [Point2]?)? {
        guard let c = coefficients(excluding: index, penalty: penalty) else { return nil }
        return (meanError(c, index), nil)
    }

    func mapping(penalty: Double) -> GazeMapping? {
        guard let c = coefficients(excluding: nil, penalty: penalty) else { return nil }
        return GazeMapping(featureMeans: standardiser.means, featureScales: standardiser.scales, coefficientsX: c.0,
                           coefficientsY: c.1, eyeDifference: difference, ridgePenalty: penalty)
    }

    /// The coefficients fitted without target `excluded` (nil: with all), or nil when the system
    /// is not positive definite.
    func coefficients(excluding excluded: Int?, penalty: Double) -> ([Double], [Double])? {
        var a = [Double](repeating: 0, count: n * n)
        var bx = [Double](repeating: 0, count: n), by = bx
        var count = 0
        for index in counts.indices where index != excluded {
            for k in 0..<(n * n) { a[k] += gram[index][k] }
            for k in 0..<n {
                bx[k] += rightX[index][k]
                by[k] += rightY[index][k]
            }
            count += counts[index]
        }
        for k in 1..<n { a[k * n + k] += penalty * Double(count) }
        guard let solution = solveSymmetricPositiveDefinite(a, [bx, by], n: n) else { return nil }
        return (solution[0], solution[1])
    }

    /// Mean distance from target `index` of its samples mapped with `c`.
    func meanError(_ c: ([Double], [Double]), _ index: Int) -> Double {
        var sum = 0.0
        for t in termRows[index] {
            var x = 0.0, y = 0.0
            for k in 0..<n {
                x += c.0[k] * t[k]
                y += c.1[k] * t[k]
            }
            sum += Point2(x, y).distance(to: targets[index])
        }
        return sum / Double(termRows[index].count)
    }
}

/// An appearance set's ridge on its standardised features, solved in its dual form (`DualRidge`),
/// from at most `samplesPerTarget` samples per target (evenly spaced among the kept ones).
struct AppearanceRidge: LeaveOneTargetOutRidge {
    let set: GazeFeatureSet
    let targets: [Point2]
    /// Each target's rows of `ridge`.
    let groups: [[Int]]
    let standardiser: FeatureStandardiser
    let ridge: DualRidge

    var targetCount: Int { targets.count }

    init(_ set: GazeFeatureSet, _ training: [TrainingTarget], samplesPerTarget: Int) {
        let p = set.featureCount
        var rows: [GazeFeatures] = [], rowTargets: [Point2] = [], groups: [[Int]] = []
        for target in training {
            let chosen = Self.evenlySpaced(target.samples, count: samplesPerTarget)
            groups.append(Array(rows.count..<(rows.count + chosen.count)))
            rows += chosen
            rowTargets += Array(repeating: target.position, count: chosen.count)
        }
        var raw = [Double](repeating: 0, count: rows.count * p)
        raw.withUnsafeMutableBufferPointer { buffer in
            for (index, sample) in rows.enumerated() { set.appearanceFeatures(sample, into: buffer.baseAddress! + index * p) }
        }
        standardiser = FeatureStandardiser(raw, featureCount: p)
        standardiser.standardise(&raw)
        self.set = set
        targets = training.map(\.position)
        self.groups = groups
        ridge = DualRidge(features: raw, featureCount: p, targets: rowTargets)
    }

    func leftOut(_ index: Int, penalty: Double) -> (meanError: Double, predictions: [Point2]?)? {
        let training = groups.indices.filter { $0 != index }.flatMap { groups[$0] }
        guard let fit = ridge.fit(rows: training, penalty: penalty) else { return nil }
        let predicted = groups[index].map { ridge.predict(fit, sample: $0) }
        return (predicted.reduce(0) { $0 + $1.distance(to: targets[index]) } / Double(predicted.count), predicted)
    }

    func mapping(penalty: Double) -> GazeMapping? {
        guard let fit = ridge.fit(rows: Array(0..<ridge.sampleCount), penalty: penalty) else { return nil }
        let coefficients = ridge.primal(fit)
        return GazeMapping(featureSet: set, featureMeans: standardiser.means, featureScales: standardiser.scales,
                           coefficientsX: coefficients.x, coefficientsY: coefficients.y, ridgePenalty: penalty)
    }

    /// At most `count` of `samples`, evenly spaced in their order.
    static func evenlySpaced(_ samples: [GazeFeatures], count: Int) -> [GazeFeatures] {
        guard samples.count > count else { return samples }
        return (0..<count).map { samples[$0 * samples.count / count] }
    }
}

extension CalibrationFitter {
    /// Mean left − right pupil position over samples with both eyes (zero if none).
    static func eyeDifference(_ samples: [GazeFeatures]) -> Point2 {
        var sum = Point2.zero
        var count = 0
        for sample in samples where sample.trackingNormal {
            guard let left = sample.pupilLeft, let right = sample.pupilRight else { continue }
            sum = sum + (left - right)
            count += 1
        }
        return count > 0 ? sum / Double(count) : .zero
    }
}
