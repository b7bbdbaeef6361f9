import GazeCore
import GazeModel

/// Fits a `GazeMapping` to calibration samples: judges each target's closed-eye frames, skips
/// targets with too few usable samples, drops per-target outliers, then solves a ridge regression
/// whose feature set and penalty are chosen by leave-one-target-out cross-validation.
///
/// The work is in three parts, each in its own file: which targets and samples a fit learns from
/// and which samples are outliers (`TargetFitting.swift`), which feature set (or blend) maps best
/// (`ModelSelection.swift`), and the ridge regression itself, with one standardisation and one
/// penalty search for every set (`RidgeModel.swift`). The tuning is one `Configuration` value,
/// whose members read and write through the fitter too (`fitter.minimumSamplesPerPoint`).
///
/// **Skipped targets.** A target with fewer than `minimumSamplesPerPoint` usable samples (a look
/// away, a lost face, glasses flashing) is left out, and the fit goes on when enough well-spread
/// targets remain (`minimumTargets(of:)`, `isWellSpread`); only when too few remain does it fail,
/// naming each failed target.
///
/// **Choosing the feature set.** With 8 targets, the lowest cross-validated error among four
/// models is a noisy choice: it picks a model several times worse a third of the time. So the
/// choice leans toward `preferredSet` (the set that wins across sessions): another set replaces it
/// only when its cross-validated error is below `1 − preferenceMargin` of the preferred set's.
/// `combination` can average the linear sets instead (`SetCombination`); the polynomial set then
/// replaces the blend only as it would replace the preferred set.
///
/// **Outliers** are judged where they matter, on the screen: after a first fit, a sample whose
/// residual lies more than `outlierThreshold` robust standard deviations (1.4826 × median absolute
/// deviation around the target's median residual, at least `residualFloorPoints`) from the others
/// at its target was a glance away or a mis-fit; it is dropped and the mapping fitted again. (In
/// feature space the eyes legitimately move within a target, countering head motion.)
@dynamicMemberLookup
public struct CalibrationFitter: Sendable {
    /// The tuning (`Configuration` documents each value and its default).
    public var configuration: Configuration

    /// A fitter with `configuration` (the defaults when not given).
    public init(_ configuration: Configuration = Configuration()) {
        precondition(configuration.isValid, "calibration fitter configuration out of range")
        self.configuration = configuration
    }

    /// A fitter with the defaults changed by `change`: `CalibrationFitter { $0.preferredSet = nil }`.
    public init(configuring change: (inout Configuration) -> Void) {
        var configuration = Configuration()
        change(&configuration)
        self.init(configuration)
    }

    /// The defaults, but a target needs `minimumSamplesPerPoint` usable samples (the one value a
    /// calibration run sets).
    public init(minimumSamplesPerPoint: Int) {
        self.init { $0.minimumSamplesPerPoint = minimumSamplesPerPoint }
    }

    /// A configuration value, read or written through the fitter.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<Configuration, Value>) -> Value {
        get { configuration[keyPath: keyPath] }
        set { configuration[keyPath: keyPath] = newValue }
    }

    /// Fits the mapping, or says why it cannot.
    ///
    /// 1. Each target's closed-eye frames are judged (`eyeClosure`); targets with too few usable
    ///    samples are skipped (the fit fails when too few remain).
    /// 2. Every feature set is fitted with each of its penalties on the kept targets with enough
    ///    samples of what it reads (when enough well-spread ones have: a set may go without a
    ///    target whose eyes were judged shut but whose pupils showed, or the reverse); the choice
    ///    leans toward `preferredSet` (above), and the chosen set's missing targets are skipped.
    /// 3. Outliers are dropped and the winner fitted again; a target left short is skipped too.
    public func fit(_ points: [CalibrationPointSamples]) throws(CalibrationError) -> CalibrationFit {
        guard points.count >= self.minimumPoints else {
            throw .tooFewPoints(have: points.count, needed: self.minimumPoints)
        }
        let judged = points.map { self.eyeClosure.judged($0.samples) }
        let skipped = shortTargets(points, judged)
        try requireEnoughTargets(points, skipped)
        let choice = try dropOutliers(points, try chooseModel(points, judged, skipped))
        var fit = summary(points, choice)
        if choice.parts.count > 1 {
            fit.blendWeights = Dictionary(uniqueKeysWithValues: choice.parts.map { ($0.set, $0.weight) })
        }
        return fit
    }

    /// The fit's per-target figures, skipped targets included.
    private func summary(_ points: [CalibrationPointSamples], _ choice: ModelChoice) -> CalibrationFit {
        let mapping = choice.solution.mapping
        var pointFits: [CalibrationPointFit] = []
        var totalError = 0.0, total = 0
        for (index, point) in points.enumerated() {
            if let skip = choice.skipped[index] {
                pointFits.append(CalibrationPointFit(target: point.target, collected: point.samples.count, used: skip.usable,
                                                     meanErrorPoints: nil, skipped: skip))
                continue
            }
            let samples = choice.targets.first { $0.index == index }!.samples
            let errors = samples.map { mapping.map($0)!.distance(to: point.target) }
            totalError += errors.reduce(0, +)
            total += errors.count
            pointFits.append(CalibrationPointFit(target: point.target, collected: point.samples.count, used: samples.count,
                                                 meanErrorPoints: errors.reduce(0, +) / Double(errors.count), skipped: nil))
        }
        return CalibrationFit(mapping: mapping, points: pointFits, trainingErrorPoints: totalError / Double(total),
                              crossValidationErrorPoints: choice.solution.crossValidationError,
                              candidateErrorPoints: choice.candidates)
    }
}
