#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GazeModel

extension GazeFeatureSet {
    /// A candidate for glasses: `patches` without the head pose's yaw and pitch (the head's roll,
    /// the eyes' distance and midpoint, and both normalised patches: 260 features, linear). Round
    /// rims that drag the eye corners move the pose fitted to them (docs/Calibration.md: a median
    /// 18° of pitch on the stand-ins), and the pose then reads as gaze. Not tried by default.
    public static let patchesNoPose = GazeFeatureSet(
        name: "patchesNoPose", featureCount: headFeatureCount - 2 + 2 * EyeAppearance.patchPixels,
        appearanceIndex: { k in k < 4 ? k : k + 2 + shapeFeatureCount }
    ) { features, output in
        let appearance = features.appearance!
        writeEyeLine(EyeFrame(appearance), into: output)
        EyeDetailFeatures.normalisedPatches(appearance, into: output + 4)
    }

    /// A candidate for glasses: `appearance` without the head pose's yaw and pitch (the face's shape
    /// still shows the nose against the eyes): 362 features, linear. Not tried by default.
    public static let appearanceNoPose = GazeFeatureSet(
        name: "appearanceNoPose", featureCount: headFeatureCount - 2 + shapeFeatureCount + 2 * EyeAppearance.patchPixels,
        appearanceIndex: { k in k < 4 ? k : k + 2 }
    ) { features, output in
        let appearance = features.appearance!
        let frame = EyeFrame(appearance)
        writeEyeLine(frame, into: output)
        writeShape(appearance, frame, into: output + 4)
        EyeDetailFeatures.normalisedPatches(appearance, into: output + 4 + shapeFeatureCount)
    }

    /// The head's features without the pose: roll of the eye line (degrees), the eyes' distance and
    /// midpoint (pixels), as `writeHead` writes them (4 values).
    static func writeEyeLine(_ frame: EyeFrame, into output: UnsafeMutablePointer<Double>) {
        output[0] = atan2(frame.ux.y, frame.ux.x) * 180 / Double.pi
        output[1] = frame.distance
        output[2] = frame.centre.x
        output[3] = frame.centre.y
    }
}
