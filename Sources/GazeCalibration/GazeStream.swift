import GazeModel

extension AppliedCalibration {
    /// The scan-path sample of one frame: its gaze point with the frame's tracking state, or nil
    /// when the frame has no gaze (no face, eyes shut). Live recording and `recalibrate` both go
    /// through here, so they agree to the bit.
    public func sample(for frame: FrameMeasurement, orientation: Int) -> GazeSample? {
        guard let features = GazeFeatures(frame), let point = mapping.map(features) else { return nil }
        return GazeSample(timestampSeconds: frame.timestampSeconds, x: point.x, y: point.y, orientation: orientation,
                          trackingState: frame.trackingState)
    }

    /// A session's scan path recomputed from its stored frames.
    public func scanPath(_ frames: [FrameMeasurement], orientation: Int, smoothing: GazeSmoothing) -> [GazeSample] {
        var stream = GazeStream(self, smoothing: smoothing, orientation: orientation)
        return frames.compactMap { stream.sample(for: $0) }
    }
}

/// The gaze of a stream of frames in time order: the calibration's mapping, then the optional
/// smoothing. A live recording and `recalibrate` both run their frames through one of these.
public struct GazeStream: Sendable {
    public let calibration: AppliedCalibration
    public let orientation: Int
    private var smoother: GazeSmoother

    public init(_ calibration: AppliedCalibration, smoothing: GazeSmoothing, orientation: Int) {
        self.calibration = calibration
        self.orientation = orientation
        smoother = GazeSmoother(smoothing)
    }

    public var smoothing: GazeSmoothing { smoother.smoothing }

    /// The next frame's scan-path sample, or nil when it has no gaze.
    public mutating func sample(for frame: FrameMeasurement) -> GazeSample? {
        guard var sample = calibration.sample(for: frame, orientation: orientation) else { return nil }
        let point = smoother.smooth(Point2(sample.x, sample.y), timeSeconds: sample.timestampSeconds)
        sample.x = point.x
        sample.y = point.y
        return sample
    }
}
