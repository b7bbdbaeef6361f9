import GazeCalibration
import GazeCapture
import GazeModel
import SessionStore

/// A recorded session's scan path computed again from its stored eye features with a calibration
/// (`gazerec recalibrate`).
///
/// The stored frames go through the same `GazeStream` a live recording with that calibration would
/// have used; the session's scan path, calibration members and screen size (the calibration's: its
/// points are in that screen's coordinates) are replaced in one transaction, and the presentations'
/// rectangles (screen points) scaled from the old screen to the new one.
public enum Recalibration {
    /// What a recalibration did.
    public struct Result: Sendable {
        public var sessionID: String
        /// The calibration applied.
        public var calibration: CalibrationRecord
        /// Stored frames read, and gaze samples they gave.
        public var frames: Int
        public var gazeSamples: Int
        /// The session's screen before, when it was not the calibration's.
        public var previousScreen: (width: Double, height: Double)?
    }

    /// Recalibrates session `sessionID` with calibration `calibrationID` (`latest` for the newest),
    /// smoothing with `smoothing`, or as the session was recorded when nil.
    public static func run(sessionID: String, calibrationID: String, smoothing: GazeSmoothing?,
                           database: SessionDatabase) throws -> Result {
        let stored = try database.storedFrames(id: sessionID)
        let id = stored.header.id
        if stored.recording { throw RecalibrationError.stillRecording(sessionID: id) }
        guard !stored.frames.isEmpty else { throw RecalibrationError.noStoredFrames(sessionID: id) }
        let record = try database.calibrationRecord(id: calibrationID)
        let recordedWith = stored.header.gazerecExtension?.recorder?.headPoseModel ?? HeadPoseModelName.sixPoint
        guard recordedWith == record.headPoseModel else {
            throw RecalibrationError.otherHeadPoseModel(sessionID: id, sessionModel: recordedWith, calibrationID: record.id,
                                                        calibrationModel: record.headPoseModel)
        }
        let applied = AppliedCalibration(record)
        // The extension keeps everything but what the new calibration changes.
        var gazerecExtension = stored.header.gazerecExtension ?? SessionExtension()
        let chosenSmoothing = smoothing ?? gazerecExtension.smoothing ?? .none
        let samples = applied.scanPath(stored.frames, orientation: stored.orientation, smoothing: chosenSmoothing)
        var reference = applied.reference
        reference.recalibratedAtSeconds = SystemClock.unixTime()
        gazerecExtension.applyCalibration(reference, smoothing: chosenSmoothing)
        let device = stored.header.deviceInfo
        // The presentations' rectangles are in the session's screen points: they follow the screen.
        try database.replaceScanPath(id: id, samples: samples, gazerecExtension: gazerecExtension,
                                     screenWidth: record.screenWidth, screenHeight: record.screenHeight,
                                     previousScreen: (device.screenWidth, device.screenHeight))
        let screenChanged = device.screenWidth != record.screenWidth || device.screenHeight != record.screenHeight
        return Result(sessionID: id, calibration: record, frames: stored.frames.count, gazeSamples: samples.count,
                      previousScreen: screenChanged ? (device.screenWidth, device.screenHeight) : nil)
    }
}

/// Why a session cannot be recalibrated.
///
/// The sentences name no command; the command line adds which one to run (its `ErrorHints`).
public enum RecalibrationError: Error, CustomStringConvertible, Equatable {
    /// The session has no end yet: it is being recorded, or its recorder died.
    case stillRecording(sessionID: String)
    /// The session has no per-frame eye features (an imported session).
    case noStoredFrames(sessionID: String)
    /// The session's head poses and the calibration's were measured with different face models.
    case otherHeadPoseModel(sessionID: String, sessionModel: String, calibrationID: String, calibrationModel: String)

    public var description: String {
        switch self {
        case let .stillRecording(id):
            return "session \(id) is still being recorded (or its recorder died). Recalibrate it once it has ended."
        case let .noStoredFrames(id):
            return "session \(id) has no stored eye features to recalibrate "
                + "(only sessions recorded by gazerec have them; imported iOS sessions do not)."
        case let .otherHeadPoseModel(id, sessionModel, calibrationID, calibrationModel):
            return "session \(id)'s head poses were measured with the \(sessionModel) face model, calibration "
                + "\(calibrationID)'s with \(calibrationModel): the mapping does not apply to them. Recalibrate with a "
                + "calibration made by the gazerec that recorded the session."
        }
    }
}
