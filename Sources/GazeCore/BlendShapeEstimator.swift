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

    /// Where both eyes look, from their rest (u to the image's right, v down, eye-corner units):
    /// the mean of the two pupils' displacements, or the one pupil found. Conjugate, as the eyes
    /// move at a screen's distance, so each in/out and up/down pair reads alike and one eye's
    /// measurement noise is halved.
    static func gaze(_ features: FrameFeatures, _ rest: [Eye: Point2]) -> Point2? {
        let shifts = [Eye.left, .right].compactMap { eye in
            features.pupils[eye].map { $0.normalized - (rest[eye] ?? Point2(neutralU, neutralV)) }
        }
        guard !shifts.isEmpty else { return nil }
        return shifts.count == 1 ? shifts[0] : (shifts[0] + shifts[1]) * 0.5
    }

    /// The coefficient of `name`, or nil if this frame lacks what it needs (no face, eye shut for pupils).
    /// `rest` is each eye's pupil position (u, v) when the participant looks straight ahead (a
    /// `BlendShapeRest` learns it per session); an eye without one uses the generic (0.5, −0.06).
    public static func value(_ name: BlendShapeName, _ features: FrameFeatures, rest: [Eye: Point2] = [:]) -> Double? {
        func eye(_ name: BlendShapeName) -> Eye { name.rawValue.hasSuffix("_L") ? .left : .right }
        switch name {
        case .eyeBlinkLeft, .eyeBlinkRight:
            return features.openness[eye(name)].map { 1 - $0 }
        case .eyeWideLeft, .eyeWideRight:
            return features.relativeAperture[eye(name)].map { clamp(($0 - 1) / 0.3) }
        case .eyeLookUpLeft, .eyeLookUpRight:
            return gaze(features, rest).map { clamp(-$0.y / verticalSpan) }
        case .eyeLookDownLeft, .eyeLookDownRight:
            return gaze(features, rest).map { clamp($0.y / verticalSpan) }
        case .eyeLookInLeft, .eyeLookInRight, .eyeLookOutLeft, .eyeLookOutRight:
            guard let shift = gaze(features, rest)?.x else { return nil }
            // The eyes move together: towards the image's right (the participant's left), the left
            // eye (on the image's right) moves out, away from the nose, and the right eye in.
            let towardsImageRight = name == .eyeLookOutLeft || name == .eyeLookInRight
            return clamp((towardsImageRight ? shift : -shift) / horizontalSpan)
        case .jawOpen:
            guard let landmarks = features.face?.landmarks else { return nil }
            let gap = landmarks[66].distance(to: landmarks[62])
            return clamp(gap / Swift.max(landmarks.interocularDistance, 1) / 0.6)
        }
    }
}

/// Each eye's pupil position at rest, learned from a session's first frames, so the gaze blend
/// shapes read about 0 when the participant looks ahead, as ARKit's do.
///
/// The pupil's resting place inside the eye opening differs between people, cameras and head
/// poses by as much as the whole span of a look shape (a fixed rest put `eyeLookOut_L` at 0.53
/// for someone looking near the camera). The rest is the median (u, v) per eye over the first
/// `frames` steadily tracked frames with that pupil; until then, the median of those seen so
/// far (the very first frame is its own rest). It is then fixed for the session.
public struct BlendShapeRest: Sendable {
    public let frames: Int
    private var seen: [Eye: [Point2]] = [.left: [], .right: []]
    public private(set) var rest: [Eye: Point2] = [:]

    public init(frames: Int = 45) {
        precondition(frames >= 1)
        self.frames = frames
    }

    /// Takes one frame into the rest while it is being learned.
    public mutating func observe(_ features: FrameFeatures) {
        guard features.trackingState == .normal else { return }
        for eye in [Eye.left, .right] {
            guard let pupil = features.pupils[eye]?.normalized, seen[eye]!.count < frames else { continue }
            seen[eye]!.append(pupil)
            let values = seen[eye]!
            rest[eye] = Point2(Self.median(values.map(\.x)), Self.median(values.map(\.y)))
        }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
