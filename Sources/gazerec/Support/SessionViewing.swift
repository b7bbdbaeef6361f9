import GazeCore
import SessionStore

/// How screen points become degrees for a session's fixation thresholds: the geometry given on
/// the command line, else the one its calibration was made with, else 40 points per degree.
enum SessionViewing {
    /// Points per degree, and where the figure came from (for messages).
    static func pointsPerDegree(_ header: SessionHeader, screenWidth: Double,
                                explicit: ViewingGeometry? = nil) -> (value: Double, source: String) {
        if let explicit { return (explicit.pointsPerDegree, "--screen-size-mm and --distance-mm") }
        if let text = header.extensionJSON, let value = try? JSONValue.parse(Array(text.utf8)),
           let calibration = value["calibration"], case .string(let id)? = calibration["id"],
           case .number(let width)? = calibration["viewingGeometry"]?["screenWidthMillimetres"],
           case .number(let distance)? = calibration["viewingGeometry"]?["distanceMillimetres"],
           width > 0, distance > 0, screenWidth > 0 {
            let geometry = ViewingGeometry(screenWidthPoints: screenWidth, screenWidthMillimetres: width,
                                           distanceMillimetres: distance)
            return (geometry.pointsPerDegree, "the viewing geometry of calibration \(id)")
        }
        return (ViewingGeometry.assumedPointsPerDegree, "40 points per degree (no screen size and distance known)")
    }

    /// The default fixation detector (I-DT) with the session's points per degree.
    static func detector(_ header: SessionHeader, screenWidth: Double) -> FixationDetector {
        FixationDetector(pointsPerDegree: pointsPerDegree(header, screenWidth: screenWidth).value)
    }
}
