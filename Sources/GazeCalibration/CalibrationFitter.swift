#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GazeCore
import GazeModel

/// The samples gathered while the participant looked at one target.
public struct CalibrationPointSamples: Sendable, Equatable {
    /// The target in screen points (origin top-left).
    public var target: Point2
    /// Every frame collected for it, usable or not (the fit decides).
    public var samples: [GazeFeatures]

    public init(target: Point2, samples: [GazeFeatures]) {
        self.target = target
        self.samples = samples
    }
}

/// Why a calibration could not be fitted; each case says what to do.
public enum CalibrationError: Error, Equatable, CustomStringConvertible {
    /// A target kept fewer usable samples than needed.
    case tooFewSamples(point: Int, target: Point2, usable: Int, collected: Int, needed: Int)
    /// Fewer targets than the mapping needs.
    case tooFewPoints(have: Int, needed: Int)
    /// The samples do not determine a mapping (e.g. every target gave the same eye position).
    case degenerate

    public var description: String {
        switch self {
        case let .tooFewSamples(point, target, usable, collected, needed):
            return "calibration point \(point + 1) at (\(Int(target.x.rounded())), \(Int(target.y.rounded()))) has "
                + "\(usable) usable sample\(usable == 1 ? "" : "s") of \(collected) (needs \(needed))"
        case let .tooFewPoints(have, needed):
            return "a calibration needs at least \(needed) targets, got \(have)."
        case .degenerate:
            return "the calibration samples do not determine a mapping (the eye positions hardly changed between targets). "
                + "Check that the camera sees the eyes clearly and that the participant looked at each target."
        }
    }
}

/// What the fit did with one target's samples.
public struct CalibrationPointFit: Sendable, Equatable {
    public var target: Point2
    public var collected: Int
    /// Samples kept after dropping unusable ones (tracking not normal, no pupil) and outliers.
    public var used: Int
    /// Mean distance of the kept samples' mapped gaze from the target, screen points (training error).
    public var meanErrorPoints: Double
}

/// A fitted calibration with its diagnostics.
public struct CalibrationFit: Sendable, Equatable {
    public var mapping: GazeMapping
    public var points: [CalibrationPointFit]
    /// Mean distance, over every kept sample, of its mapped gaze from its target (screen points).
    public var trainingErrorPoints: Double
    /// The same when each target is predicted by a fit without it (leave-one-target-out), screen
    /// points: an honest estimate of the error between targets.
    public var crossValidationErrorPoints: Double
}

/// Fits a `GazeMapping` to calibration samples: drops unusable samples and per-target outliers,
/// then solves a ridge regression whose penalty is chosen by leave-one-target-out cross-validation.
///
/// Outliers are judged where they matter, on the screen: after a first fit, a sample whose
/// residual lies more than `outlierThreshold` robust standard deviations (1.4826 × median absolute
/// deviation around the target's median residual, at least `residualFloorPoints`) from the others
/// at its target was a glance away or a mis-fit; it is dropped and the mapping fitted again. (In
/// feature space the eyes legitimately move within a target, countering head motion.)
public struct CalibrationFitter: Sendable {
    /// Usable samples a target must keep (default 8: a quarter of a second at 30 fps).
    public var minimumSamplesPerPoint: Int
    /// Fewest targets accepted.
    public var minimumPoints: Int
    /// Robust z-score above which a sample is an outlier.
    public var outlierThreshold: Double
    /// Robust residual spreads below this count as this much (screen points), so a target whose
    /// samples agree almost exactly does not turn tiny differences into outliers.
    public var residualFloorPoints: Double
    /// Ridge penalties tried for the polynomial set, on standardised terms.
    public var penalties: [Double]
    /// Ridge penalties tried for the appearance sets, per sample on standardised features.
    public var appearancePenalties: [Double]
    /// The feature sets tried; cross-validation picks one. A set is tried only when every target
    /// has enough samples with what it reads.
    public var featureSets: [GazeFeatureSet]
    /// Samples per target an appearance fit learns from (evenly spaced among the kept ones): the
    /// frames of one target differ little, and the fit's cost grows with the cube of the count.
    public var maximumSamplesPerTarget: Int

