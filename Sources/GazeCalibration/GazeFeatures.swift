import GazeCore
import GazeModel

/// The eye and head measurements of one frame that a calibration maps to a screen point.
///
/// Pupils are normalised to their eye corners (`PupilObservation.normalized`): u runs 0 → 1 from
/// the corner on the image's left to the one on its right, v is the offset below the corner line
/// in corner distances. Head pose is the PnP pose of the frame. `appearance` holds the frame's
/// stabilised landmarks and eye patches (frames recorded since gazerec 0.5).
public struct GazeFeatures: Sendable, Equatable {
    public var timestampSeconds: Double
    /// Participant's left eye (u, v), nil when not found (eye shut, face lost).
    public var pupilLeft: Point2?
    public var pupilRight: Point2?
    public var yawDegrees: Double
    public var pitchDegrees: Double
    /// Head position across the image, as tangents of its direction from the camera axis
    /// (translation x / z and y / z): moving the head sideways moves gaze on the screen.
    public var headX: Double
    public var headY: Double
    /// Whether tracking was good enough to learn from (state normal).
    public var trackingNormal: Bool
    /// Openness 0…1 per eye (nil: not measured).
    public var opennessLeft: Double?
    public var opennessRight: Double?
    /// The stabilised landmarks and eye patches.
    public var appearance: EyeAppearance?
    /// Whether the eyes were shut, as judged from the frames around this one (`EyeClosureJudge`);
    /// nil: judged from this frame's openness alone (`eyesOpen`). Not stored: a calibration judges
    /// its targets' frames again when it is fitted or refitted.
    public var eyesClosed: Bool?

    public init(timestampSeconds: Double, pupilLeft: Point2?, pupilRight: Point2?, yawDegrees: Double,
                pitchDegrees: Double, headX: Double, headY: Double, trackingNormal: Bool = true,
                opennessLeft: Double? = nil, opennessRight: Double? = nil, appearance: EyeAppearance? = nil) {
        self.timestampSeconds = timestampSeconds
        self.pupilLeft = pupilLeft
        self.pupilRight = pupilRight
        self.yawDegrees = yawDegrees
        self.pitchDegrees = pitchDegrees
        self.headX = headX
        self.headY = headY
        self.trackingNormal = trackingNormal
        self.opennessLeft = opennessLeft
        self.opennessRight = opennessRight
        self.appearance = appearance
    }

    /// The features of one frame's measurement, or nil when it has none to map: no head pose
    /// (no face), a head pose at zero depth, or neither a pupil nor an appearance.
    ///
    /// The one conversion from a frame to what a calibration maps: calibrate and validate feed
    /// it live frames, recording live and stored-then-recalibrated frames alike.
    public init?(_ frame: FrameMeasurement) {
        guard let pose = frame.headPose, pose.translation.z != 0,
              frame.pupilLeft != nil || frame.pupilRight != nil || frame.appearance != nil else { return nil }
        self.init(timestampSeconds: frame.timestampSeconds, pupilLeft: frame.pupilLeft, pupilRight: frame.pupilRight,
                  yawDegrees: pose.yawDegrees, pitchDegrees: pose.pitchDegrees,
                  headX: pose.translation.x / pose.translation.z, headY: pose.translation.y / pose.translation.z,
                  trackingNormal: frame.trackingState == .normal, opennessLeft: frame.opennessLeft,
                  opennessRight: frame.opennessRight, appearance: frame.appearance)
    }

    /// Both eyes combined: their mean, or one eye shifted by the calibration's mean left − right
    /// difference when the other is missing. Nil without any pupil.
    @inline(__always)
    public func eye(difference: Point2) -> Point2? {
        switch (pupilLeft, pupilRight) {
        case let (left?, right?): return Point2((left.x + right.x) / 2, (left.y + right.y) / 2)
        case let (left?, nil): return left - difference / 2
        case let (nil, right?): return right + difference / 2
        case (nil, nil): return nil
        }
    }

    /// Openness below which an eye's patch shows the lid, not the eye (as for pupils).
    public static let closedOpenness = 0.2

    /// The lower of the two eyes' openness (an eye not measured counts as open).
    public var lowerOpenness: Double { Swift.min(opennessLeft ?? 1, opennessRight ?? 1) }

    /// Whether both eyes are open enough for their patches to say where they look: the judgement
    /// of the frames around this one when there is one (`eyesClosed`), else both eyes' openness
    /// above `closedOpenness` (eyes whose openness was not measured count as open).
    public var eyesOpen: Bool {
        if let eyesClosed { return !eyesClosed }
        return lowerOpenness > Self.closedOpenness
    }
}
