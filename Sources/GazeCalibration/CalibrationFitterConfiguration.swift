import GazeModel

extension CalibrationFitter {
    /// The fit's tuning, every value with its default: change a copy and hand it to
    /// `CalibrationFitter(_:)`, or name only what differs with `CalibrationFitter { $0.… = … }`.
    public struct Configuration: Sendable {
        /// Usable samples a target must keep (default 8: a quarter of a second at 30 fps).
        public var minimumSamplesPerPoint = 8
        /// Fewest targets accepted (default 5).
        public var minimumPoints = 5
        /// Robust z-score above which a sample is an outlier (default 3.5).
        public var outlierThreshold = 3.5
        /// Robust residual spreads below this count as this much (screen points; default 3), so a
        /// target whose samples agree almost exactly does not turn tiny differences into outliers.
        public var residualFloorPoints = 3.0
        /// Ridge penalties tried for the polynomial set, on standardised terms (default 1e-7 … 3).
        public var penalties: [Double] = [1e-7, 1e-5, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1, 3]
        /// Ridge penalties tried for the appearance sets, per sample on standardised features
        /// (default 1e-5 … 1).
        public var appearancePenalties: [Double] = [1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1]
        /// The feature sets tried; cross-validation picks one (default: `appearance`, `patches`,
        /// `shape` and `pupilPolynomial`, the appearance sets first; the candidates
        /// `patchGradients`, `patchIris`, `patchMean`, `patchClipped`, `patchRank`, `appearanceClipped`,
        /// `appearanceUpper`, `patchesNoPose`, `appearanceNoPose`, `patchesNoseFrame`,
        /// `appearanceNoseFrame`, `patchContrast`, `appearanceContrast` and `patchInner` only when added). Each is tried on the
        /// targets with enough samples of what it reads, when enough well-spread targets have.
        public var featureSets: [GazeFeatureSet] = [.appearance, .patches, .shape, .pupilPolynomial]
        /// Samples per target an appearance fit learns from (evenly spaced among the kept ones;
        /// default 20): the frames of one target differ little, and the fit's cost grows with the
        /// cube of the count.
        public var maximumSamplesPerTarget = 20
        /// The set chosen unless another predicts left-out targets clearly better (default
        /// `.appearance`, `.patches` before: on 106 kept-back folds with real eye movements,
        /// `appearance` alone averaged 11.45 % of the screen's width against 11.90 for `patches`
        /// preferred, −0.44 ± 0.40 a fold, worst fold 40.6 against 56.0; nil: the lowest
        /// cross-validated error wins). A stored calibration keeps the set it chose.
        public var preferredSet: GazeFeatureSet? = .appearance
        /// How much lower (a fraction) another set's cross-validated error must be to replace
        /// `preferredSet` (default 0.5: half).
        public var preferenceMargin = 0.5
        /// Which frames of a target had the eyes shut (default `EyeClosureJudge()`).
        public var eyeClosure = EyeClosureJudge()
        /// One set, or a blend of the linear sets (default `.choose`: one set).
        public var combination = SetCombination.choose

        /// The defaults.
        public init() {}

        /// Whether every value is in its range: counts at least 1, penalties given, feature sets
        /// given without repeats, the margin in [0, 1).
        public var isValid: Bool {
            minimumSamplesPerPoint >= 1 && minimumPoints >= 1 && !penalties.isEmpty && !appearancePenalties.isEmpty
                && !featureSets.isEmpty && Set(featureSets).count == featureSets.count && maximumSamplesPerTarget >= 1
                && (0..<1).contains(preferenceMargin)
        }
    }
}
