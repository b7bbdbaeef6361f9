import GazeModel

/// Attention and drowsiness figures of a session and of each marker's interval: how much of the
/// time the face was there and the gaze on the screen (the SeeSo SDK's attention), blinks and
/// PERCLOS. Computed from the stored frames, scan path, blink events and markers whenever a
/// session is shown or exported, so they follow a recalibration or a marker added later.

/// Whether a gaze point lies on a screen of `width` × `height` points (edges included).
public func isOnScreen(x: Double, y: Double, width: Double, height: Double) -> Bool {
    x >= 0 && y >= 0 && x <= width && y <= height
}

/// The attention figures of one span of a session (the whole session, or a marker's interval).
public struct AttentionFigures: Sendable, Equatable {
    /// Frames in the span.
    public var frames: Int
    /// Share 0…1 of the frames with a face.
    public var faceShare: Double
    /// Share 0…1 of the frames whose gaze lies on the screen (frames without a face or a gaze
    /// point count as off it); nil when the session has no gaze (no calibration).
    public var onScreenShare: Double?
    /// Blinks, long closures, blink rate and PERCLOS over the span's frames with a face (nil without one).
    public var eyes: EyeSummary?

    public init(frames: Int, faceShare: Double, onScreenShare: Double?, eyes: EyeSummary?) {
        self.frames = frames
        self.faceShare = faceShare
        self.onScreenShare = onScreenShare
        self.eyes = eyes
    }
}

/// A marker's interval with its attention figures.
public typealias IntervalAttention = MarkerInterval<AttentionFigures>

/// `"gazerec"."attention"`: the session's figures and each marker interval's.
public typealias AttentionReport = IntervalReport<AttentionFigures>