    public init(minimumSamplesPerPoint: Int = 8, minimumPoints: Int = 5, outlierThreshold: Double = 3.5,
                residualFloorPoints: Double = 3,
                penalties: [Double] = [1e-7, 1e-5, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1, 3],
                appearancePenalties: [Double] = [1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1],
                featureSets: [GazeFeatureSet] = [.appearance, .patches, .shape, .pupilPolynomial], maximumSamplesPerTarget: Int = 20) {
        precondition(minimumSamplesPerPoint >= 1 && minimumPoints >= 1 && !penalties.isEmpty && !appearancePenalties.isEmpty)
        precondition(!featureSets.isEmpty && maximumSamplesPerTarget >= 1)
        self.minimumSamplesPerPoint = minimumSamplesPerPoint
        self.minimumPoints = minimumPoints
        self.outlierThreshold = outlierThreshold
        self.residualFloorPoints = residualFloorPoints
        self.penalties = penalties
        self.appearancePenalties = appearancePenalties
        self.featureSets = featureSets
        self.maximumSamplesPerTarget = maximumSamplesPerTarget
    }

    /// Samples a fit can learn from: tracking normal, and what some feature set reads (a pupil,
    /// or the eye patches with both eyes open).
    public static func isUsable(_ sample: GazeFeatures) -> Bool {
        sample.trackingNormal && GazeFeatureSet.allCases.contains { $0.applies(to: sample) }
    }

    /// Samples a fit with `set` can learn from.
    public static func isUsable(_ sample: GazeFeatures, for set: GazeFeatureSet) -> Bool {
        sample.trackingNormal && set.applies(to: sample)
    }

    /// Fits the mapping, or says why it cannot.
    ///
    /// Every feature set in `featureSets` whose features every target has enough of is fitted
    /// with each of its penalties; the set and penalty that predict left-out targets best win.
    /// Outliers are then dropped and the winner fitted again.
    public func fit(_ points: [CalibrationPointSamples]) throws(CalibrationError) -> CalibrationFit {
        guard points.count >= minimumPoints else { throw .tooFewPoints(have: points.count, needed: minimumPoints) }
        let targets = points.map(\.target)
        func usable(_ set: GazeFeatureSet) -> [[GazeFeatures]] {
            points.map { $0.samples.filter { Self.isUsable($0, for: set) } }
        }
        func countError(_ kept: [[GazeFeatures]]) -> CalibrationError? {
            for (index, samples) in kept.enumerated() where samples.count < minimumSamplesPerPoint {
                return .tooFewSamples(point: index, target: points[index].target, usable: samples.count,
                                      collected: points[index].samples.count, needed: minimumSamplesPerPoint)
            }
            return nil
        }

        // 1. The feature set and penalty that predict left-out targets best.
        var best: (set: GazeFeatureSet, kept: [[GazeFeatures]], solution: Solution)?
        var firstFailure: CalibrationError?
        for set in featureSets {
            let kept = usable(set)
            if countError(kept) != nil { continue }
            do {
                let solution = try solve(set, kept, targets, penalties: nil)
                if best == nil || solution.crossValidationError < best!.solution.crossValidationError * (1 - 1e-9) {
                    best = (set, kept, solution)
                }
            } catch {
                if firstFailure == nil { firstFailure = error }
            }
        }
        guard let best else {
            // Say why for the most permissive notion of a usable sample.
            if let error = countError(points.map { $0.samples.filter { Self.isUsable($0) } }) { throw error }
            throw firstFailure ?? .degenerate
        }
        let set = best.set
        var kept = best.kept, solution = best.solution

        // 2. Drop outliers per target and fit again with the chosen set and penalty (twice at
        //    most: a first fit bent by many outliers may hide some of them).
        for _ in 0..<2 {
            var changed = false
            for index in kept.indices {
                let residuals = kept[index].map { solution.mapping.map($0)! - targets[index] }
                let centre = Point2(Self.median(residuals.map(\.x)), Self.median(residuals.map(\.y)))
                let distances = residuals.map { $0.distance(to: centre) }
                let spread = max(1.4826 * Self.median(distances), residualFloorPoints)
                let keep = distances.map { $0 / spread <= outlierThreshold }
                if keep.contains(false) {
                    kept[index] = kept[index].indices.filter { keep[$0] }.map { kept[index][$0] }
                    changed = true
                }
            }
            guard changed else { break }
            if let error = countError(kept) { throw error }
            solution = try solve(set, kept, targets, penalties: [solution.mapping.ridgePenalty])
        }

        var pointFits: [CalibrationPointFit] = []
        var totalError = 0.0, total = 0
        for index in kept.indices {
            let errors = kept[index].map { solution.mapping.map($0)!.distance(to: targets[index]) }
            totalError += errors.reduce(0, +)
            total += errors.count
            pointFits.append(CalibrationPointFit(target: targets[index], collected: points[index].samples.count,
                                                 used: kept[index].count,
                                                 meanErrorPoints: errors.reduce(0, +) / Double(errors.count)))
        }
        return CalibrationFit(mapping: solution.mapping, points: pointFits, trainingErrorPoints: totalError / Double(total),
                              crossValidationErrorPoints: solution.crossValidationError)
    }

