import GazeModel

/// Why a session's gaze cannot be shown: the commands and figures that read a scan path refuse
/// one without gaze the same way.
public enum ScanPathError: Error, CustomStringConvertible, Equatable {
    /// The session has no gaze sample at all (recorded or imported without a calibration).
    case noGaze(sessionID: String)
    /// The session has no gaze sample in the marker interval from `labels[0]` (to `labels[1]`).
    case noGazeBetween(sessionID: String, labels: [String])
    /// The session has no marker interval from `labels[0]` (to a later `labels[1]`); `known` lists
    /// its markers' labels, each once, in recorded order.
    case noInterval(sessionID: String, labels: [String], known: [String])

    public var description: String {
        switch self {
        case .noGaze(let id):
            return "session \(id) has no gaze (scanPath): it was recorded without a calibration, or imported without one."
        case let .noGazeBetween(id, labels):
            return "session \(id) has no gaze sample between its markers '\(labels.joined(separator: "' and '"))' "
                + "(the face was lost, or the interval is empty)."
        case let .noInterval(id, labels, known):
            return "session \(id) has no marker interval from '\(labels[0])'"
                + (labels.count > 1 ? " to a later '\(labels[1])'" : "") + "; its markers are "
                + (known.isEmpty ? "none." : known.joined(separator: ", ") + ".")
        }
    }
}

extension SessionDatabase {
    /// A session's scan path and its screen size (points), refusing a session without gaze; with
    /// `between` labels (one or two), only the samples of that marker interval (start included,
    /// end excluded). The analyses read this: a damaged session (`verify(id:)`) is refused first,
    /// as `show` and `export` refuse it, so no figure is computed from rows that are not all there.
    public func scanPath(id: String, between labels: [String]) throws
        -> (samples: [GazeSample], screenWidth: Double, screenHeight: Double) {
        try verify(id: id)
        var result = try scanPath(id: id)
        guard !result.samples.isEmpty else { throw ScanPathError.noGaze(sessionID: try canonicalID(id)) }
        guard !labels.isEmpty else { return result }
        let markers = try markers(id: id)
        guard let interval = markers.interval(from: labels[0], to: labels.count > 1 ? labels[1] : nil) else {
            var known: [String] = []
            for marker in markers where !known.contains(marker.label) { known.append(marker.label) }
            throw ScanPathError.noInterval(sessionID: try canonicalID(id), labels: labels, known: known)
        }
        result.samples = result.samples.filter { $0.timestampSeconds >= interval.start && $0.timestampSeconds < interval.end }
        guard !result.samples.isEmpty else { throw ScanPathError.noGazeBetween(sessionID: try canonicalID(id), labels: labels) }
        return result
    }
}
