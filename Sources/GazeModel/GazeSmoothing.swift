/// Optional smoothing of the gaze stream, as recorded with a session.
public enum GazeSmoothing: Sendable, Equatable {
    /// Raw gaze, each sample as the calibration maps it.
    case none
    /// The 1€ filter on x and y. Defaults: 1 Hz minimum cutoff, β = 0.01 (per screen point per
    /// second), 1 Hz derivative cutoff — a still gaze is smoothed over about a sixth of a second,
    /// a saccade of 1000 points/s raises the cutoff to 11 Hz.
    case oneEuro(minCutoffHertz: Double = 1, beta: Double = 0.01, derivativeCutoffHertz: Double = 1)

    /// Samples further apart than this (face lost, blink) restart the filter, so it never draws
    /// a line across a gap.
    public static let restartGapSeconds = 0.25
}