    /// A fitted mapping and its leave-one-target-out error.
    struct Solution {
        var mapping: GazeMapping
        var crossValidationError: Double
    }

    /// The set's fit with the penalty (of `penalties`, else the set's own list) that predicts
    /// left-out targets best.
    private func solve(_ set: GazeFeatureSet, _ kept: [[GazeFeatures]], _ targets: [Point2], penalties: [Double]?)
        throws(CalibrationError) -> Solution {
        switch set {
        case .pupilPolynomial:
            let result = try solve(kept, targets, penalties: penalties ?? self.penalties)
            return Solution(mapping: result.mapping, crossValidationError: result.crossValidationError)
        case .patches, .shape, .appearance:
            return try solveAppearance(set, kept, targets, penalties: penalties ?? appearancePenalties)
        }
    }

    /// Ridge regression on the standardised appearance features in its dual form (`DualRidge`),
    /// from at most `maximumSamplesPerTarget` samples per target.
    private func solveAppearance(_ set: GazeFeatureSet, _ kept: [[GazeFeatures]], _ targets: [Point2], penalties: [Double])
        throws(CalibrationError) -> Solution {
        let p = set.featureCount
        var rows: [GazeFeatures] = [], rowTargets: [Point2] = [], groups: [[Int]] = []
        for (index, samples) in kept.enumerated() {
            let chosen = Self.evenlySpaced(samples, count: maximumSamplesPerTarget)
            groups.append(Array(rows.count..<(rows.count + chosen.count)))
            rows += chosen
            rowTargets += Array(repeating: targets[index], count: chosen.count)
        }
        // 1. Raw features, then standardised over the rows.
        var raw = [Double](repeating: 0, count: rows.count * p)
        raw.withUnsafeMutableBufferPointer { buffer in
            for (index, sample) in rows.enumerated() { set.appearanceFeatures(sample, into: buffer.baseAddress! + index * p) }
        }
        var means = [Double](repeating: 0, count: p), scales = [Double](repeating: 1, count: p)
        for k in 0..<p {
            var sum = 0.0
            for i in rows.indices { sum += raw[i * p + k] }
            let mean = sum / Double(rows.count)
            var variance = 0.0
            for i in rows.indices { variance += (raw[i * p + k] - mean) * (raw[i * p + k] - mean) }
            variance /= Double(rows.count)
            means[k] = mean
            // A feature that does not vary gets scale 1: its standardised value stays 0.
            scales[k] = variance > 1e-18 ? variance.squareRoot() : 1
        }
        for i in rows.indices { for k in 0..<p { raw[i * p + k] = (raw[i * p + k] - means[k]) / scales[k] } }
        let ridge = DualRidge(features: raw, featureCount: p, targets: rowTargets)

        // 2. The penalty with the smallest leave-one-target-out error (the smaller on ties).
        var best: (penalty: Double, error: Double)?
        for penalty in penalties.sorted() {
            var total = 0.0
            var solvable = true
            for (index, group) in groups.enumerated() {
                let training = groups.indices.filter { $0 != index }.flatMap { groups[$0] }
                guard let fit = ridge.fit(rows: training, penalty: penalty) else { solvable = false; break }
                var sum = 0.0
                for i in group { sum += ridge.predict(fit, sample: i).distance(to: targets[index]) }
                total += sum / Double(group.count)
            }
            guard solvable else { continue }
            let error = total / Double(groups.count)
            if best == nil || error < best!.error * (1 - 1e-9) { best = (penalty, error) }
        }
        guard let best, let fit = ridge.fit(rows: Array(rows.indices), penalty: best.penalty) else { throw .degenerate }
        let coefficients = ridge.primal(fit)
        return Solution(mapping: GazeMapping(featureSet: set, featureMeans: means, featureScales: scales,
                                             coefficientsX: coefficients.x, coefficientsY: coefficients.y,
                                             ridgePenalty: best.penalty),
                        crossValidationError: best.error)
    }

