import GazeAnalysis
import GazeCore
import GazeModel
import SessionStore

/// A session without a scan path given to a command that reads gaze (fixations, plot, replay).
struct NoGazeError: RuntimeFailure {
    var sessionID: String
    /// The `--between` labels whose interval holds no gaze sample, if that was the question.
    var interval: [String] = []
    var description: String {
        if !interval.isEmpty {
            return "session \(sessionID) has no gaze sample between its markers '\(interval.joined(separator: "' and '"))' "
                + "(the face was lost, or the interval is empty)."
        }
        return "session \(sessionID) has no gaze (scanPath): it was recorded without a calibration, or imported without one. "
            + "Map a recorded session's stored eye features with 'gazerec recalibrate \(sessionID) --calibration ID'."
    }
}

/// How screen points become degrees for a session's fixation thresholds: the geometry given on
/// the command line, else the one its calibration was made with, else 40 points per degree.
enum SessionViewing {
    /// The scan path of a session, refusing one without gaze the same way in every command; with
    /// `between` labels, only the samples of that marker interval (start included, end excluded).
    static func scanPath(_ database: SessionDatabase, id: String, between labels: [String] = []) throws
        -> (samples: [GazeSample], screenWidth: Double, screenHeight: Double) {
        var result = try database.scanPath(id: id)
        guard !result.samples.isEmpty else { throw NoGazeError(sessionID: try database.canonicalID(id)) }
        if !labels.isEmpty {
            let markers = try database.markers(id: id)
            guard let interval = markers.interval(from: labels[0], to: labels.count > 1 ? labels[1] : nil) else {
                var known: [String] = []
                for marker in markers where !known.contains(marker.label) { known.append(marker.label) }
                throw MarkerNotFound(sessionID: try database.canonicalID(id), labels: labels, known: known)
            }
            result.samples = result.samples.filter { $0.timestampSeconds >= interval.start && $0.timestampSeconds < interval.end }
            guard !result.samples.isEmpty else {
                throw NoGazeError(sessionID: try database.canonicalID(id), interval: labels)
            }
        }
        return result
    }

    /// Points per degree, and where the figure came from (for messages).
    static func pointsPerDegree(_ header: SessionHeader, explicit: ScreenGeometry? = nil) -> (value: Double, source: String) {
        let scale = header.fixationScale(given: explicit)
        switch scale.source {
        case .given: return (scale.pointsPerDegree, "--screen-size-mm and --distance-mm")
        case .calibration:
            return (scale.pointsPerDegree, "the viewing geometry of calibration \(header.gazerecExtension?.calibration?.id ?? "")")
        case .assumed: return (scale.pointsPerDegree, "40 points per degree (no screen size and distance known)")
        }
    }
}
