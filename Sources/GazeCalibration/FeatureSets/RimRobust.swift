#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GazeModel

extension GazeFeatureSet {
    /// A candidate for round rims: `patches` with its head terms read from the nose's base instead
    /// of the eye corners and the fitted pose, which rims drag (docs/Calibration.md): the nose
    /// line (roll of the nostrils' line in degrees, their distance and the base's centre in pixels)
    /// and the nose's turn (the tip's offset from the base across and down, in nostril distances),
    /// then both normalised patches: 262 features, linear. Not tried by default.
    public static let patchesNoseFrame = GazeFeatureSet(
        name: "patchesNoseFrame", featureCount: headFeatureCount + 2 * EyeAppearance.patchPixels
    ) { features, output in
        let appearance = features.appearance!
        writeNoseHead(NoseFrame(appearance), appearance, into: output)
        EyeDetailFeatures.normalisedPatches(appearance, into: output + headFeatureCount)
    }

    /// A candidate for round rims and a hand: `appearanceNoseFrame` reads the head as
    /// `patchesNoseFrame` does and the face's shape from the points neither rims nor a hand at the
    /// chin move much: the brows and the nose (landmarks 17–35) in the nose's frame, in nostril
    /// distances, then both normalised patches: 300 features, linear. Not tried by default.
    public static let appearanceNoseFrame = GazeFeatureSet(
        name: "appearanceNoseFrame", featureCount: headFeatureCount + noseShapeFeatureCount + 2 * EyeAppearance.patchPixels
    ) { features, output in
        let appearance = features.appearance!
        let frame = NoseFrame(appearance)
        writeNoseHead(frame, appearance, into: output)
        var index = headFeatureCount
        for landmark in noseShapeLandmarks {
            let d = EyeFrame.point(appearance, landmark) - frame.centre
            output[index] = d.dot(frame.ux) / frame.distance
            output[index + 1] = d.dot(frame.uy) / frame.distance
            index += 2
        }
        EyeDetailFeatures.normalisedPatches(appearance, into: output + headFeatureCount + noseShapeFeatureCount)
    }

    static let noseShapeLandmarks = 17...35
    static let noseShapeFeatureCount = 2 * 19

    /// The nose's base as a frame: origin the mean of landmarks 31–35, x from the nostril on the
    /// image's left (31) to the other (35), y down the face, the nostrils' distance as the unit.
    struct NoseFrame {
        var centre: Point2, ux: Point2, uy: Point2, distance: Double

        init(_ appearance: EyeAppearance) {
            var sum = Point2(0, 0)
            for landmark in 31...35 { sum = sum + EyeFrame.point(appearance, landmark) }
            centre = sum / 5
            let axis = EyeFrame.point(appearance, 35) - EyeFrame.point(appearance, 31)
            distance = Swift.max(axis.length, 1e-6)
            ux = axis / distance
            uy = Point2(-ux.y, ux.x)
        }
    }

    /// The head's 6 features from the nose: roll of the nostrils' line (degrees), their distance
    /// and the base's centre (pixels), and the tip's (landmark 30) offset from the base across and
    /// down (nostril distances: the nose turning with yaw and nodding with pitch).
    static func writeNoseHead(_ frame: NoseFrame, _ appearance: EyeAppearance, into output: UnsafeMutablePointer<Double>) {
        output[0] = atan2(frame.ux.y, frame.ux.x) * 180 / Double.pi
        output[1] = frame.distance
        output[2] = frame.centre.x
        output[3] = frame.centre.y
        let tip = EyeFrame.point(appearance, 30) - frame.centre
        output[4] = tip.dot(frame.ux) / frame.distance
        output[5] = tip.dot(frame.uy) / frame.distance
    }

    /// A candidate for a lens's light: `patches` with each patch high-passed (every pixel less the
    /// mean of its 3 × 3 neighbourhood, the patch's edge repeated) before normalising: a lens's haze
    /// and the smooth body of a reflection drop out, the iris's and lids' edges stay. 262 features,
    /// linear. Not tried by default.
    public static let patchContrast = filteredPatches("patchContrast") { EyePatchFilters.highPassedPatches($0, into: $1) }

    /// A candidate for round rims: `appearance` with the patches of `patchContrast` (the face's
    /// shape and the high-passed patches, the two parts rims disturb least on the stand-ins:
    /// docs/Calibration.md): 364 features, linear. Not tried by default.
    public static let appearanceContrast = filteredAppearance("appearanceContrast") { EyePatchFilters.highPassedPatches($0, into: $1) }

    /// A candidate for rims dragged into the patch: `patches` with each patch's inner 12 × 6 pixels
    /// only (the outer two columns each side and the top and bottom rows, where a rim or the lids'
    /// far ends show, left out), normalised over themselves: 150 features, linear. Not tried by default.
    public static let patchInner = filteredPatches("patchInner", perEye: EyePatchFilters.innerPixels) { EyePatchFilters.innerPatches($0, into: $1) }
}
