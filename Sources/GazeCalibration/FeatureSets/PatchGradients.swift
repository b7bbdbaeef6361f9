import GazeModel

extension GazeFeatureSet {
    /// A candidate for the eyes' large turns: `patches` plus each normalised patch's horizontal
    /// differences (2 × 15 × 8: the iris's edges across the eye): 502 features, linear. Not tried
    /// by default (docs/Calibration.md, *Richer eye appearance*).
    public static let patchGradients = GazeFeatureSet(
        name: "patchGradients",
        featureCount: headFeatureCount + 2 * EyeAppearance.patchPixels + 2 * EyeDetailFeatures.gradientCount
    ) { features, output in
        let appearance = features.appearance!
        writeHead(features, EyeFrame(appearance), into: output)
        let patches = output + headFeatureCount
        EyeDetailFeatures.normalisedPatches(appearance, into: patches)
        EyeDetailFeatures.gradients(UnsafePointer(patches), into: patches + 2 * EyeAppearance.patchPixels)
    }
}
