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
