import FaceExpression
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import GazeVision
import StimulusPresenter

/// Everything a recording needs to know before it starts.
public struct RecordingConfiguration: @unchecked Sendable {
    /// Where the frames come from (camera, file, given frames), mirrored or not, paced or not.
    public var source: FrameSourceRequest
    public var databasePath: String
    public var modelPath: String
    public var appID: String
    public var blendShapes: [BlendShapeName]
    public var screenWidth: Double
    public var screenHeight: Double
    /// Whether the screen is `RecordingSetup.defaultScreen` for want of a calibration or a screen
    /// given: a presenter's display then sets it (its pixels as points).
    public var screenIsDefault = false
    /// UIInterfaceOrientation raw value written with every sample.
    public var orientation: Int
    public var maximumDurationSeconds: Double?
    public var focalLengthPixels: Double?
    /// Largest delay between a frame and its sample being committed.
    public var flushIntervalSeconds: Double = 0.25
    /// The calibration mapping eye features to the scanPath; nil records no scanPath.
    public var calibration: AppliedCalibration?
    /// The face model head pose is measured with: the calibration's, else this version's.
    public var headPoseModel: String { calibration?.headPoseModel ?? HeadPoseModelName.current }
    /// The blink rule blink events are found with (the pipeline's: always the shipped one).
    public var blinkRule: String { BlinkRule.shipped.rawValue }
    /// Smoothing of the gaze stream (with a calibration).
    public var smoothing: GazeSmoothing = .none
    /// How faces are found where none is tracked (the CNN stages, off the frame thread for cameras).
    public var faceFinding = FaceFinding()
    /// The upright check's rule faces are judged by (`faceFinding`'s).
    public var uprightRule: String { faceFinding.uprightRule.rawValue }
    /// Where to keep the analysed frames as a lossless video: a file, or a folder to hold
    /// `<session id>.mkv`; nil keeps none.
    public var videoDestination: VideoDestination?
    /// Event markers read line by line while recording (a pipe, a named pipe, a growing file), if any.
    public var markerInput: MarkerFeed.Input?
    /// Told about marker lines that could not be stored as given (on the marker feed's thread).
    public var markerWarning: MarkerFeed.Warning = { _ in }
    /// Where ONNX Runtime and the expression model are, to record each frame's expression
    /// probabilities (`ExpressionStage`); nil records none.
    public var expressions: ExpressionModelFiles?
    /// The ranges the seating is checked against over the first second (a warning when out of range).
    public var seating = SeatingThresholds()
    /// The Lab Streaming Layer streams to publish and the marker stream to take markers from, if any.
    public var labStreaming: LabStreamingRequest?
    /// The stimuli to present while recording (`StimulusPresenter`), nil for none: the player opens
    /// on a grey screen before the session begins, shows the items once it has begun, and the
    /// recording ends when the last item ends (or the participant quits it, or the player dies).
    /// Its screen points are set from the session's screen by `run`; a default screen becomes the display's size.
    public var presentation: PresenterSettings?
    /// Warnings about the whole recording known before it starts (a calibration flagged poor): told
    /// through `run`'s `warning` once it holds the recorder lock (a background recorder's log starts
    /// then), and shown in the recorder's status while no warning of the moment is.
    public var warnings: [String] = []

    public init(source: FrameSourceRequest, databasePath: String, modelPath: String, appID: String,
                blendShapes: [BlendShapeName], screenWidth: Double, screenHeight: Double, orientation: Int,
                maximumDurationSeconds: Double?, focalLengthPixels: Double?) {
        self.source = source
        self.databasePath = databasePath
        self.modelPath = modelPath
        self.appID = appID
        self.blendShapes = blendShapes
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.orientation = orientation
        self.maximumDurationSeconds = maximumDurationSeconds
        self.focalLengthPixels = focalLengthPixels
    }
}

/// Where a recording's video goes.
public enum VideoDestination: Sendable, Equatable {
    case file(String)
    /// A folder (created if missing) for `<session id>.mkv`.
    case folder(String)
}
