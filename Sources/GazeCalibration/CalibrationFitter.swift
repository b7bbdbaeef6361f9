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

/// A calibration target the fit went on without: too few of its samples were usable.
public struct SkippedCalibrationPoint: Sendable, Equatable, CustomStringConvertible {
    /// Index among the calibration targets (0-based, in the order shown).
    public var point: Int
    public var target: Point2
    /// Usable samples it kept (after outliers, when `outliers`).
    public var usable: Int
    public var collected: Int
    public var needed: Int
    /// Whether it fell short because samples unlike the others were dropped as outliers.
    public var outliers: Bool
    /// The feature set whose samples it had too few of, when other sets could have read it (the
    /// chosen set went without it); nil when no set could, or when outliers left it short.
    public var set: GazeFeatureSet?

    public init(point: Int, target: Point2, usable: Int, collected: Int, needed: Int, outliers: Bool = false,
                set: GazeFeatureSet? = nil) {
        self.point = point
        self.target = target
        self.usable = usable
        self.collected = collected
        self.needed = needed
        self.outliers = outliers
        self.set = set
    }

    /// `calibration point 3 at (960, 540) has 2 usable samples of 36 (needs 8)`
    public var description: String {
        "calibration point \(point + 1) at (\(Int(target.x.rounded())), \(Int(target.y.rounded()))) has "
            + "\(usable) usable sample\(usable == 1 ? "" : "s") of \(collected) (needs \(needed))"
            + (outliers ? " after dropping outliers" : "")
    }
}

/// Why a calibration could not be fitted; each case says what to do.
public enum CalibrationError: Error, Equatable, CustomStringConvertible {
    /// Too few targets kept enough usable samples, or those that did are not spread over the
    /// screen: `failed` are the others, each with its shortfall.
    case tooFewTargets(failed: [SkippedCalibrationPoint], remaining: Int, needed: Int, spread: Bool)
    /// Fewer targets than the mapping needs.
    case tooFewPoints(have: Int, needed: Int)
    /// The samples do not determine a mapping (e.g. every target gave the same eye position).
    case degenerate

