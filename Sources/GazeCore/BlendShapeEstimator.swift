import GazeModel

/// The ARKit blend shapes that 68 landmarks and the pupil positions can honestly estimate.
///
/// `_L` and `_R` are the participant's left and right (ARKit's convention). Each value is 0…1;
/// the formulas are documented in docs/BlendShapes.md. The mouth, brow and squint shapes are
/// measured on the face brought to a frontal pose (`FrontalFace`) against the participant's
/// neutral face (`BlendShapeNeutral`); what 68 points cannot carry is in `refused`, with the reason.
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
    case mouthSmileLeft = "mouthSmile_L"
    case mouthSmileRight = "mouthSmile_R"
    case mouthFrownLeft = "mouthFrown_L"
    case mouthFrownRight = "mouthFrown_R"
    case mouthPucker
    case mouthFunnel
    case browDownLeft = "browDown_L"
    case browDownRight = "browDown_R"
    case browInnerUp
    case browOuterUpLeft = "browOuterUp_L"
    case browOuterUpRight = "browOuterUp_R"
    case eyeSquintLeft = "eyeSquint_L"
    case eyeSquintRight = "eyeSquint_R"

    /// The recorded set when none is given.
    public static let defaultSet: [BlendShapeName] = [.eyeBlinkLeft, .eyeBlinkRight]

    /// Whether the shape is measured on the frontal face against the neutral face.
    public var isExpression: Bool { Self.expressions.contains(self) }

    /// The shapes measured on the frontal face against the neutral face.
    public static let expressions: Set<BlendShapeName> = [
        .mouthSmileLeft, .mouthSmileRight, .mouthFrownLeft, .mouthFrownRight, .mouthPucker, .mouthFunnel,
        .browDownLeft, .browDownRight, .browInnerUp, .browOuterUpLeft, .browOuterUpRight,
        .eyeSquintLeft, .eyeSquintRight,
    ]

    /// ARKit's other blend shapes, which gazerec does not estimate, each with the reason.
    public static let refused: [(name: String, reason: String)] = {
        let noPoints = "68 landmarks have no point on the cheeks (the jaw line is the face's outline, not its surface)"
        let noDepth = "68 landmarks are an outline in the image: they do not see the jaw or the lips move towards the camera"
        let lips = "68 landmarks do not see how much of the lips' red shows: on a closed mouth the inner lip points sit on the line between the lips whatever the lips do"
        let cheekSide = "68 landmarks do not tell a cheek pushed out by air from the face's outline"
        let nose = "68 landmarks have no point on the nostrils' wings"
        let untested = "68 landmarks see it, but no footage of it was at hand to test a formula on"
        return [("cheekSquint_L", noPoints), ("cheekSquint_R", noPoints), ("cheekPuff", cheekSide),
                ("noseSneer_L", nose), ("noseSneer_R", nose), ("jawForward", noDepth), ("jawLeft", untested),
                ("jawRight", untested), ("mouthClose", noDepth), ("mouthRollLower", lips), ("mouthRollUpper", lips),
                ("mouthShrugLower", lips), ("mouthShrugUpper", lips),
                ("mouthPress_L", lips), ("mouthPress_R", lips), ("mouthDimple_L", noPoints), ("mouthDimple_R", noPoints),
                ("mouthStretch_L", untested), ("mouthStretch_R", untested), ("mouthLeft", untested), ("mouthRight", untested),
                ("mouthUpperUp_L", lips), ("mouthUpperUp_R", lips), ("mouthLowerDown_L", lips), ("mouthLowerDown_R", lips),
                ("tongueOut", "68 landmarks have no point on the tongue")]
    }()
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

    /// The coefficients of `names` for one frame (the frontal face computed once), leaving out
    /// those the frame lacks what they need for; `rest` holds the gaze's rest and the neutral face.
    public static func values(_ names: [BlendShapeName], _ features: FrameFeatures,
                              rest: BlendShapeRest) -> [(BlendShapeName, Double)] {
        let frontal = names.contains(where: \.isExpression) ? frontalFace(features) : nil
        let neutral = rest.neutral.face ?? .mean
        return names.compactMap { name in
            if name.isExpression {
                return frontal.map { (name, expression(name, $0, neutral: neutral)) }
            }
            return value(name, features, rest: rest.rest).map { (name, $0) }
        }
    }

    /// The frame's face brought to a frontal pose, or nil without a face or a head pose.
    public static func frontalFace(_ features: FrameFeatures) -> FrontalFace? {
        guard let landmarks = features.face?.landmarks, let pose = features.headPose else { return nil }
        return FrontalFace(landmarks: landmarks, pose: pose)
    }

    /// The coefficient of `name`, or nil if this frame lacks what it needs (no face, eye shut for pupils).
    /// `rest` is each eye's pupil position (u, v) when the participant looks straight ahead (a
    /// `BlendShapeRest` learns it per session); an eye without one uses the generic (0.5, −0.06).
    /// The expression shapes use `neutral`, the participant's neutral face (the mean face when nil).
    public static func value(_ name: BlendShapeName, _ features: FrameFeatures, rest: [Eye: Point2] = [:],
                             neutral: FrontalFace? = nil) -> Double? {
        if name.isExpression {
            return frontalFace(features).map { expression(name, $0, neutral: neutral ?? .mean) }
        }
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
        default:
            return nil
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
/// far (the very first frame is its own rest). It is then fixed for the session. It learns the
/// participant's neutral face (`neutral`) from the same frames, for the expression shapes.
public struct BlendShapeRest: Sendable {
    public let frames: Int
    private var seen: [Eye: [Point2]] = [.left: [], .right: []]
    public private(set) var rest: [Eye: Point2] = [:]
    /// The participant's neutral face, learned beside the gaze's rest.
    public private(set) var neutral: BlendShapeNeutral

    public init(frames: Int = 45) {
        precondition(frames >= 1)
        self.frames = frames
        neutral = BlendShapeNeutral(frames: frames)
    }

    /// Takes one frame into the rest and the neutral face while they are being learned.
    public mutating func observe(_ features: FrameFeatures) {
        neutral.observe(features)
        guard features.trackingState == .normal else { return }
        for eye in [Eye.left, .right] {
            guard let pupil = features.pupils[eye]?.normalized, seen[eye]!.count < frames else { continue }
            seen[eye]!.append(pupil)
            let values = seen[eye]!
            rest[eye] = Point2(median(values.map(\.x)), median(values.map(\.y)))
        }
    }
}
