import GazeAnalysis
import GazeModel
import JSONStream

extension SessionHeader {
    /// The scale of this session's fixation thresholds (`FixationScale`) on its screen, with
    /// `given` the geometry given for this run, if any.
    public func fixationScale(given: ScreenGeometry? = nil) -> FixationScale {
        FixationScale(given: given, calibrationViewing: gazerecExtension?.calibration?.viewing,
                      screenWidthPoints: deviceInfo.screenWidth, screenHeightPoints: deviceInfo.screenHeight)
    }
}

extension Fixation {
    /// A fixation as a document holds it: start and end (Unix seconds), centre (screen points),
    /// sample count and dispersion (screen points).
    public var jsonValue: JSONValue {
        .object([("start", .number(startSeconds)), ("end", .number(endSeconds)), ("x", .number(x)), ("y", .number(y)),
                 ("samples", .number(Double(sampleCount))), ("dispersion", .number(dispersionPoints))])
    }
}

extension ExportedMovement {
    /// The fixations and movement labels the session's default detector finds in its scan path.
    init(scanPath samples: [GazeSample], of header: SessionHeader) {
        let (found, labels) = header.fixationScale().defaultDetector.detect(samples)
        self.init(fixations: found.map(\.jsonValue), movement: labels.map(\.rawValue))
    }
}
