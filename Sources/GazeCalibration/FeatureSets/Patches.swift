import GazeModel

extension GazeFeatureSet {
    /// Head (6: roll, inter-ocular distance and the eyes' midpoint in pixels, yaw and pitch) and
    /// both eye patches (2 × 128 pixels, each normalised to mean 0 and standard deviation 1):
    /// 262 features, linear.
    public static let patches = GazeFeatureSet(
        name: "patches", featureCount: headFeatureCount + 2 * EyeAppearance.patchPixels,
        appearanceIndex: { k in k < headFeatureCount ? k : k + shapeFeatureCount }
    ) { features, output in
        let appearance = features.appearance!
        writeHead(features, EyeFrame(appearance), into: output)
        EyeDetailFeatures.normalisedPatches(appearance, into: output + headFeatureCount)
    }
}
