import GazeAnalysis
import GazeModel

/// One recorded session as an Eye-Tracking-BIDS run needs it: its description and its data, in
/// gazerec's units (screen points with the origin at the top left and y down, Unix seconds).
public struct BIDSRecording: Sendable {
    /// The session's id (an upper-case UUID string), listed in `scans.tsv`.
    public var sessionID: String
    /// The recording application or study identifier (the session's `appID`).
    public var appID: String
    /// Unix seconds: the run's time zero.
    public var beginSeconds: Double
    public var endSeconds: Double?
    /// The screen in screen points (the session's `deviceInfo.screenSize`).
    public var screenWidthPoints: Double
    public var screenHeightPoints: Double
    /// The screen's physical size and the viewing distance, when known.
    public var geometry: ScreenGeometry?
    /// The device the session names (`deviceInfo.model`: the camera or phone), if any.
    public var deviceModel: String?
    /// The version of the software that recorded the session.
    public var softwareVersion: String
    /// The system that recorded the session when gazerec did not (an imported session's, say
    /// `iOS 13.5.1`): then the sidecars name it instead of gazerec's method and version.
    public var otherRecordingSystem: String?
    /// The frame rate the camera was asked for, when known; else the rate is estimated from the samples.
    public var nominalFramesPerSecond: Double?
    /// The calibrations behind the gaze, when known.
    public var calibration: BIDSCalibration?
    /// The scan path, in time order.
    public var gaze: [GazeSample]
    /// The per-frame measurements, in time order.
    public var frames: [FrameMeasurement]
    public var blinks: [BlinkEvent]
    public var markers: [Marker]
    public var fixations: [Fixation]
    /// The expression probabilities of the frames with a face, in time order (a recording asked
    /// for them: `start --expressions`); empty otherwise, and then no expression file is written.
    public var expressions: [ExpressionSample]
    /// The smile at each frame time that has one (the mean of `mouthSmile_L` and `mouthSmile_R`,
    /// 0…1), in time order: written beside the expression sample of the same frame time.
    public var smile: [(timestampSeconds: Double, value: Double)]
    /// What the presenter showed (`start --present`), in the order shown: each a row of
    /// `_events.tsv` at its onset, with its pauses, seeks and stalls.
    public var presentations: [Presentation] = []

    public init(sessionID: String, appID: String, beginSeconds: Double, endSeconds: Double? = nil,
                screenWidthPoints: Double, screenHeightPoints: Double, geometry: ScreenGeometry? = nil,
                deviceModel: String? = nil, softwareVersion: String = GazerecVersion.current,
                otherRecordingSystem: String? = nil, nominalFramesPerSecond: Double? = nil,
                calibration: BIDSCalibration? = nil, gaze: [GazeSample] = [],
                frames: [FrameMeasurement] = [], blinks: [BlinkEvent] = [], markers: [Marker] = [],
                fixations: [Fixation] = [], expressions: [ExpressionSample] = [],
                smile: [(timestampSeconds: Double, value: Double)] = []) {
        self.sessionID = sessionID
        self.appID = appID
        self.beginSeconds = beginSeconds
        self.endSeconds = endSeconds
        self.screenWidthPoints = screenWidthPoints
        self.screenHeightPoints = screenHeightPoints
        self.geometry = geometry
        self.deviceModel = deviceModel
        self.softwareVersion = softwareVersion
        self.otherRecordingSystem = otherRecordingSystem
        self.nominalFramesPerSecond = nominalFramesPerSecond
        self.calibration = calibration
        self.gaze = gaze
        self.frames = frames
        self.blinks = blinks
        self.markers = markers
        self.fixations = fixations
        self.expressions = expressions
        self.smile = smile
    }
}

/// What is known of the calibrations behind a recording's gaze (BIDS's calibration metadata).
public struct BIDSCalibration: Sendable, Equatable {
    /// How many calibrations belong to the run.
    public var count: Int
    /// The last calibration's procedure, e.g. `HV9` for nine targets on a horizontal and vertical grid.
    public var type: String?
    /// Validation accuracy: the mean angle between target and gaze, degrees of visual angle.
    public var averageErrorDegrees: Double?
    /// The targets of the last calibration, screen points.
    public var targetPoints: [Point2]

    public init(count: Int, type: String? = nil, averageErrorDegrees: Double? = nil, targetPoints: [Point2] = []) {
        self.count = count
        self.type = type
        self.averageErrorDegrees = averageErrorDegrees
        self.targetPoints = targetPoints
    }
}

/// Where a run goes in the dataset: the BIDS subject, optional session and task labels.
public struct BIDSRunLabels: Sendable, Equatable {
    public var subject: String
    public var session: String?
    public var task: String

    /// Checks each label: one or more ASCII letters and digits, as BIDS labels are.
    public init(subject: String, session: String? = nil, task: String) throws {
        for (entity, label) in [("subject", subject), ("session", session), ("task", task)] {
            guard let label else { continue }
            guard !label.isEmpty, label.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic
                                                                                  || ("0"..."9").contains($0)) }) else {
                throw BIDSExportError.invalidLabel(entity: entity, label: label)
            }
        }
        self.subject = subject
        self.session = session
        self.task = task
    }

    /// `sub-<label>[_ses-<label>]`: the start of every file name of the subject (and session).
    var subjectPrefix: String { "sub-\(subject)" + (session.map { "_ses-\($0)" } ?? "") }

    /// `sub-<label>[/ses-<label>]`: the folder of the subject (and session).
    var subjectFolder: String { "sub-\(subject)" + (session.map { "/ses-\($0)" } ?? "") }
}
