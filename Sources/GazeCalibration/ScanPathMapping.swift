import GazeCore
import SessionStore

extension GazeFeatures {
    /// The features of a stored frame (the same values a live recording mapped), or nil without a
    /// head pose or any pupil.
    public init?(_ frame: FrameRecord) {
        guard let yaw = frame.yawDegrees, let pitch = frame.pitchDegrees, let tx = frame.tx, let ty = frame.ty,
              let tz = frame.tz, tz != 0 else { return nil }
        let left = frame.pupilLeftU.flatMap { u in frame.pupilLeftV.map { Point2(u, $0) } }
        let right = frame.pupilRightU.flatMap { u in frame.pupilRightV.map { Point2(u, $0) } }
        guard left != nil || right != nil else { return nil }
        self.init(timestampSeconds: frame.timestampSeconds, pupilLeft: left, pupilRight: right, yawDegrees: yaw,
                  pitchDegrees: pitch, headX: tx / tz, headY: ty / tz,
                  trackingNormal: frame.trackingState == TrackingState.normal.analysisValue)
    }
}

extension AppliedCalibration {
    /// The scan-path sample of one stored or live frame: its gaze point with the frame's tracking
    /// state, or nil when the frame has no gaze (no face, eyes shut). Live recording and
    /// `recalibrate` both go through here, so they agree to the bit.
    public func sample(for frame: FrameRecord, orientation: Int) -> GazeSample? {
        guard let features = GazeFeatures(frame), let point = mapping.map(features) else { return nil }
        return GazeSample(timestampSeconds: frame.timestampSeconds, x: point.x, y: point.y, orientation: orientation,
                          trackingState: TrackingState(analysisValue: frame.trackingState)?.sessionValue)
    }

    /// A session's scan path recomputed from its stored frames.
    public func scanPath(_ frames: [FrameRecord], orientation: Int) -> [GazeSample] {
        frames.compactMap { sample(for: $0, orientation: orientation) }
    }
}
