import GazeModel

extension GazeFeatureSet {
    /// A candidate for glasses: `patches` with each patch's specular pixels (saturated, or more than
    /// 3 robust deviations above its median: a reflection of the screen, a glint) replaced by its
    /// median before normalising: 262 features, linear. Not tried by default.
    public static let patchClipped = filteredPatches("patchClipped") { _ = EyePatchFilters.clippedPatches($0, into: $1) }

    /// A candidate for glasses: `patches` with each patch's pixels replaced by their ranks within it
    /// (a brightness- and contrast-free patch: a lens's haze keeps the pixels' order): 262 features,
    /// linear. Not tried by default.
    public static let patchRank = filteredPatches("patchRank") { EyePatchFilters.rankedPatches($0, into: $1) }

    /// A candidate for glasses: `appearance` with the patches of `patchClipped`: 364 features,
    /// linear. Not tried by default.
    public static let appearanceClipped = filteredAppearance("appearanceClipped") { _ = EyePatchFilters.clippedPatches($0, into: $1) }

    /// A candidate for a hand at the chin: `appearance` with the face's shape read from the brows,
    /// nose and eyes only (landmarks 17–47, 62 values), not the mouth a hand under the chin pushes:
    /// 324 features, linear, a subset of `appearance`'s (a blend can hold it). Not tried by default.
    public static let appearanceUpper = GazeFeatureSet(
        name: "appearanceUpper", featureCount: headFeatureCount + upperShapeFeatureCount + 2 * EyeAppearance.patchPixels,
        appearanceIndex: { k in k < headFeatureCount + upperShapeFeatureCount ? k : k + shapeFeatureCount - upperShapeFeatureCount }
    ) { features, output in
        let appearance = features.appearance!
        let frame = EyeFrame(appearance)
        writeHead(features, frame, into: output)
        writeShape(appearance, frame, landmarks: upperShapeLandmarks, into: output + headFeatureCount)
        EyeDetailFeatures.normalisedPatches(appearance, into: output + headFeatureCount + upperShapeFeatureCount)
    }

    static let upperShapeLandmarks = 17...47
    static let upperShapeFeatureCount = 2 * 31
}
