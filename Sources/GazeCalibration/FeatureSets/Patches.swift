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

    /// A candidate set: `patches` followed by `detailCount` features that `detail` computes from
    /// the normalised patches (written first, so the detail reads them in place).
    static func patchesWithDetail(
        name: String, detailCount: Int,
        _ detail: @escaping @Sendable (UnsafePointer<Double>, UnsafeMutablePointer<Double>) -> Void
    ) -> GazeFeatureSet {
        GazeFeatureSet(name: name, featureCount: headFeatureCount + 2 * EyeAppearance.patchPixels + detailCount) { features, output in
            let appearance = features.appearance!
            writeHead(features, EyeFrame(appearance), into: output)
            let patches = output + headFeatureCount
            EyeDetailFeatures.normalisedPatches(appearance, into: patches)
            detail(UnsafePointer(patches), patches + 2 * EyeAppearance.patchPixels)
        }
    }
}
