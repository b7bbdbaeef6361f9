import GazeModel

extension GazeFeatureSet {
    /// Writes both eyes' filtered patches (`perEye` values each) from `appearance` at `output`.
    typealias PatchFilter = @Sendable (_ appearance: EyeAppearance, _ output: UnsafeMutablePointer<Double>) -> Void

    /// `patches` with each patch passed through `filter`: the head terms, then the two filtered
    /// patches (`perEye` values each). Linear.
    static func filteredPatches(_ name: String, perEye: Int = EyeAppearance.patchPixels,
                                _ filter: @escaping PatchFilter) -> GazeFeatureSet {
        GazeFeatureSet(name: name, featureCount: headFeatureCount + 2 * perEye) { features, output in
            let appearance = features.appearance!
            writeHead(features, EyeFrame(appearance), into: output)
            filter(appearance, output + headFeatureCount)
        }
    }

    /// `appearance` with each patch passed through `filter`: the head terms, the face's shape, then
    /// the two filtered patches. Linear.
    static func filteredAppearance(_ name: String, _ filter: @escaping PatchFilter) -> GazeFeatureSet {
        GazeFeatureSet(name: name, featureCount: headFeatureCount + shapeFeatureCount + 2 * EyeAppearance.patchPixels) { features, output in
            let appearance = features.appearance!
            let frame = EyeFrame(appearance)
            writeHead(features, frame, into: output)
            writeShape(appearance, frame, into: output + headFeatureCount)
            filter(appearance, output + headFeatureCount + shapeFeatureCount)
        }
    }
}
