import GazeCore
import GazeModel
import SessionStore

/// A session without a scan path given to a command that reads gaze (fixations, plot, replay).
struct NoGazeError: RuntimeFailure {
    var sessionID: String
    var description: String {
        "session \(sessionID) has no gaze (scanPath): it was recorded without a calibration, or imported without one. "
            + "Map a recorded session's stored eye features with 'gazerec recalibrate \(sessionID) --calibration ID'."
    }
}

/// How screen points become degrees for a session's fixation thresholds: the geometry given on
/// the command line, else the one its calibration was made with, else 40 points per degree.
enum SessionViewing {
    /// The scan path of a session, refusing one without gaze the same way in every command.
    static func scanPath(_ database: SessionDatabase, id: String) throws
        -> (samples: [GazeSample], screenWidth: Double, screenHeight: Double) {
        let result = try database.scanPath(id: id)
        guard !result.samples.isEmpty else { throw NoGazeError(sessionID: try database.canonicalID(id)) }
        return result
    }

    /// Points per degree, and where the figure came from (for messages).
    static func pointsPerDegree(_ header: SessionHeader, screenWidth: Double,
                                explicit: ScreenGeometry? = nil) -> (value: Double, source: String) {
        if let explicit { return (explicit.pointsPerDegree, "--screen-size-mm and --distance-mm") }
        if let calibration = header.gazerecExtension?.calibration, let viewing = calibration.viewing, screenWidth > 0 {
            let geometry = viewing.geometry(widthPoints: screenWidth, heightPoints: header.deviceInfo.screenHeight)
            return (geometry.pointsPerDegree, "the viewing geometry of calibration \(calibration.id)")
        }
        return (ScreenGeometry.assumedPointsPerDegree, "40 points per degree (no screen size and distance known)")
    }

    /// The default fixation detector (I-DT) with the session's points per degree.
    static func detector(_ header: SessionHeader, screenWidth: Double) -> FixationDetector {
        FixationDetector(pointsPerDegree: pointsPerDegree(header, screenWidth: screenWidth).value)
    }
}
