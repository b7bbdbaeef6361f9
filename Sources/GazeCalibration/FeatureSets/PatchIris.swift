import GazeModel

extension GazeFeatureSet {
    /// A candidate for the eyes' large turns: `patches` plus, per eye, where the patch's dark
    /// pixels centre (across and down) and the square of that centre's offset across (2 × 3):
    /// 268 features, linear in them. Not tried by default.
    public static let patchIris = patchesWithDetail(name: "patchIris", detailCount: 2 * EyeDetailFeatures.irisCount) {
        EyeDetailFeatures.irisCentroids($0, into: $1)
    }
}
