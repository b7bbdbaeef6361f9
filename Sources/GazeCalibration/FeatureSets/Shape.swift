extension GazeFeatureSet {
    /// Head (6, as for `patches`) and the face's shape: landmarks 17–67 in the eyes' frame (see
    /// `appearance`): 108 features, linear. For eyes the patches cannot see (reflecting glasses).
    public static let shape = GazeFeatureSet(
        name: "shape", featureCount: headFeatureCount + shapeFeatureCount, appearanceIndex: { $0 }
    ) { features, output in
        let appearance = features.appearance!
        let frame = EyeFrame(appearance)
        writeHead(features, frame, into: output)
        writeShape(appearance, frame, into: output + headFeatureCount)
    }
}
