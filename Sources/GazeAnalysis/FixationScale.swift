import GazeModel

/// How screen points become degrees for a session's fixation thresholds: the one rule every
/// command and export follows. The geometry given for the run, else the viewing distances the
/// session's calibration was made with on the session's screen, else 40 points per degree.
public struct FixationScale: Sendable, Equatable {
    /// Where the scale came from.
    public enum Source: Sendable, Equatable {
        /// The geometry given for this run.
        case given
        /// The viewing geometry of the session's calibration.
        case calibration
        /// Neither: `ScreenGeometry.assumedPointsPerDegree`.
        case assumed
    }

    /// Screen points per degree of visual angle at the screen's centre.
    public var pointsPerDegree: Double
    public var source: Source

    /// The scale for a session on a `screenWidthPoints` × `screenHeightPoints` screen; a screen
    /// without a width takes no scale from its calibration.
    public init(given: ScreenGeometry?, calibrationViewing: ViewingDistances?, screenWidthPoints: Double,
                screenHeightPoints: Double) {
        if let given {
            (pointsPerDegree, source) = (given.pointsPerDegree, .given)
        } else if let calibrationViewing, screenWidthPoints > 0 {
            pointsPerDegree = calibrationViewing.geometry(widthPoints: screenWidthPoints,
                                                          heightPoints: screenHeightPoints).pointsPerDegree
            source = .calibration
        } else {
            (pointsPerDegree, source) = (ScreenGeometry.assumedPointsPerDegree, .assumed)
        }
    }

    /// The default fixation detector (I-DT with its default thresholds) at this scale.
    public var defaultDetector: FixationDetector { FixationDetector(pointsPerDegree: pointsPerDegree) }
}
