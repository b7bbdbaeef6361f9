import GazeModel

extension GazeFeatureSet {
    /// `patches` plus the face's shape: landmarks 17–67 in the eyes' frame (origin between the
    /// eyes, x along the line through both eyes' corner midpoints, in inter-ocular distances):
    /// 364 features, linear. The head's 6, then the shape's 102, then the patches' 256: every
    /// other set that a blend holds reads a subset of these.
    public static let appearance = GazeFeatureSet(
        name: "appearance", featureCount: headFeatureCount + shapeFeatureCount + 2 * EyeAppearance.patchPixels,
        appearanceIndex: { $0 }
    ) { features, output in
        let appearance = features.appearance!
        let frame = EyeFrame(appearance)
        writeHead(features, frame, into: output)
        writeShape(appearance, frame, into: output + headFeatureCount)
        EyeDetailFeatures.normalisedPatches(appearance, into: output + headFeatureCount + shapeFeatureCount)
    }
}
