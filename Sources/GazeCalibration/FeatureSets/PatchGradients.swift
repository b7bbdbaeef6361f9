import GazeModel

extension GazeFeatureSet {
    /// A candidate for the eyes' large turns: `patches` plus each normalised patch's horizontal
    /// differences (2 × 15 × 8: the iris's edges across the eye): 502 features, linear. Not tried
    /// by default (docs/Calibration.md, *Richer eye appearance*).
    public static let patchGradients = patchesWithDetail(name: "patchGradients", detailCount: 2 * EyeDetailFeatures.gradientCount) {
        EyeDetailFeatures.gradients($0, into: $1)
    }
}