    /// At most `count` of `samples`, evenly spaced in their order.
    static func evenlySpaced(_ samples: [GazeFeatures], count: Int) -> [GazeFeatures] {
        guard samples.count > count else { return samples }
        return (0..<count).map { samples[$0 * samples.count / count] }
    }

    /// Standardises the features, then solves the ridge regression with the penalty that predicts
    /// left-out targets best.
    private func solve(_ kept: [[GazeFeatures]], _ targets: [Point2], penalties: [Double]) throws(CalibrationError)
        -> (mapping: GazeMapping, crossValidationError: Double) {
        let difference = Self.eyeDifference(kept.flatMap { $0 })

        // 1. Standardise the raw features over every kept sample.
        let all = kept.flatMap { $0 }
        var means = [Double](repeating: 0, count: GazeMapping.featureCount)
        var scales = [Double](repeating: 1, count: GazeMapping.featureCount)
        let raws: [[Double]] = all.map {
            let r = GazeMapping.raw(eye: $0.eye(difference: difference)!, $0)
            return [r.0, r.1, r.2, r.3, r.4, r.5]
        }
        for feature in 0..<GazeMapping.featureCount {
            let column = raws.map { $0[feature] }
            let mean = column.reduce(0, +) / Double(column.count)
            let variance = column.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(column.count)
            means[feature] = mean
            // A feature that does not vary (a perfectly still head) gets scale 1: its terms stay
            // near zero and the penalty keeps their coefficients there.
            scales[feature] = variance > 1e-18 ? variance.squareRoot() : 1
        }
        // Eye positions that do not vary between targets cannot be mapped.
        guard scales[0] != 1 || scales[1] != 1 else { throw .degenerate }

        // 2. Per-target normal equations, so leaving one target out is a subtraction.
        let n = GazeMapping.termCount
        var gram = [[Double]](repeating: [Double](repeating: 0, count: n * n), count: kept.count)
        var rightX = [[Double]](repeating: [Double](repeating: 0, count: n), count: kept.count)
        var rightY = rightX
        var termRows: [[[Double]]] = []
        for (index, samples) in kept.enumerated() {
            let target = targets[index]
            var rows: [[Double]] = []
            for sample in samples {
                let t = GazeMapping.termArray(eye: sample.eye(difference: difference)!, features: sample,
                                              means: means, scales: scales)
                for i in 0..<n {
                    for j in 0..<n { gram[index][i * n + j] += t[i] * t[j] }
                    rightX[index][i] += t[i] * target.x
                    rightY[index][i] += t[i] * target.y
                }
                rows.append(t)
            }
            termRows.append(rows)
        }
        func coefficients(excluding excluded: Int?, penalty: Double) -> ([Double], [Double])? {
            var a = [Double](repeating: 0, count: n * n)
            var bx = [Double](repeating: 0, count: n), by = bx
            var count = 0
            for index in kept.indices where index != excluded {
                for k in 0..<(n * n) { a[k] += gram[index][k] }
                for k in 0..<n {
                    bx[k] += rightX[index][k]
                    by[k] += rightY[index][k]
                }
                count += kept[index].count
            }
            // Per-sample penalty, intercept unpenalised.
            for k in 1..<n { a[k * n + k] += penalty * Double(count) }
            guard let solution = solveSymmetricPositiveDefinite(a, [bx, by], n: n) else { return nil }
            return (solution[0], solution[1])
        }
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

        // 3. The penalty with the smallest leave-one-target-out error (the smaller on ties).
        var best: (penalty: Double, error: Double)?
        for penalty in penalties.sorted() {
            var total = 0.0
            var solvable = true
            for index in kept.indices {
                guard let c = coefficients(excluding: index, penalty: penalty) else { solvable = false; break }
                total += meanError(c, index)
            }
            guard solvable else { continue }
            let error = total / Double(kept.count)
            if best == nil || error < best!.error * (1 - 1e-9) { best = (penalty, error) }
        }
        guard let best, let c = coefficients(excluding: nil, penalty: best.penalty) else { throw .degenerate }
        return (GazeMapping(featureMeans: means, featureScales: scales, coefficientsX: c.0, coefficientsY: c.1,
                            eyeDifference: difference, ridgePenalty: best.penalty), best.error)
    }

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

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
