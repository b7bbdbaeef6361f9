import GazeCalibration
import GazeCore
import GazeModel
import SessionStore

extension SessionDatabase {
    /// Saves a new calibration: its document, and the columns listing and choosing need.
    public func save(_ record: CalibrationRecord) throws {
        try saveCalibrations([(record.summary, try record.document())], replace: false, source: "calibration \(record.id)")
    }

    /// Reads and decodes one calibration (`latest` for the newest).
    public func calibrationRecord(id: String) throws -> CalibrationRecord {
        let (summary, document) = try calibration(id: id)
        return try CalibrationRecord(document: Array(document.utf8), source: "stored calibration \(summary.id)")
    }
}

extension CalibrationRecord {
    /// What the database lists about it.
    public var summary: CalibrationSummary {
        CalibrationSummary(id: id, name: name, createdAtSeconds: createdAtSeconds, screenWidth: screenWidth,
                           screenHeight: screenHeight, pointCount: calibrationPointCount,
                           accuracyPoints: validation?.accuracyPoints, accuracyDegrees: validation?.accuracyDegrees)
    }
}

/// Which stored calibration a recording applies.
public enum CalibrationRequest: Sendable, Equatable {
    /// None: the session records eye features without gaze.
    case none
    /// The newest calibration, for the requested screen when one is given.
    case latest
    /// This calibration (an id).
    case id(String)

    /// `none`, `latest` (any case), or an id.
    public init(_ text: String) {
        switch text.lowercased() {
        case "none": self = .none
        case "latest": self = .latest
        default: self = .id(text)
        }
    }
}

/// Why a requested calibration cannot be applied to a recording.
public enum CalibrationChoiceError: Error, CustomStringConvertible, Equatable {
    /// The calibration was made for another screen than the one the recording asks for.
    case otherScreen(id: String, calibrated: Size, requested: Size)
    /// The recording would measure head pose with another focal length than the calibration did
    /// (nil: the calibration used the frame width).
    case otherFocalLength(id: String, calibratedPixels: Double?, requestedPixels: Double)
    /// The calibration's head poses were measured with a face model this version no longer measures with.
    case otherHeadPoseModel(id: String, model: String)

    /// A screen size in points.
    public struct Size: Sendable, Equatable {
        public var width: Double
        public var height: Double
        public init(width: Double, height: Double) {
            self.width = width
            self.height = height
        }
    }

    public var description: String {
        switch self {
        case let .otherScreen(id, calibrated, requested):
            return "calibration \(id) was made for a \(Int(calibrated.width))x\(Int(calibrated.height)) screen, "
                + "not \(Int(requested.width))x\(Int(requested.height))."
        case let .otherFocalLength(id, calibrated, requested):
            let used = calibrated.map { "\(($0 * 10).rounded() / 10) px" } ?? "the frame width"
            return "focal length \((requested * 10).rounded() / 10) px differs from the focal length calibration \(id) "
                + "measured head pose with (\(used))."
        case let .otherHeadPoseModel(id, model):
            return "calibration \(id) measured head pose with the \(model) face model of an earlier gazerec; this version "
                + "measures it with \(HeadPoseModelName.current) (and \(HeadPoseModelName.rigidPoints) for the calibrations "
                + "made with it), so the calibration's mapping does not apply. Calibrate again."
        }
    }
}

extension SessionDatabase {
    /// The calibration a recording applies: none, the newest (for `screen` when given; nil when
    /// there is none), or the one named, which must fit `screen` and `focalLengthPixels` when given.
    ///
    /// Head poses feed the mapping, so they must be measured with the focal length the
    /// calibration used; a named calibration must also be for the recording's screen.
    public func chooseCalibration(_ request: CalibrationRequest, screen: CalibrationChoiceError.Size?,
                                  focalLengthPixels: Double?) throws -> CalibrationRecord? {
        let record: CalibrationRecord
        switch request {
        case .none:
            return nil
        case .latest:
            guard let summary = try latestCalibration(screenWidth: screen?.width, screenHeight: screen?.height) else {
                return nil
            }
            record = try calibrationRecord(id: summary.id)
        case .id(let id):
            record = try calibrationRecord(id: id)
            if let screen, screen.width != record.screenWidth || screen.height != record.screenHeight {
                throw CalibrationChoiceError.otherScreen(
                    id: record.id, calibrated: .init(width: record.screenWidth, height: record.screenHeight), requested: screen)
            }
        }
        guard FaceModel3D.named(record.headPoseModel) != nil else {
            throw CalibrationChoiceError.otherHeadPoseModel(id: record.id, model: record.headPoseModel)
        }
        if let given = focalLengthPixels, record.focalLengthPixels != given {
            throw CalibrationChoiceError.otherFocalLength(id: record.id, calibratedPixels: record.focalLengthPixels,
                                                          requestedPixels: given)
        }
        return record
    }
}
