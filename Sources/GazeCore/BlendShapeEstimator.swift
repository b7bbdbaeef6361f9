import GazeModel

/// The ARKit blend shapes that 68 landmarks and the pupil positions can honestly estimate.
///
/// `_L` and `_R` are the participant's left and right (ARKit's convention). Each value is 0…1;
/// the formulas are documented in docs/BlendShapes.md. Mouth, cheek, nose and most brow shapes are
/// left out: 68 points do not separate them reliably from head pose and identity.
public enum BlendShapeName: String, CaseIterable, Sendable {
    case eyeBlinkLeft = "eyeBlink_L"
    case eyeBlinkRight = "eyeBlink_R"
    case eyeWideLeft = "eyeWide_L"
    case eyeWideRight = "eyeWide_R"
    case eyeLookUpLeft = "eyeLookUp_L"
    case eyeLookUpRight = "eyeLookUp_R"
    case eyeLookDownLeft = "eyeLookDown_L"
    case eyeLookDownRight = "eyeLookDown_R"
    case eyeLookInLeft = "eyeLookIn_L"
    case eyeLookInRight = "eyeLookIn_R"
    case eyeLookOutLeft = "eyeLookOut_L"
    case eyeLookOutRight = "eyeLookOut_R"
    case jawOpen

    /// The recorded set when none is given.
    public static let defaultSet: [BlendShapeName] = [.eyeBlinkLeft, .eyeBlinkRight]
}

/// Estimates blend-shape coefficients from one frame's features.
public enum BlendShapeEstimator {
    /// Pupil position (normalised to the eye corners) of a centred gaze, and the span that maps to 1.
    static let neutralU = 0.5, horizontalSpan = 0.15
    static let neutralV = -0.06, verticalSpan = 0.08

    @inline(__always)
    static func clamp(_ value: Double) -> Double { Swift.max(0, Swift.min(1, value)) }

    /// The coefficient of `name`, or nil if this frame lacks what it needs (no face, eye shut for pupils).
    public static func value(_ name: BlendShapeName, _ features: FrameFeatures) -> Double? {
        func eye(_ name: BlendShapeName) -> Eye { name.rawValue.hasSuffix("_L") ? .left : .right }
        switch name {
        case .eyeBlinkLeft, .eyeBlinkRight:
            return features.openness[eye(name)].map { 1 - $0 }
        case .eyeWideLeft, .eyeWideRight:
            return features.relativeAperture[eye(name)].map { clamp(($0 - 1) / 0.3) }
        case .eyeLookUpLeft, .eyeLookUpRight:
            return features.pupils[eye(name)].map { clamp((neutralV - $0.normalized.y) / verticalSpan) }
        case .eyeLookDownLeft, .eyeLookDownRight:
            return features.pupils[eye(name)].map { clamp(($0.normalized.y - neutralV) / verticalSpan) }
        case .eyeLookInLeft, .eyeLookInRight, .eyeLookOutLeft, .eyeLookOutRight:
            let side = eye(name)
            guard let u = features.pupils[side]?.normalized.x else { return nil }
            // Towards the nose is the image's left for the left eye (on the image's right), and
            // the image's right for the right eye.
            let towardsNose = side == .left ? neutralU - u : u - neutralU
            let inward = name == .eyeLookInLeft || name == .eyeLookInRight
            return clamp((inward ? towardsNose : -towardsNose) / horizontalSpan)
        case .jawOpen:
            guard let landmarks = features.face?.landmarks else { return nil }
            let gap = landmarks[66].distance(to: landmarks[62])
            return clamp(gap / Swift.max(landmarks.interocularDistance, 1) / 0.6)
        }
    }
}
