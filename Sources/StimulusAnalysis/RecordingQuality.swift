import GazeAnalysis
import GazeModel

/// How trustworthy one recording's gaze is over the analysed interval (docs/Analysis.md, "Data
/// quality"): reported beside every stimulus result, and the basis of leaving recordings out.
public struct RecordingQuality: Sendable, Equatable {
    /// Gaze samples (one per camera frame) in the interval, and the share 0…1 of them with a face
    /// (tracking state other than `missing`); nil without samples.
    public var samples: Int
    public var validShare: Double?
    /// The calibration's validation accuracy (mean angular error at its targets): degrees when the
    /// calibration knew the screen's size and distance, else screen points; nil: not measured.
    public var accuracyDegrees: Double?
    public var accuracyPoints: Double?
    /// Precision over the interval: the root mean square of the distances between successive
    /// samples within fixations (RMS-S2S), screen points, and degrees when the scale is not assumed.
    public var precisionPoints: Double?
    public var precisionDegrees: Double?
    /// Whether degrees became points at `ScreenGeometry.assumedPointsPerDegree` (no screen size or
    /// viewing distance known).
    public var scaleAssumed: Bool
    /// The share 0…1 of the stimulus's screen rectangle on the recorded screen (nil: screen size unknown).
    public var rectangleOnScreenShare: Double?
    /// The recorded screen's size in points (nil: unknown).
    public var screenWidthPoints: Double?
    public var screenHeightPoints: Double?

    public init(samples: Int = 0, validShare: Double? = nil, accuracyDegrees: Double? = nil, accuracyPoints: Double? = nil,
                precisionPoints: Double? = nil, precisionDegrees: Double? = nil, scaleAssumed: Bool = false,
                rectangleOnScreenShare: Double? = nil) {
        self.samples = samples
        self.validShare = validShare
        self.accuracyDegrees = accuracyDegrees
        self.accuracyPoints = accuracyPoints
        self.precisionPoints = precisionPoints
        self.precisionDegrees = precisionDegrees
        self.scaleAssumed = scaleAssumed
        self.rectangleOnScreenShare = rectangleOnScreenShare
    }

    /// The valid share of `gaze` within [start, end) (Unix seconds), and the precision over the
    /// successive samples of `faced` (the detector's input) inside one of `fixations` (found in `faced`).
    static func measure(_ gaze: [GazeSample], faced: [GazeSample], fixations: [Fixation], startSeconds: Double,
                        endSeconds: Double, pointsPerDegree: Double) -> RecordingQuality {
        func inside(_ sample: GazeSample) -> Bool { sample.timestampSeconds >= startSeconds && sample.timestampSeconds < endSeconds }
        let all = gaze.count(where: inside), valid = gaze.count { inside($0) && $0.trackingState != .missing }
        var squares = 0.0, pairs = 0
        for fixation in fixations where fixation.lastIndex > fixation.firstIndex {
            for index in fixation.firstIndex..<fixation.lastIndex where inside(faced[index]) && inside(faced[index + 1]) {
                let distance = faced[index].point.distance(to: faced[index + 1].point)
                squares += distance * distance
                pairs += 1
            }
        }
        let precision = pairs > 0 ? (squares / Double(pairs)).squareRoot() : nil
        return RecordingQuality(samples: all, validShare: all == 0 ? nil : Double(valid) / Double(all),
                                precisionPoints: precision, precisionDegrees: precision.map { $0 / pointsPerDegree })
    }
}

/// Data-quality thresholds that leave recordings out of a result.
public struct QualityCriteria: Sendable, Equatable {
    /// Leave out a recording whose valid share is below this (0…1); nil: keep every one.
    public var minimumValidShare: Double?
    /// Leave out a recording whose calibration accuracy is worse than this (degrees), or unknown in
    /// degrees; nil: keep every one.
    public var maximumAccuracyDegrees: Double?

    public init(minimumValidShare: Double? = nil, maximumAccuracyDegrees: Double? = nil) {
        self.minimumValidShare = minimumValidShare
        self.maximumAccuracyDegrees = maximumAccuracyDegrees
    }

    /// Why `quality` leaves its recording out, nil when it stays.
    public func exclusion(_ quality: RecordingQuality) -> String? {
        if let minimum = minimumValidShare {
            guard let share = quality.validShare else { return "it has no gaze samples while the stimulus was shown" }
            if share < minimum {
                return "its share of valid samples \(String(format: "%.3f", share)) is below \(StimulusError.number(minimum))"
            }
        }
        if let maximum = maximumAccuracyDegrees {
            guard let accuracy = quality.accuracyDegrees else {
                return "its calibration's accuracy in degrees is unknown (not validated, or without the screen's size and distance)"
            }
            if accuracy > maximum {
                return "its calibration's accuracy \(String(format: "%.2f", accuracy))° is worse than \(StimulusError.number(maximum))°"
            }
        }
        return nil
    }
}
