import GazeModel

extension GazeFeatureSet {
    /// A candidate reading both eyes jointly: the head (6) and the mean of the two normalised
    /// patches, pixel by pixel (128): the eyes turn together, so their patches' common part is
    /// the gaze and their differences noise (a glint on one lens). 134 features, linear. Not
    /// tried by default.
    public static let patchMean = GazeFeatureSet(
        name: "patchMean", featureCount: headFeatureCount + EyeAppearance.patchPixels
    ) { features, output in
        let appearance = features.appearance!
        writeHead(features, EyeFrame(appearance), into: output)
        EyeDetailFeatures.meanPatch(appearance, into: output + headFeatureCount)
    }
}
