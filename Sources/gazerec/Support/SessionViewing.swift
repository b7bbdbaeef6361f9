import GazeAnalysis
import GazeCore
import GazeModel
import SessionFigures
import SessionStore

/// How screen points become degrees for a session's fixation thresholds: the geometry given on
/// the command line, else the one its calibration was made with, else 40 points per degree.
enum SessionViewing {
    /// Points per degree, and where the figure came from (for messages).
    static func pointsPerDegree(_ header: SessionHeader, explicit: ScreenGeometry? = nil) -> (value: Double, source: String) {
        let scale = header.fixationScale(given: explicit)
        return (scale.pointsPerDegree, scale.source == .given ? "--screen-size-mm and --distance-mm" : SessionPlot.scaleSource(header))
    }
}
