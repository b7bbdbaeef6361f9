import GazeModel

extension GazeFeatureSet {
    /// A candidate for the eyes' large turns: `patches` plus, per eye, where the patch's dark
    /// pixels centre (across and down) and the square of that centre's offset across (2 × 3):
    /// 268 features, linear in them. Not tried by default.
    public static let patchIris = GazeFeatureSet(
        name: "patchIris", featureCount: headFeatureCount + 2 * EyeAppearance.patchPixels + 2 * EyeDetailFeatures.irisCount
    ) { features, output in
        let appearance = features.appearance!
        writeHead(features, EyeFrame(appearance), into: output)
        let patches = output + headFeatureCount
        EyeDetailFeatures.normalisedPatches(appearance, into: patches)
        EyeDetailFeatures.irisCentroids(UnsafePointer(patches), into: patches + 2 * EyeAppearance.patchPixels)
    }
}
