import GazeCore
import GazeModel

/// One target a fit learns from: its place among the calibration targets and on the screen, and
/// the samples kept for it.
struct TrainingTarget {
    /// Index among the calibration targets (0-based, in the order shown).
    var index: Int
    /// Where it was, screen points.
    var position: Point2
    /// Its samples the fit reads, in the order collected.
    var samples: [GazeFeatures]
}

/// Target fitting: which samples and targets a fit can learn from, and which samples are outliers.
extension CalibrationFitter {
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
        self.eyeClosure.judged(frames).filter(Self.isUsable)
    }

    /// Fewest of `count` calibration targets the fit goes on with: all but a quarter (rounded
    /// down), and never fewer than `minimumPoints` — 5 of 5, 6 of 8, 7 of 9, 10 of 13. A linear
    /// mapping of the screen's two axes needs targets at both ends of each; a quarter lost still
    /// leaves the rest of a grid around every lost one.
    public func minimumTargets(of count: Int) -> Int {
        Swift.max(self.minimumPoints, count - count / 4)
    }

    /// Whether the kept targets still span the screen: on each axis their extent covers at least
    /// half of all targets' extent.
    public static func isWellSpread(_ kept: [Point2], of all: [Point2]) -> Bool {
        func extent(_ values: [Double]) -> Double { (values.max() ?? 0) - (values.min() ?? 0) }
        return extent(kept.map(\.x)) >= 0.5 * extent(all.map(\.x)) && extent(kept.map(\.y)) >= 0.5 * extent(all.map(\.y))
    }

    /// The targets with fewer than `minimumSamplesPerPoint` usable samples among their `judged` frames.
    func shortTargets(_ points: [CalibrationPointSamples], _ judged: [[GazeFeatures]]) -> [Int: SkippedCalibrationPoint] {
        var skipped: [Int: SkippedCalibrationPoint] = [:]
        for (index, frames) in judged.enumerated() {
            let usable = frames.filter(Self.isUsable).count
            if usable < self.minimumSamplesPerPoint {
                skipped[index] = SkippedCalibrationPoint(point: index, target: points[index].target, usable: usable,
                                                         collected: frames.count, needed: self.minimumSamplesPerPoint)
            }
        }
        return skipped
    }

    /// The targets not yet `skipped` with enough samples `set` reads, and `skipped` with those
    /// that have too few (named with the set).
    func trainingTargets(for set: GazeFeatureSet, _ points: [CalibrationPointSamples], _ judged: [[GazeFeatures]],
                         skipped: [Int: SkippedCalibrationPoint])
        -> (targets: [TrainingTarget], skipped: [Int: SkippedCalibrationPoint]) {
        var setSkipped = skipped
        var targets: [TrainingTarget] = []
        for index in points.indices where skipped[index] == nil {
            let samples = judged[index].filter { Self.isUsable($0, for: set) }
            if samples.count < self.minimumSamplesPerPoint {
                setSkipped[index] = SkippedCalibrationPoint(point: index, target: points[index].target, usable: samples.count,
                                                            collected: points[index].samples.count,
                                                            needed: self.minimumSamplesPerPoint, set: set)
            } else {
                targets.append(TrainingTarget(index: index, position: points[index].target, samples: samples))
            }
        }
        return (targets, setSkipped)
    }

    /// Throws unless enough well-spread targets are left after `skipped`.
    func requireEnoughTargets(_ points: [CalibrationPointSamples], _ skipped: [Int: SkippedCalibrationPoint])
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

    /// `choice` with outliers dropped per target and fitted again with the chosen set and
    /// penalty (twice at most: a first fit bent by many outliers may hide some of them). A target
    /// left with too few samples is skipped, if enough remain.
    func dropOutliers(_ points: [CalibrationPointSamples], _ choice: ModelChoice) throws(CalibrationError) -> ModelChoice {
        var result = choice
        for _ in 0..<2 {
            var changed = false
            for position in result.targets.indices {
                let keep = inliers(result.targets[position], result.solution.mapping)
                if keep.contains(false) {
                    let samples = result.targets[position].samples
                    result.targets[position].samples = samples.indices.filter { keep[$0] }.map { samples[$0] }
                    changed = true
                }
            }
            guard changed else { break }
            for position in result.targets.indices.reversed()
            where result.targets[position].samples.count < self.minimumSamplesPerPoint {
                let target = result.targets.remove(at: position)
                result.skipped[target.index] = SkippedCalibrationPoint(
                    point: target.index, target: target.position, usable: target.samples.count,
                    collected: points[target.index].samples.count, needed: self.minimumSamplesPerPoint, outliers: true)
            }
            try requireEnoughTargets(points, result.skipped)
            var parts: [Solution] = []
            for (part, previous) in zip(choice.parts, choice.partSolutions) {
                parts.append(try solve(part.set, result.targets, penalties: [previous.mapping.ridgePenalty]))
            }
            result.solution = parts.count == 1 ? parts[0] : combine(choice.parts, parts, result.targets.map(\.position))
        }
        return result
    }

    /// Which of `target`'s samples `mapping` puts within `outlierThreshold` robust spreads of the
    /// others (residuals about their median, spread at least `residualFloorPoints`).
    private func inliers(_ target: TrainingTarget, _ mapping: GazeMapping) -> [Bool] {
        let residuals = target.samples.map { mapping.map($0)! - target.position }
        let centre = Point2(median(residuals.map(\.x)), median(residuals.map(\.y)))
        let distances = residuals.map { $0.distance(to: centre) }
        let spread = max(1.4826 * median(distances), self.residualFloorPoints)
        return distances.map { $0 / spread <= self.outlierThreshold }
    }
}
