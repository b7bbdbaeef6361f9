import FaceExpression
import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import SessionStore

/// What a recording asks for, before the rules settle it into a `RecordingConfiguration`: the
/// calibration to apply (chosen from the store, and flagged when its validation was poor), the
/// screen (given, else the calibration's, else `defaultScreen`), the blend shapes (the smile added
/// when expressions are recorded: what `show` reports beside them) and the focal length
/// (`FocalLength`). `start` makes one from its options; a program records exactly as it does with
/// `RecordingSetup(…).plan()` and `RecordingRun(configuration: plan.configuration, …)`.
public struct RecordingSetup: Sendable {
    public var source: FrameSourceRequest
    public var databasePath: String
    public var modelPath: String
    public var appID: String
    public var blendShapes: [BlendShapeName] = BlendShapeName.defaultSet
    /// The calibration mapping gaze: the newest (for `screen`, when given), one by id, or none.
    public var calibration: CalibrationRequest = .latest
    /// The screen in screen points (nil: the calibration's, else `defaultScreen`).
    public var screen: CalibrationChoiceError.Size?
    /// UIInterfaceOrientation raw value written with every sample (default 3, landscape right).
    public var orientation = 3
    public var maximumDurationSeconds: Double?
    /// The focal length given for the run (nil: the calibration's, else the frame width).
    public var focalLengthPixels: Double?
    /// Where ONNX Runtime and the expression model are, to record each frame's expression
    /// probabilities; nil records none.
    public var expressions: ExpressionModelFiles?

    /// The screen of a recording without a calibration or a screen given, in screen points.
    public static let defaultScreen = CalibrationChoiceError.Size(width: 1920, height: 1080)

    public init(source: FrameSourceRequest, databasePath: String, modelPath: String, appID: String) {
        self.source = source
        self.databasePath = databasePath
        self.modelPath = modelPath
        self.appID = appID
    }

    /// The recording the set-up settles into.
    public struct Plan: @unchecked Sendable {
        public var configuration: RecordingConfiguration
        /// The stored calibration applied, if any.
        public var calibration: CalibrationRecord?
        /// Whether the applied calibration's validation judged it poor (`ValidationQuality`): its
        /// gaze is doubtful, and a recording says so once it holds the recorder lock.
        public var calibrationFlaggedPoor: Bool
    }

    /// Chooses the calibration and settles the screen, blend shapes and focal length. Throws
    /// `unknownCalibration` for an id the store lacks (or when there is no store), and
    /// `CalibrationChoiceError` when the one named does not fit the screen or focal length.
    public func plan() throws -> Plan {
        let record = try chosenCalibration()
        let applied = record.map(AppliedCalibration.init)
        // The calibration's screen is the session's: its gaze points are in that screen's points.
        let screen = screen ?? applied.map { .init(width: $0.screenWidth, height: $0.screenHeight) } ?? Self.defaultScreen
        var shapes = blendShapes
        if expressions != nil {
            for name in [BlendShapeName.mouthSmileLeft, .mouthSmileRight] where !shapes.contains(name) { shapes.append(name) }
        }
        var configuration = RecordingConfiguration(
            source: source, databasePath: databasePath, modelPath: modelPath, appID: appID, blendShapes: shapes,
            screenWidth: screen.width.rounded(.towardZero), screenHeight: screen.height.rounded(.towardZero),
            orientation: orientation, maximumDurationSeconds: maximumDurationSeconds,
            focalLengthPixels: FocalLength.pixels(given: focalLengthPixels, calibration: applied?.focalLengthPixels))
        configuration.calibration = applied
        configuration.screenIsDefault = self.screen == nil && applied == nil
        configuration.expressions = expressions
        let quality = record?.validation?.quality(screenWidth: record!.screenWidth, screenHeight: record!.screenHeight)
        return Plan(configuration: configuration, calibration: record,
                    calibrationFlaggedPoor: quality != nil && quality != .acceptable)
    }

    /// The calibration `calibration` names, chosen for `screen` and the focal length; nil for none.
    private func chosenCalibration() throws -> CalibrationRecord? {
        guard calibration != .none else { return nil }
        guard FileManager.default.fileExists(atPath: databasePath) else {
            if case .id(let id) = calibration { throw StoreError.unknownCalibration(id: id, databasePath: databasePath) }
            return nil
        }
        return try SessionDatabase(path: databasePath).chooseCalibration(calibration, screen: screen,
                                                                        focalLengthPixels: focalLengthPixels)
    }
}