    public var description: String {
        switch self {
        case let .tooFewTargets(failed, remaining, needed, spread):
            let total = remaining + failed.count
            let head = spread
                ? "only \(remaining) of \(total) calibration targets kept enough usable samples (needs \(needed))"
                : "the \(remaining) of \(total) calibration targets that kept enough usable samples do not span the screen"
            return head + ": " + failed.map(\.description).joined(separator: "; ")
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
    /// Samples kept after dropping unusable ones (tracking not normal, no pupil, eyes shut) and
    /// outliers; for a skipped target, the usable samples it had.
    public var used: Int
    /// Mean distance of the kept samples' mapped gaze from the target, screen points (training
    /// error); nil for a skipped target.
    public var meanErrorPoints: Double?
    /// Why the fit went on without this target; nil when it was used.
    public var skipped: SkippedCalibrationPoint?
}

/// A fitted calibration with its diagnostics.
public struct CalibrationFit: Sendable, Equatable {
    public var mapping: GazeMapping
    /// Every calibration target, in order, skipped ones included.
    public var points: [CalibrationPointFit]
    /// Mean distance, over every kept sample, of its mapped gaze from its target (screen points).
    public var trainingErrorPoints: Double
    /// The same when each target is predicted by a fit without it (leave-one-target-out), screen
    /// points: an honest estimate of the error between targets.
    public var crossValidationErrorPoints: Double
    /// Leave-one-target-out error of every feature set tried (screen points), each over the targets
    /// it learnt from (a set may go without some: `SkippedCalibrationPoint.set`).
    public var candidateErrorPoints: [GazeFeatureSet: Double] = [:]
    /// The linear sets the mapping averages and their weights (summing to 1); empty when it is
    /// one set's own (`SetCombination`).
    public var blendWeights: [GazeFeatureSet: Double] = [:]

    /// The targets the fit went on without.
    public var skipped: [SkippedCalibrationPoint] { points.compactMap(\.skipped) }
}

/// Fits a `GazeMapping` to calibration samples: judges each target's closed-eye frames, skips
/// targets with too few usable samples, drops per-target outliers, then solves a ridge regression
/// whose feature set and penalty are chosen by leave-one-target-out cross-validation.
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
    /// The feature sets tried; cross-validation picks one. Each is tried on the targets with enough
    /// samples of what it reads, when enough well-spread targets have.
    public var featureSets: [GazeFeatureSet]
    /// Samples per target an appearance fit learns from (evenly spaced among the kept ones): the
    /// frames of one target differ little, and the fit's cost grows with the cube of the count.
    public var maximumSamplesPerTarget: Int
    /// The set chosen unless another predicts left-out targets clearly better (nil: the lowest
    /// cross-validated error wins).
    public var preferredSet: GazeFeatureSet?
    /// How much lower (a fraction) another set's cross-validated error must be to replace `preferredSet`.
    public var preferenceMargin: Double
    /// Which frames of a target had the eyes shut.
    public var eyeClosure: EyeClosureJudge
    /// One set, or a blend of the linear sets.
    public var combination: SetCombination

    public init(minimumSamplesPerPoint: Int = 8, minimumPoints: Int = 5, outlierThreshold: Double = 3.5,
                residualFloorPoints: Double = 3,
                penalties: [Double] = [1e-7, 1e-5, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1, 3],
                appearancePenalties: [Double] = [1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1],
                featureSets: [GazeFeatureSet] = [.appearance, .patches, .shape, .pupilPolynomial], maximumSamplesPerTarget: Int = 20,
                preferredSet: GazeFeatureSet? = .patches, preferenceMargin: Double = 0.5,
                eyeClosure: EyeClosureJudge = EyeClosureJudge(), combination: SetCombination = .choose) {
        precondition(minimumSamplesPerPoint >= 1 && minimumPoints >= 1 && !penalties.isEmpty && !appearancePenalties.isEmpty)
        precondition(!featureSets.isEmpty && Set(featureSets).count == featureSets.count && maximumSamplesPerTarget >= 1
                     && (0..<1).contains(preferenceMargin))
        self.minimumSamplesPerPoint = minimumSamplesPerPoint
        self.minimumPoints = minimumPoints
        self.outlierThreshold = outlierThreshold
        self.residualFloorPoints = residualFloorPoints
        self.penalties = penalties
        self.appearancePenalties = appearancePenalties
        self.featureSets = featureSets
        self.maximumSamplesPerTarget = maximumSamplesPerTarget
        self.preferredSet = preferredSet
        self.preferenceMargin = preferenceMargin
        self.eyeClosure = eyeClosure
        self.combination = combination
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

    /// The usable samples among one target's frames, its closed-eye frames judged together.
    public func usableSamples(_ frames: [GazeFeatures]) -> [GazeFeatures] {
        eyeClosure.judged(frames).filter(Self.isUsable)
    }

    /// Fewest of `count` calibration targets the fit goes on with: all but a quarter (rounded
    /// down), and never fewer than `minimumPoints` — 5 of 5, 6 of 8, 7 of 9, 10 of 13. A linear
    /// mapping of the screen's two axes needs targets at both ends of each; a quarter lost still
    /// leaves the rest of a grid around every lost one.
    public func minimumTargets(of count: Int) -> Int {
        Swift.max(minimumPoints, count - count / 4)
    }

    /// Whether the kept targets still span the screen: on each axis their extent covers at least
    /// half of all targets' extent.
    public static func isWellSpread(_ kept: [Point2], of all: [Point2]) -> Bool {
        func extent(_ values: [Double]) -> Double { (values.max() ?? 0) - (values.min() ?? 0) }
        return extent(kept.map(\.x)) >= 0.5 * extent(all.map(\.x)) && extent(kept.map(\.y)) >= 0.5 * extent(all.map(\.y))
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
        guard points.count >= minimumPoints else { throw .tooFewPoints(have: points.count, needed: minimumPoints) }
        let judged = points.map { eyeClosure.judged($0.samples) }
        var skipped: [Int: SkippedCalibrationPoint] = [:]
        for (index, frames) in judged.enumerated() {
            let usable = frames.filter(Self.isUsable).count
            if usable < minimumSamplesPerPoint {
                skipped[index] = SkippedCalibrationPoint(point: index, target: points[index].target, usable: usable,
                                                         collected: frames.count, needed: minimumSamplesPerPoint)
            }
        }
        try requireEnoughTargets(points, skipped)
        let choice = try chooseModel(points, judged, skipped)
        var active = choice.active, kept = choice.kept, solution = choice.solution
        skipped = choice.skipped
        try dropOutliers(points, &active, &kept, &skipped, &solution, choice)
        var fit = summary(points, active, kept, skipped, solution, candidates: choice.candidates)
        if choice.parts.count > 1 {
            fit.blendWeights = Dictionary(uniqueKeysWithValues: choice.parts.map { ($0.set, $0.weight) })
        }
        return fit
    }

    /// Throws unless enough well-spread targets are left after `skipped`.
    private func requireEnoughTargets(_ points: [CalibrationPointSamples], _ skipped: [Int: SkippedCalibrationPoint])
        throws(CalibrationError) {
        let remaining = points.indices.filter { skipped[$0] == nil }.map { points[$0].target }
        let needed = minimumTargets(of: points.count)
        let failed = skipped.keys.sorted().map { skipped[$0]! }
        guard remaining.count >= needed else {
            throw .tooFewTargets(failed: failed, remaining: remaining.count, needed: needed, spread: true)
        }
        guard failed.isEmpty || Self.isWellSpread(remaining, of: points.map(\.target)) else {
            throw .tooFewTargets(failed: failed, remaining: remaining.count, needed: needed, spread: false)
        }
    }

    /// The chosen feature set (or the linear sets blended, with their weights), the targets it
    /// learns from and their samples, the targets it goes without, its solution, and every
    /// candidate's cross-validated error.
    private struct ModelChoice {
        var parts: [(set: GazeFeatureSet, weight: Double)]
        /// Indices of the targets the set learns from, in order.
        var active: [Int]
        /// Their samples the set reads, in `active` order.
        var kept: [[GazeFeatures]]
        /// Every target the set goes without: those no set could use and those it cannot.
        var skipped: [Int: SkippedCalibrationPoint]
        var solution: Solution
        var candidates: [GazeFeatureSet: Double]
        /// Each part's own solution, in `parts` order.
        var partSolutions: [Solution]

        init(set: GazeFeatureSet, active: [Int], kept: [[GazeFeatures]], skipped: [Int: SkippedCalibrationPoint],
             solution: Solution) {
            parts = [(set, 1)]
            self.active = active
            self.kept = kept
            self.skipped = skipped
            self.solution = solution
            candidates = [:]
            partSolutions = [solution]
        }

        var set: GazeFeatureSet { parts.count == 1 ? parts[0].set : .appearance }
    }

    /// Fits every set on the targets not yet `skipped` that have enough samples for it — a set
    /// goes without a target it cannot read (eyes judged shut for the patches, no pupil for the
    /// polynomial) when enough well-spread targets remain — and picks one (leaning toward
    /// `preferredSet`, each comparison over the targets both sets learn from). When no set can be
    /// fitted, the failure told is the one naming the failed targets of the set that kept the most.
    private func chooseModel(_ points: [CalibrationPointSamples], _ judged: [[GazeFeatures]],
                             _ skipped: [Int: SkippedCalibrationPoint]) throws(CalibrationError) -> ModelChoice {
        var fitted: [ModelChoice] = []
        var failures: [(set: GazeFeatureSet, targets: Int, error: CalibrationError)] = []
        for set in featureSets {
            var setSkipped = skipped
            var active: [Int] = [], kept: [[GazeFeatures]] = []
            for index in points.indices where skipped[index] == nil {
                let samples = judged[index].filter { Self.isUsable($0, for: set) }
                if samples.count < minimumSamplesPerPoint {
                    setSkipped[index] = SkippedCalibrationPoint(point: index, target: points[index].target, usable: samples.count,
                                                                collected: points[index].samples.count,
                                                                needed: minimumSamplesPerPoint, set: set)
                } else {
                    active.append(index)
                    kept.append(samples)
                }
            }
            do {
                try requireEnoughTargets(points, setSkipped)
                let solution = try solve(set, kept, active.map { points[$0].target }, penalties: nil)
                fitted.append(ModelChoice(set: set, active: active, kept: kept, skipped: setSkipped, solution: solution))
            } catch {
                failures.append((set, active.count, error))
            }
        }
        guard !fitted.isEmpty else {
            // The failure that names targets, of the set that kept the most of them (the preferred
            // set on a tie), says the most; "the samples do not determine a mapping" only when no
            // set that read any target fell short of targets.
            let named = failures.filter { if case .tooFewTargets = $0.error { $0.targets > 0 } else { false } }
            let told = named.isEmpty ? failures : named
            let most = told.map(\.targets).max()
            throw (told.first { $0.targets == most && $0.set == preferredSet } ?? told.first { $0.targets == most })?.error
                ?? .degenerate
        }
        var best: ModelChoice
        let preferred = combination == .choose ? fitted.first { $0.set == preferredSet } : blend(fitted, points)
        if let preferred {
            // Every other candidate against the preferred one directly, on the targets the two
            // share: of those whose error is below 1 − margin of its own, the furthest below.
            best = preferred
            var ratio = 1 - preferenceMargin
            for candidate in fitted where candidate.set != preferred.set || preferred.parts.count > 1 {
                let (error, preferredError) = Self.errorsOnSharedTargets(candidate, preferred)
                if error < ratio * preferredError {
                    best = candidate
                    ratio = error / preferredError
                }
            }
        } else {
            // No preference: the lowest error over the targets every candidate learns from.
            let shared = fitted.dropFirst().reduce(Set(fitted[0].active)) { $0.intersection($1.active) }
            best = fitted.min { Self.meanError($0, over: shared) < Self.meanError($1, over: shared) }!
        }
        for candidate in fitted { best.candidates[candidate.set] = candidate.solution.crossValidationError }
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
        let firstActive = fitted.first { $0.set != .pupilPolynomial }?.active
        let linear = fitted.filter { $0.set != .pupilPolynomial && $0.active == firstActive && seen.insert($0.set).inserted }
        guard linear.count >= 2 else { return linear.first }
        let targets = linear[0].active.map { points[$0].target }
        let predictions = linear.map(\.solution.predictions)
        let weights = combination == .stackedBlend
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
    private func combine(_ parts: [(set: GazeFeatureSet, weight: Double)], _ solutions: [Solution], _ targets: [Point2])
        -> Solution {
        let weights = parts.map(\.weight)
        let blend = MappingBlend(parts: parts)
        let predictions = solutions.map(\.predictions)
        let errors = MappingBlend.targetErrors(predictions, weights: weights, targets: targets)
        return Solution(mapping: blend.mapping(solutions.map(\.mapping)),
                        crossValidationError: errors.reduce(0, +) / Double(errors.count), predictions: [], targetErrors: errors)
    }

    /// Drops outliers per target and fits again with the chosen set and penalty (twice at most: a
    /// first fit bent by many outliers may hide some of them). A target left with too few samples
    /// is skipped, if enough remain.
    private func dropOutliers(_ points: [CalibrationPointSamples], _ active: inout [Int], _ kept: inout [[GazeFeatures]],
                              _ skipped: inout [Int: SkippedCalibrationPoint], _ solution: inout Solution,
                              _ choice: ModelChoice) throws(CalibrationError) {
        for _ in 0..<2 {
            var changed = false
            for position in kept.indices {
                let target = points[active[position]].target
                let residuals = kept[position].map { solution.mapping.map($0)! - target }
                let centre = Point2(median(residuals.map(\.x)), median(residuals.map(\.y)))
                let distances = residuals.map { $0.distance(to: centre) }
                let spread = max(1.4826 * median(distances), residualFloorPoints)
                let keep = distances.map { $0 / spread <= outlierThreshold }
                if keep.contains(false) {
                    kept[position] = kept[position].indices.filter { keep[$0] }.map { kept[position][$0] }
                    changed = true
                }
            }
            guard changed else { break }
            for position in kept.indices.reversed() where kept[position].count < minimumSamplesPerPoint {
                let index = active[position]
                skipped[index] = SkippedCalibrationPoint(point: index, target: points[index].target,
                                                         usable: kept[position].count, collected: points[index].samples.count,
                                                         needed: minimumSamplesPerPoint, outliers: true)
                active.remove(at: position)
                kept.remove(at: position)
            }
            try requireEnoughTargets(points, skipped)
            let targets = active.map { points[$0].target }
            var parts: [Solution] = []
            for (part, previous) in zip(choice.parts, choice.partSolutions) {
                parts.append(try solve(part.set, kept, targets, penalties: [previous.mapping.ridgePenalty]))
            }
            solution = parts.count == 1 ? parts[0] : combine(choice.parts, parts, targets)
        }
    }

    /// The fit's per-target figures, skipped targets included.
    private func summary(_ points: [CalibrationPointSamples], _ active: [Int], _ kept: [[GazeFeatures]],
                         _ skipped: [Int: SkippedCalibrationPoint], _ solution: Solution,
                         candidates: [GazeFeatureSet: Double]) -> CalibrationFit {
        var pointFits: [CalibrationPointFit] = []
        var totalError = 0.0, total = 0
        for (index, point) in points.enumerated() {
            if let skip = skipped[index] {
                pointFits.append(CalibrationPointFit(target: point.target, collected: point.samples.count, used: skip.usable,
                                                     meanErrorPoints: nil, skipped: skip))
                continue
            }
            let samples = kept[active.firstIndex(of: index)!]
            let errors = samples.map { solution.mapping.map($0)!.distance(to: point.target) }
            totalError += errors.reduce(0, +)
            total += errors.count
            pointFits.append(CalibrationPointFit(target: point.target, collected: point.samples.count, used: samples.count,
                                                 meanErrorPoints: errors.reduce(0, +) / Double(errors.count), skipped: nil))
        }
        return CalibrationFit(mapping: solution.mapping, points: pointFits, trainingErrorPoints: totalError / Double(total),
                              crossValidationErrorPoints: solution.crossValidationError, candidateErrorPoints: candidates)
    }

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

    /// The set's fit with the penalty (of `penalties`, else the set's own list) that predicts
    /// left-out targets best.
    private func solve(_ set: GazeFeatureSet, _ kept: [[GazeFeatures]], _ targets: [Point2], penalties: [Double]?)
        throws(CalibrationError) -> Solution {
        switch set {
        case .pupilPolynomial:
            let result = try solve(kept, targets, penalties: penalties ?? self.penalties)
            return Solution(mapping: result.mapping, crossValidationError: result.crossValidationError, predictions: [],
                            targetErrors: result.targetErrors)
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
        var best: (penalty: Double, error: Double, predictions: [[Point2]])?
        for penalty in penalties.sorted() {
            var total = 0.0
            var solvable = true
            var predictions: [[Point2]] = []
            for (index, group) in groups.enumerated() {
                let training = groups.indices.filter { $0 != index }.flatMap { groups[$0] }
                guard let fit = ridge.fit(rows: training, penalty: penalty) else { solvable = false; break }
                let predicted = group.map { ridge.predict(fit, sample: $0) }
                total += predicted.reduce(0) { $0 + $1.distance(to: targets[index]) } / Double(group.count)
                predictions.append(predicted)
            }
            guard solvable else { continue }
            let error = total / Double(groups.count)
            if best == nil || error < best!.error * (1 - 1e-9) { best = (penalty, error, predictions) }
        }
        guard let best, let fit = ridge.fit(rows: Array(rows.indices), penalty: best.penalty) else { throw .degenerate }
        let coefficients = ridge.primal(fit)
        let errors = zip(best.predictions, targets).map { predicted, target in
            predicted.reduce(0) { $0 + $1.distance(to: target) } / Double(predicted.count)
        }
        return Solution(mapping: GazeMapping(featureSet: set, featureMeans: means, featureScales: scales,
                                             coefficientsX: coefficients.x, coefficientsY: coefficients.y,
                                             ridgePenalty: best.penalty),
                        crossValidationError: best.error, predictions: best.predictions, targetErrors: errors)
    }

    /// At most `count` of `samples`, evenly spaced in their order.
    static func evenlySpaced(_ samples: [GazeFeatures], count: Int) -> [GazeFeatures] {
        guard samples.count > count else { return samples }
        return (0..<count).map { samples[$0 * samples.count / count] }
    }

    /// Standardises the features, then solves the ridge regression with the penalty that predicts
    /// left-out targets best.
    private func solve(_ kept: [[GazeFeatures]], _ targets: [Point2], penalties: [Double]) throws(CalibrationError)
        -> (mapping: GazeMapping, crossValidationError: Double, targetErrors: [Double]) {
        let difference = Self.eyeDifference(kept.flatMap { $0 })
        // 1. Standardise the raw features over every kept sample.
        let (means, scales) = Self.polynomialStandardisation(kept.flatMap { $0 }, difference: difference)
        // Eye positions that do not vary between targets cannot be mapped.
        guard scales[0] != 1 || scales[1] != 1 else { throw .degenerate }
        // 2. Per-target normal equations, so leaving one target out is a subtraction.
        let equations = PolynomialNormalEquations(kept, targets, difference: difference, means: means, scales: scales)
        // 3. The penalty with the smallest leave-one-target-out error (the smaller on ties).
        var best: (penalty: Double, error: Double, errors: [Double])?
        for penalty in penalties.sorted() {
            var errors: [Double] = []
            var solvable = true
            for index in kept.indices {
                guard let c = equations.coefficients(excluding: index, penalty: penalty) else { solvable = false; break }
                errors.append(equations.meanError(c, index))
            }
            guard solvable else { continue }
            let error = errors.reduce(0, +) / Double(kept.count)
            if best == nil || error < best!.error * (1 - 1e-9) { best = (penalty, error, errors) }
        }
        guard let best, let c = equations.coefficients(excluding: nil, penalty: best.penalty) else { throw .degenerate }
        return (GazeMapping(featureMeans: means, featureScales: scales, coefficientsX: c.0, coefficientsY: c.1,
                            eyeDifference: difference, ridgePenalty: best.penalty), best.error, best.errors)
    }

    /// Means and standard deviations of the polynomial set's raw features over `samples`.
    private static func polynomialStandardisation(_ samples: [GazeFeatures], difference: Point2)
        -> (means: [Double], scales: [Double]) {
        var means = [Double](repeating: 0, count: GazeMapping.featureCount)
        var scales = [Double](repeating: 1, count: GazeMapping.featureCount)
        let raws: [[Double]] = samples.map {
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
        return (means, scales)
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
}

/// The polynomial set's normal equations kept per target, so a fit without one target is a
/// subtraction of its share.
private struct PolynomialNormalEquations {
    let n = GazeMapping.termCount
    let targets: [Point2]
    let counts: [Int]
    var gram: [[Double]]
    var rightX: [[Double]]
    var rightY: [[Double]]
    var termRows: [[[Double]]] = []

    init(_ kept: [[GazeFeatures]], _ targets: [Point2], difference: Point2, means: [Double], scales: [Double]) {
        self.targets = targets
        counts = kept.map(\.count)
        gram = [[Double]](repeating: [Double](repeating: 0, count: n * n), count: kept.count)
        rightX = [[Double]](repeating: [Double](repeating: 0, count: n), count: kept.count)
        rightY = rightX
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
    }

    /// The coefficients fitted without target `excluded` (nil: with all), or nil when the system
    /// is not positive definite. Per-sample penalty, intercept unpenalised.
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
