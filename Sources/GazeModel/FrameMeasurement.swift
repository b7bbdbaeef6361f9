/// The face model head poses are measured with. Poses of different models differ (another
/// origin, other angles for the same face), so a calibration applies only to poses of its own.
public enum HeadPoseModelName {
    /// dlib's 68 points on a mean face, millimetres, fitted on the nose (27–35) and the four eye
    /// corners only, the points no expression moves: this version's.
    public static let current = "mean68-nose-eyes-1"
    /// The same mean face fitted on the rigid subset of the version before (brows, nose, eye
    /// corners, mouth corners): a smile or a brow raise moved its pitch. Still measured for the
    /// calibrations made with it, which keep mapping as they did.
    public static let rigidPoints = "mean68-rigid-1"
    /// The six-point generic model of gazerec before it (nose-tip origin, ≈ 0.2 mm units, pitch of
    /// the other sign); the model of a calibration or session that names none. No longer measured.
    public static let sixPoint = "sixPoint"
}

/// A head pose as gazerec records it: angles in degrees and the head's position, camera axes.
///
/// Camera axes: x to the image's right, y down, z away from the camera. Angles are those of the
/// face's rotation from looking straight into the camera: yaw about y, positive when the face
/// turns towards the image's left (the participant's right); pitch about x, positive when the
/// face tilts up (chin up, as AFLW2000-3D and 300W-LP count it); roll about z, positive when the
/// head leans towards the image's right (the participant's left shoulder), clockwise in the
/// image. Translation is the point midway between the four eye corners, in millimetres, for the
/// mean face with outer eye corners 90 mm apart (`HeadPoseModelName.current`).
public struct HeadPoseMeasurement: Sendable, Equatable {
    public var yawDegrees: Double
    public var pitchDegrees: Double
    public var rollDegrees: Double
    /// Translation in millimetres (the six-point model's units, ≈ 0.2 mm, in sessions recorded
    /// with it), camera axes.
    public var translation: Vector3

    public init(yawDegrees: Double, pitchDegrees: Double, rollDegrees: Double, translation: Vector3) {
        self.yawDegrees = yawDegrees
        self.pitchDegrees = pitchDegrees
        self.rollDegrees = rollDegrees
        self.translation = translation
    }
}

/// Everything gazerec keeps of one processed camera frame, from the camera to the database and back.
///
/// The live recorder makes one per frame; the store keeps it (`frameSample`, exported under
/// `"gazerec"."frames"`); `recalibrate`, the live stream and the CSV read it back. It is the
/// one input of gaze mapping, so a stored frame maps to exactly the gaze its live frame did.
public struct FrameMeasurement: Sendable, Equatable {
    /// Unix seconds (a replayed file: the session's begin plus the presentation time).
    public var timestampSeconds: Double
    public var trackingState: TrackingState
    /// Landmark fit confidence 0…1; 0 without a face.
    public var confidence: Double
    /// Openness 0…1 per eye (participant's left/right), nil without a face.
    public var opennessLeft: Double?
    public var opennessRight: Double?
    /// Pupil centre normalised to the eye corners (u along the corner line from the corner on the
    /// image's left, v below it, both in corner distances); nil when not found or the eye is shut.
    public var pupilLeft: Point2?
    public var pupilRight: Point2?
    /// The frame's head pose, nil without a face.
    public var headPose: HeadPoseMeasurement?
    /// The stabilised landmarks and eye patches a calibration maps, nil without a face (and for
    /// frames recorded or imported without them).
    public var appearance: EyeAppearance?

    public init(timestampSeconds: Double, trackingState: TrackingState, confidence: Double,
                opennessLeft: Double? = nil, opennessRight: Double? = nil, pupilLeft: Point2? = nil,
                pupilRight: Point2? = nil, headPose: HeadPoseMeasurement? = nil, appearance: EyeAppearance? = nil) {
        self.timestampSeconds = timestampSeconds
        self.trackingState = trackingState
        self.confidence = confidence
        self.opennessLeft = opennessLeft
        self.opennessRight = opennessRight
        self.pupilLeft = pupilLeft
        self.pupilRight = pupilRight
        self.headPose = headPose
        self.appearance = appearance
    }

    /// The openness of `eye`.
    public func openness(_ eye: Eye) -> Double? { eye == .left ? opennessLeft : opennessRight }

    /// The normalised pupil position of `eye`.
    public func pupil(_ eye: Eye) -> Point2? { eye == .left ? pupilLeft : pupilRight }

    /// The names of the optional values, in the order of the database columns, the JSON frame
    /// objects, the CSV columns and the live stream: the frame's data vocabulary.
    public static let optionalValueNames = ["opennessLeft", "opennessRight", "pupilLeftU", "pupilLeftV", "pupilRightU",
                                            "pupilRightV", "yawDegrees", "pitchDegrees", "rollDegrees", "tx", "ty", "tz"]

    /// The optional values in `optionalValueNames` order (nil where absent).
    public var optionalValues: [Double?] {
        [opennessLeft, opennessRight, pupilLeft?.x, pupilLeft?.y, pupilRight?.x, pupilRight?.y,
         headPose?.yawDegrees, headPose?.pitchDegrees, headPose?.rollDegrees,
         headPose?.translation.x, headPose?.translation.y, headPose?.translation.z]
    }

    /// Whether a face was found in the frame.
    public var hasFace: Bool { trackingState != .missing }
}
