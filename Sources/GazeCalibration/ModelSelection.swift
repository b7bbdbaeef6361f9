import GazeCore
import GazeModel

/// The chosen feature set (or the linear sets blended, with their weights), the targets it
/// learns from with their samples, the targets it goes without, its solution, and every
/// candidate's cross-validated error.
struct ModelChoice {
    var parts: [(set: GazeFeatureSet, weight: Double)]
    /// The targets the set learns from, in the order shown, each with the samples the set reads.
    var targets: [TrainingTarget]
    /// Every target the set goes without: those no set could use and those it cannot.
    var skipped: [Int: SkippedCalibrationPoint]
    var solution: Solution
    var candidates: [GazeFeatureSet: Double]
    /// Each part's own solution, in `parts` order.
    var partSolutions: [Solution]

    init(set: GazeFeatureSet, targets: [TrainingTarget], skipped: [Int: SkippedCalibrationPoint], solution: Solution) {
        parts = [(set, 1)]
        self.targets = targets
        self.skipped = skipped
        self.solution = solution
        candidates = [:]
        partSolutions = [solution]
    }

    var set: GazeFeatureSet { parts.count == 1 ? parts[0].set : .appearance }

    /// Indices of the targets the set learns from, in order.
    var active: [Int] { targets.map(\.index) }
}

/// Model selection: every feature set fitted, and one (or a blend) chosen.
extension CalibrationFitter {
    /// Fits every set on the targets not yet `skipped` that have enough samples for it — a set
    /// goes without a target it cannot read (eyes judged shut for the patches, no pupil for the
    /// polynomial) when enough well-spread targets remain — and picks one (leaning toward
    /// `preferredSet`, each comparison over the targets both sets learn from). When no set can be
    /// fitted, the failure told is the one naming the failed targets of the set that kept the most.
    func chooseModel(_ points: [CalibrationPointSamples], _ judged: [[GazeFeatures]],
                     _ skipped: [Int: SkippedCalibrationPoint]) throws(CalibrationError) -> ModelChoice {
        var fitted: [ModelChoice] = []
        var failures: [(set: GazeFeatureSet, targets: Int, error: CalibrationError)] = []
        for set in self.featureSets {
            let (targets, setSkipped) = trainingTargets(for: set, points, judged, skipped: skipped)
            do {
                try requireEnoughTargets(points, setSkipped)
                let solution = try solve(set, targets, penalties: nil)
                fitted.append(ModelChoice(set: set, targets: targets, skipped: setSkipped, solution: solution))
            } catch {
                failures.append((set, targets.count, error))
            }
        }
        guard !fitted.isEmpty else { throw toldFailure(failures) }
        var best = choose(fitted, points)
        for candidate in fitted { best.candidates[candidate.set] = candidate.solution.crossValidationError }
        return best
    }

    /// The failure that names targets, of the set that kept the most of them (the preferred set
    /// on a tie), says the most; "the samples do not determine a mapping" only when no set that
    /// read any target fell short of targets.
    private func toldFailure(_ failures: [(set: GazeFeatureSet, targets: Int, error: CalibrationError)]) -> CalibrationError {
        let named = failures.filter { if case .tooFewTargets = $0.error { $0.targets > 0 } else { false } }
        let told = named.isEmpty ? failures : named
        let most = told.map(\.targets).max()
        return (told.first { $0.targets == most && $0.set == self.preferredSet } ?? told.first { $0.targets == most })?.error
            ?? .degenerate
    }

    /// The choice among `fitted` (not empty): the preferred set (or blend) unless another beats it
    /// by the margin, else the lowest error.
    private func choose(_ fitted: [ModelChoice], _ points: [CalibrationPointSamples]) -> ModelChoice {
        let preferred = self.combination == .choose ? fitted.first { $0.set == self.preferredSet } : blend(fitted, points)
        guard let preferred else {
            // No preference: the lowest error over the targets every candidate learns from.
            let shared = fitted.dropFirst().reduce(Set(fitted[0].active)) { $0.intersection($1.active) }
            return fitted.min { Self.meanError($0, over: shared) < Self.meanError($1, over: shared) }!
        }
        // Every other candidate against the preferred one directly, on the targets the two
        // share: of those whose error is below 1 − margin of its own, the furthest below.
        var best = preferred
        var ratio = 1 - self.preferenceMargin
        for candidate in fitted where candidate.set != preferred.set || preferred.parts.count > 1 {
            let (error, preferredError) = Self.errorsOnSharedTargets(candidate, preferred)
            if error < ratio * preferredError {
                best = candidate
                ratio = error / preferredError
            }
        }
        return best
    }

    /// `choice`'s mean left-out error over the targets `shared` (its own error when none).
    private static func meanError(_ choice: ModelChoice, over shared: Set<Int>) -> Double {
        let errors = zip(choice.active, choice.solution.targetErrors).filter { shared.contains($0.0) }.map(\.1)
        return errors.isEmpty ? choice.solution.crossValidationError : errors.reduce(0, +) / Double(errors.count)
    }

    /// The cross-validated errors of `a` and `b` over the targets both learn from (each target's
    /// mean left-out error, averaged), so a set that went without a hard target does not look
    /// better for it; their own errors when they share none.
    private static func errorsOnSharedTargets(_ a: ModelChoice, _ b: ModelChoice) -> (Double, Double) {
        guard a.active != b.active else { return (a.solution.crossValidationError, b.solution.crossValidationError) }
        let shared = Set(a.active).intersection(b.active)
        return (meanError(a, over: shared), meanError(b, over: shared))
    }

    /// The linear sets among `fitted` averaged as `combination` weighs them; nil with fewer than
    /// two. The sets blended learn from the same targets (the linear sets read the same frames:
    /// both eyes open, the patches there), those of the first linear set.
    private func blend(_ fitted: [ModelChoice], _ points: [CalibrationPointSamples]) -> ModelChoice? {
        var seen = Set<GazeFeatureSet>()
        let firstActive = fitted.first { $0.set.isAppearanceSubset }?.active
        let linear = fitted.filter { $0.set.isAppearanceSubset && $0.active == firstActive && seen.insert($0.set).inserted }
        guard linear.count >= 2 else { return linear.first }
        let targets = linear[0].active.map { points[$0].target }
        let predictions = linear.map(\.solution.predictions)
        let weights = self.combination == .stackedBlend
            ? MappingBlend.stackedWeights(predictions, targets: targets)
            : MappingBlend.inverseErrorWeights(linear.map(\.solution.crossValidationError))
        let parts = zip(linear, weights).filter { $0.1 > 0 }
        guard parts.count > 1 else { return parts.first?.0 }
        var choice = parts[0].0
        choice.parts = parts.map { ($0.0.set, $0.1) }
        choice.partSolutions = parts.map(\.0.solution)
        choice.solution = combine(choice.parts, choice.partSolutions, targets)
        return choice
    }

    /// The blend of `solutions` with the weights of `parts`.
    func combine(_ parts: [(set: GazeFeatureSet, weight: Double)], _ solutions: [Solution], _ targets: [Point2]) -> Solution {
        let weights = parts.map(\.weight)
        let blend = MappingBlend(parts: parts)
        let predictions = solutions.map(\.predictions)
        let errors = MappingBlend.targetErrors(predictions, weights: weights, targets: targets)
        return Solution(mapping: blend.mapping(solutions.map(\.mapping)),
                        crossValidationError: errors.reduce(0, +) / Double(errors.count), predictions: [], targetErrors: errors)
    }
}
